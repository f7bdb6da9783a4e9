import { describe, expect, it } from 'vitest';
import { parseApiCommand, runApiCommand } from '../../src/cli/api-commands.js';
import { UsageError } from '../../src/cli/show.js';

const env = { OVN_BGP_SPEAKER_SOCKET: '/tmp/s.sock' };

describe('parseApiCommand', () => {
  it('route announce takes the attributes as options, in the file’s keys', () => {
    const r = parseApiCommand(
      'route',
      [
        'announce',
        '198.18.5.0/24',
        '--next-hop',
        '198.18.0.9',
        '--med',
        '5',
        '--community',
        '65000:1',
        '--community',
        'no-export',
      ],
      env,
    );
    expect(r).toEqual({
      socket: '/tmp/s.sock',
      method: 'route.announce',
      params: {
        route: {
          prefix: '198.18.5.0/24',
          next_hop: '198.18.0.9',
          med: 5,
          communities: ['65000:1', 'no-export'],
        },
      },
    });
  });

  it('route withdraw and list', () => {
    expect(parseApiCommand('route', ['withdraw', '198.18.5.0/24'], env).params).toEqual({
      prefix: '198.18.5.0/24',
    });
    expect(parseApiCommand('route', ['list'], env).method).toBe('routes');
  });

  it('peer add reads YAML from the file given', () => {
    const r = parseApiCommand(
      'peer',
      ['add', 'p.yaml', '--socket', '/x'],
      env,
      () => 'name: b\npeer_ip: 198.18.1.3\nremote_as: 65002\n',
    );
    expect(r).toEqual({
      socket: '/x',
      method: 'peer.add',
      params: { peer: { name: 'b', peer_ip: '198.18.1.3', remote_as: 65002 } },
    });
    expect(parseApiCommand('peer', ['remove', 'b'], env).params).toEqual({ peer: 'b' });
  });

  it('call takes a method and JSON params', () => {
    expect(parseApiCommand('call', ['rib', '{"afi":6}'], env)).toMatchObject({
      method: 'rib',
      params: { afi: 6 },
    });
  });

  it.each([
    [['route'], 'route: announce, withdraw or list?'],
    [['route', 'announce'], 'route announce: which prefix?'],
    [['route', 'announce', '198.18.5.0/24', '--med', 'x'], '--med must be a non-negative integer, got x'],
    [['call', 'nope'], 'call: unknown method nope'],
    [['call', 'rib', '{'], 'call: PARAMS must be JSON'],
  ])('%j is a usage error: %s', (args, message) => {
    const [command, ...rest] = args as [string, ...string[]];
    const which = (command === 'route' || command === 'call' ? command : 'peer') as 'route' | 'call';
    expect(() => parseApiCommand(which, rest, env)).toThrow(UsageError);
    expect(() => parseApiCommand(which, rest, env)).toThrow(message);
  });

  it('an unreachable speaker is exit status 1 with the reason', async () => {
    const err: string[] = [];
    const status = await runApiCommand('route', ['list', '--socket', '/nonexistent/s.sock'], {
      out: () => {},
      err: (t) => err.push(t),
      env: {},
    });
    expect(status).toBe(1);
    expect(err.join('')).toContain('is the speaker running?');
  });
});
