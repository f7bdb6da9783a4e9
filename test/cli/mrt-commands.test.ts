import { describe, expect, it } from 'vitest';
import {
  type ControlRequest,
  type ControlResponse,
  dispatch,
  isResponse,
  parseRequest,
} from '../../src/api/protocol.js';
import { parseApiCommand } from '../../src/cli/api-commands.js';
import { dumpRequest, injectionName, mrtRequest } from '../../src/cli/mrt-commands.js';
import { UsageError } from '../../src/cli/show.js';
import { fakeControl } from '../api/fake-control.js';

const env = { OVN_BGP_SPEAKER_SOCKET: '/tmp/s.sock' };

describe('dump and mrt on the command line', () => {
  it('dump rib FILE sends the absolute path; without FILE the configured one', () => {
    expect(dumpRequest(['rib', 'rib.mrt'], '/var/tmp')).toEqual({
      method: 'mrt.dump',
      params: { path: '/var/tmp/rib.mrt' },
    });
    expect(dumpRequest(['rib'], '/var/tmp')).toEqual({ method: 'mrt.dump', params: {} });
    expect(() => dumpRequest(['table'])).toThrow(UsageError);
    expect(() => dumpRequest(['rib', 'a', 'b'])).toThrow(UsageError);
  });

  it('mrt inject names the injection after the file unless --name says', () => {
    expect(mrtRequest(['inject', 'tables/rib.20261206.mrt'], undefined, '/srv')).toEqual({
      method: 'mrt.inject',
      params: { name: 'rib', path: '/srv/tables/rib.20261206.mrt' },
    });
    expect(parseApiCommand('mrt', ['inject', '/x/full.mrt', '--name', 'transit'], env)).toEqual({
      socket: '/tmp/s.sock',
      method: 'mrt.inject',
      params: { name: 'transit', path: '/x/full.mrt' },
    });
    expect(injectionName('/x/my table!.mrt.gz')).toBe('my_table_');
    expect(injectionName('/x/.mrt')).toBe('mrt');
  });

  it('mrt withdraw and list; the rest are usage errors', () => {
    expect(mrtRequest(['withdraw', 'transit'], undefined)).toEqual({
      method: 'mrt.withdraw',
      params: { name: 'transit' },
    });
    expect(mrtRequest(['list'], undefined)).toEqual({ method: 'mrt.list', params: {} });
    expect(() => mrtRequest(['list', 'x'], undefined)).toThrow(UsageError);
    expect(() => mrtRequest(['withdraw'], undefined)).toThrow(/which NAME/);
    expect(() => mrtRequest(['withdraw', 'x'], 'y')).toThrow(/--name goes with inject/);
    expect(() => mrtRequest(['load', 'x'], undefined)).toThrow(/inject, withdraw or list/);
    expect(() => parseApiCommand('dump', ['rib', '--med', '5'], env)).toThrow(UsageError);
  });
});

describe('the mrt methods of the control API', () => {
  const run = async (line: string): Promise<ControlResponse> => {
    const r = parseRequest(line);
    return isResponse(r) ? r : dispatch(fakeControl(), r as ControlRequest);
  };
  const call = (method: string, params: unknown) => run(JSON.stringify({ id: 1, method, params }));

  it('take absolute paths and plain names, and name the bad param', async () => {
    expect(await call('mrt.dump', { path: 'rib.mrt' })).toEqual({
      id: 1,
      error: { code: 'bad-request', message: '"path" must be an absolute file path' },
    });
    expect(await call('mrt.inject', { name: '../x', path: '/t.mrt' })).toMatchObject({
      error: { code: 'bad-request', message: expect.stringContaining('"name" must be 1..64 letters') },
    });
    expect(await call('mrt.inject', { name: 'x', path: '/t.mrt', peer: 'a' })).toMatchObject({
      error: { code: 'bad-request', message: 'unknown param "peer" (takes: name, path)' },
    });
    expect(await call('mrt.inject', { name: 'x', path: '/t.mrt' })).toMatchObject({
      result: { name: 'x', path: '/t.mrt', ipv4: 2 },
    });
    expect(await call('mrt.withdraw', { name: 'other' })).toMatchObject({ error: { code: 'unknown-route' } });
    expect(await call('mrt.dump', {})).toMatchObject({ result: { prefixes: 3 } });
    expect(await call('mrt.list', {})).toEqual({ id: 1, result: [] });
  });
});
