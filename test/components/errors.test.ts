import { describe, expect, it } from 'vitest';
import { ControlClientError, ControlError } from '../../src/api/index.js';
import { FsmConfigError } from '../../src/bgp/fsm/index.js';
import { SessionConfigError, SessionError } from '../../src/bgp/session/index.js';
import { TransportError } from '../../src/bgp/transport/index.js';
import { BgpError, type BgpErrorKind, IncompleteError } from '../../src/bgp/wire/index.js';
import { KindedError } from '../../src/components/index.js';
import { ConfigError } from '../../src/config/index.js';
import { KernelError } from '../../src/fib/kernel/index.js';
import { OvnNbError } from '../../src/fib/ovn-nb/index.js';
import { ZapiError } from '../../src/fib/zebra/index.js';
import { OvsdbError } from '../../src/ovsdb/index.js';
import { PolicyError } from '../../src/policy/index.js';

describe('KindedError, the base of every error thrown on purpose', () => {
  const cases: [string, KindedError, string][] = [
    [
      'ConfigError',
      new ConfigError('invalid', [{ path: 'peers[0]', segments: ['peers', 0], message: 'bad' }]),
      'invalid',
    ],
    ['PolicyError', new PolicyError('invalid-prefix', 'prefixLists[X]', 'bad'), 'invalid-prefix'],
    ['ControlError', new ControlError('unknown-peer', 'no such peer'), 'unknown-peer'],
    ['ControlClientError', new ControlClientError('timeout', 'late'), 'timeout'],
    ['SessionError', new SessionError('closed', 'closed'), 'closed'],
    ['SessionConfigError', new SessionConfigError('hold_time', 'is 2'), 'session-config'],
    ['FsmConfigError', new FsmConfigError('holdTime', 'is 2'), 'fsm-config'],
    ['TransportError', new TransportError('connect-timeout', 'late'), 'connect-timeout'],
    ['BgpError', new BgpError('bad-marker' as BgpErrorKind, 1, 1), 'bad-marker'],
    ['IncompleteError', new IncompleteError(4), 'incomplete'],
    ['OvsdbError', new OvsdbError('closed', 'closed'), 'closed'],
    ['ZapiError', new ZapiError('closed', 'closed'), 'closed'],
    ['KernelError', new KernelError('timeout', 'late'), 'timeout'],
    ['OvnNbError', new OvnNbError('no-router', 'none yet'), 'no-router'],
  ];

  it.each(cases)('%s carries its kind and its own name', (name, error, kind) => {
    expect(error).toBeInstanceOf(KindedError);
    expect(error).toBeInstanceOf(Error);
    expect(error.kind).toBe(kind);
    expect(error.name).toBe(name);
    expect(String(error)).toMatch(new RegExp(`^${name}: `));
  });

  it('keeps the cause it was given', () => {
    const cause = new Error('ECONNREFUSED');
    expect(new TransportError('connect-failed', 'refused', {}, cause).cause).toBe(cause);
  });

  it('ControlError answers with its kind as the code', () => {
    expect(new ControlError('bad-request', 'x').code).toBe('bad-request');
  });
});
