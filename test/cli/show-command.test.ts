import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiDefaults, type ControlServer, startControlServer } from '../../src/api/index.js';
import { formatNeighbors } from '../../src/cli/format-neighbor.js';
import { formatRibDetail } from '../../src/cli/format-rib.js';
import { formatSummary } from '../../src/cli/format-summary.js';
import { EXIT, parseControlCommand, runControlCommand, UsageError } from '../../src/cli/show.js';
import { type FakeControl, fakeControl, RIB, SPINE1, SUMMARY } from '../api/fake-control.js';
import { tempDir } from '../api/support.js';

const ENV = {};

describe('parseControlCommand', () => {
  it.each([
    [['summary'], 'summary', {}],
    [['neighbors'], 'neighbors', {}],
    [['neighbors', 'spine1'], 'neighbors', { peer: 'spine1' }],
    [['neighbor', '198.18.0.2'], 'neighbors', { peer: '198.18.0.2' }],
    [['rib'], 'rib', {}],
    [['rib', '--afi', '6', '--limit', '50'], 'rib', { afi: 6, limit: 50 }],
    [['rib', '198.18.10.7'], 'rib', { prefix: '198.18.10.7' }],
    [['advertised', 'spine1'], 'advertised', { peer: 'spine1' }],
    [['bmp'], 'bmp', {}],
    [
      ['received', 'spine1', '198.18.10.0/24', '--afi=4'],
      'received',
      { peer: 'spine1', prefix: '198.18.10.0/24', afi: 4 },
    ],
  ])('show %j calls %s with %j', (args, method, params) => {
    const call = parseControlCommand('show', args, ENV);
    expect({ method: call.method, params: call.params }).toEqual({ method, params });
  });

  it.each([
    [['spine1', 'reset'], 'neighbor.reset', { peer: 'spine1' }],
    [['spine1', 'shutdown'], 'neighbor.shutdown', { peer: 'spine1' }],
    [
      ['spine1', 'shutdown', '--message', 'ticket 42'],
      'neighbor.shutdown',
      { peer: 'spine1', message: 'ticket 42' },
    ],
    [['2001:db8::2', 'enable'], 'neighbor.enable', { peer: '2001:db8::2' }],
    [['spine1', 'refresh'], 'neighbor.refresh', { peer: 'spine1' }],
  ])('neighbor %j calls %s with %j', (args, method, params) => {
    const call = parseControlCommand('neighbor', args, ENV);
    expect({ method: call.method, params: call.params }).toEqual({ method, params });
  });

  it('takes the socket from --socket, else the environment, else the default', () => {
    expect(parseControlCommand('show', ['summary'], {}).socket).toBe(ApiDefaults.SOCKET_PATH);
    const env = { OVN_BGP_SPEAKER_SOCKET: '/tmp/env.sock' };
    expect(parseControlCommand('show', ['summary'], env).socket).toBe('/tmp/env.sock');
    expect(parseControlCommand('show', ['summary', '--socket', '/tmp/flag.sock'], env).socket).toBe(
      '/tmp/flag.sock',
    );
  });

  it.each([
    ['show', [], 'show: what to show? (summary, neighbors, rib, advertised, received, ovn, sinks, bmp)'],
    [
      'show',
      ['routes'],
      'show: unknown "routes" (summary, neighbors, rib, advertised, received, ovn, sinks, bmp)',
    ],
    ['show', ['summary', 'extra'], 'show summary: unexpected argument "extra"'],
    ['show', ['summary', '--afi', '4'], 'show summary does not take --afi'],
    ['show', ['rib', '--afi', '5'], '--afi must be 4 or 6'],
    ['show', ['rib', '--limit', '0'], '--limit must be a positive integer'],
    ['show', ['rib', '--limit', '1e3'], '--limit must be a positive integer'],
    ['show', ['advertised'], 'show advertised PEER: missing argument'],
    ['show', ['rib', '--verbose'], "Unknown option '--verbose'"],
    ['neighbor', ['spine1'], 'neighbor: PEER and an action are required'],
    [
      'neighbor',
      ['spine1', 'bounce'],
      'neighbor: unknown action "bounce" (reset, shutdown, enable, refresh)',
    ],
    ['neighbor', ['spine1', 'reset', '--message', 'x'], 'neighbor reset does not take --message'],
    ['neighbor', ['spine1', 'reset', 'now'], 'neighbor spine1 reset: unexpected argument "now"'],
  ] as const)('%s %j is a usage error', (command, args, message) => {
    expect(() => parseControlCommand(command, args, ENV)).toThrow(UsageError);
    expect(() => parseControlCommand(command, args, ENV)).toThrow(message);
  });
});

describe('the commands against a control socket', () => {
  let tmp: ReturnType<typeof tempDir>;
  let server: ControlServer;
  let control: FakeControl;
  let socket: string;

  beforeEach(async () => {
    tmp = tempDir('obs-cli-');
    socket = join(tmp.dir, 'control.sock');
    control = fakeControl();
    server = await startControlServer({ path: socket, control });
  });

  afterEach(async () => {
    await server.close();
    tmp.cleanup();
  });

  async function run(command: 'show' | 'neighbor', ...args: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const status = await runControlCommand(command, args, {
      out: (t) => out.push(t),
      err: (t) => err.push(t),
      env: { OVN_BGP_SPEAKER_SOCKET: socket },
    });
    return { status, out: out.join('\n'), err: err.join('\n') };
  }

  it('prints the summary table', async () => {
    expect(await run('show', 'summary')).toEqual({ status: EXIT.OK, out: formatSummary(SUMMARY), err: '' });
  });

  it('prints with --json FRR’s shapes: summary and neighbors keyed by address, route tables by prefix', async () => {
    const summary = JSON.parse((await run('show', 'summary', '--json')).out);
    expect(Object.keys(summary)).toEqual(['ipv4Unicast', 'ipv6Unicast']);
    expect(summary.ipv4Unicast.peers['198.18.0.2']).toMatchObject({ remoteAs: 65001, pfxRcd: 3, pfxSnt: 5 });
    const frr = JSON.parse((await run('show', 'summary', '--json=frr')).out);
    // The epoch is "now" less the uptime: the two runs may straddle a second.
    const epoch = (s: typeof summary) => s.ipv4Unicast.peers['198.18.0.2'].peerUptimeEstablishedEpoch;
    expect(Math.abs(epoch(frr) - epoch(summary))).toBeLessThanOrEqual(1);
    expect(withoutEpochs(frr)).toEqual(withoutEpochs(summary));
    const neighbors = JSON.parse((await run('show', 'neighbors', 'spine1', '--json')).out);
    expect(Object.keys(neighbors)).toEqual(['198.18.0.2']);
    expect(neighbors['198.18.0.2']).toMatchObject({ bgpState: 'Established', remoteAs: 65001 });
    const rib = await run('show', 'rib', '--json', '--afi', '4');
    const routes = JSON.parse(rib.out).routes;
    expect(Object.keys(routes)).toEqual(RIB.slice(0, 3).map((e) => e.prefix));
    for (const e of RIB.slice(0, 3)) expect(routes[e.prefix]).toEqual(e.paths);
    const received = JSON.parse((await run('show', 'received', 'spine1', '--json')).out);
    expect(Object.keys(received)).toEqual(['routes']);
    const action = await run('neighbor', 'spine1', 'refresh', '--json');
    expect(JSON.parse(action.out)).toEqual({ peer: 'spine1', action: 'refresh' });
  });

  it('prints with --json=native the answer as the control socket returned it', async () => {
    expect(JSON.parse((await run('show', 'summary', '--json=native')).out)).toEqual(SUMMARY);
    expect(JSON.parse((await run('show', 'neighbors', 'spine1', '--json=native')).out)).toEqual([SPINE1]);
    const rib = JSON.parse((await run('show', 'rib', '--json=native', '--afi', '4')).out);
    expect(rib).toEqual(RIB.slice(0, 3));
  });

  it('refuses a --json shape it does not know, naming the value', async () => {
    expect(await run('show', 'summary', '--json=yaml')).toMatchObject({
      status: EXIT.USAGE,
      err: expect.stringContaining("--json=yaml: expected --json (FRR's shape), --json=frr or --json=native"),
    });
  });

  it('prints one neighbor, and one prefix in detail', async () => {
    expect((await run('show', 'neighbors', '198.18.0.2')).out).toBe(formatNeighbors([SPINE1]));
    expect(await run('show', 'rib', '198.18.10.0/24')).toEqual({
      status: EXIT.OK,
      out: formatRibDetail([RIB[0]]),
      err: '',
    });
    expect(control.calls).toContainEqual([
      'rib',
      { prefix: '198.18.10.0/24', afi: 4, limit: ApiDefaults.RIB_LIMIT },
    ]);
  });

  it('fails when the prefix is not in the table', async () => {
    expect(await run('show', 'rib', '198.18.99.0/24')).toEqual({
      status: EXIT.FAILED,
      out: '% Network not in table',
      err: '',
    });
  });

  it('carries out neighbor actions and says what was done', async () => {
    expect(await run('neighbor', 'spine1', 'shutdown', '--message', 'maintenance: ticket 42')).toEqual({
      status: EXIT.OK,
      out: 'Neighbor spine1: shut down',
      err: '',
    });
    expect((await run('neighbor', 'spine1', 'enable')).out).toBe('Neighbor spine1: enabled');
    expect((await run('neighbor', 'spine1', 'reset')).out).toBe('Neighbor spine1: session reset');
    expect((await run('neighbor', 'spine1', 'refresh')).out).toBe('Neighbor spine1: route refresh requested');
    expect(control.calls).toEqual([
      ['shutdownNeighbor', 'spine1', 'maintenance: ticket 42'],
      ['enableNeighbor', 'spine1'],
      ['resetNeighbor', 'spine1'],
      ['refreshNeighbor', 'spine1'],
    ]);
  });

  it('exits 1 with the speaker’s message for an unknown peer', async () => {
    expect(await run('neighbor', 'spine9', 'reset')).toEqual({
      status: EXIT.FAILED,
      out: '',
      err: 'ovn-bgp-speaker: no neighbor named spine9',
    });
    expect(await run('show', 'received', 'spine9', '--json')).toEqual({
      status: EXIT.FAILED,
      out: '',
      err: 'ovn-bgp-speaker: no neighbor named spine9',
    });
  });

  it('exits 1 with the speaker’s message for a bad prefix', async () => {
    const r = await run('show', 'rib', 'spine1');
    expect(r.status).toBe(EXIT.FAILED);
    expect(r.err).toBe(
      'ovn-bgp-speaker: "prefix" must be an address or a prefix such as 198.18.10.0/24, got "spine1"',
    );
  });

  it('exits 2 with the usage on a usage error, without calling the speaker', async () => {
    const r = await run('show', 'rib', '--afi', '5');
    expect(r.status).toBe(EXIT.USAGE);
    expect(r.err.split('\n').slice(0, 3)).toEqual(['ovn-bgp-speaker: --afi must be 4 or 6', '', 'Usage:']);
    expect(control.calls).toEqual([]);
  });

  it('exits 1 saying the speaker may not be running when the socket is gone', async () => {
    await server.close();
    expect(await run('show', 'summary')).toEqual({
      status: EXIT.FAILED,
      out: '',
      err: `ovn-bgp-speaker: cannot connect to ${socket}: is the speaker running? (ENOENT)`,
    });
  });
});

describe('ovn-bgp-speaker (the executable)', () => {
  let tmp: ReturnType<typeof tempDir>;
  let server: ControlServer;
  let socket: string;

  beforeEach(async () => {
    tmp = tempDir('obs-cli-');
    socket = join(tmp.dir, 'control.sock');
    server = await startControlServer({ path: socket, control: fakeControl() });
  });

  afterEach(async () => {
    await server.close();
    tmp.cleanup();
  });

  const MAIN = join(import.meta.dirname, '../../src/cli/main.ts');

  function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', MAIN, ...args],
        { timeout: 30_000, cwd: join(import.meta.dirname, '../..') },
        (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? -1) : 0, stdout, stderr }),
      );
    });
  }

  it('prints the summary as JSON and exits 0', async () => {
    const r = await cli('show', 'summary', '--json=native', '--socket', socket);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(SUMMARY);
  });

  it('exits non-zero with the message for an unknown peer', async () => {
    const r = await cli('neighbor', 'spine9', 'shutdown', '--message', 'bye', '--socket', socket);
    expect(r).toEqual({ code: 1, stdout: '', stderr: 'ovn-bgp-speaker: no neighbor named spine9\n' });
  });
});

/** A `show summary --json` answer without the peers' established epochs (wall-clock derived). */
function withoutEpochs(summary: Record<string, { peers: Record<string, Record<string, unknown>> }>) {
  for (const family of Object.values(summary))
    for (const peer of Object.values(family.peers)) delete peer.peerUptimeEstablishedEpoch;
  return summary;
}
