import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  healthAnswer,
  healthQuery,
  livenessChecks,
  type PeerRequirement,
  type ReadinessFacts,
  type ReadyRequirements,
  readinessChecks,
} from '../../src/api/index.js';

// The readiness rule of /readyz and the liveness rule of /healthz, and the answers a probe gets.

const STATES = ['Idle', 'Connect', 'Active', 'OpenSent', 'OpenConfirm', 'Established'] as const;
const SINK_STATES = ['starting', 'syncing', 'in-sync', 'retrying'] as const;
const PEER_NAMES = ['a', 'b', 'c', 'd'] as const;
const SINK_NAMES = ['kernel', 'zebra', 'ovn-nb'] as const;

const peerFact = fc.record({ state: fc.constantFrom(...STATES), shutdown: fc.boolean() });
const facts: fc.Arbitrary<ReadinessFacts> = fc.record({
  started: fc.boolean(),
  ovn: fc.option(fc.record({ synced: fc.boolean(), state: fc.constant('x') }), { nil: null }),
  tables: fc
    .subarray(['lr0', 'lr1'])
    .chain((names) =>
      fc.tuple(...names.map((name) => fc.boolean().map((following) => ({ name, following, state: 'x' })))),
    ),
  sinks: fc
    .subarray([...SINK_NAMES])
    .chain((names) =>
      fc.tuple(...names.map((name) => fc.constantFrom(...SINK_STATES).map((state) => ({ name, state })))),
    ),
  peers: fc
    .subarray([...PEER_NAMES])
    .chain((names) => fc.tuple(...names.map((name) => peerFact.map((p) => ({ name, ...p }))))),
});
const peerRequirement: fc.Arbitrary<PeerRequirement> = fc.oneof(
  fc.constantFrom('none', 'any', 'all' as const),
  fc.subarray([...PEER_NAMES], { minLength: 1 }),
);
const requirements: fc.Arbitrary<ReadyRequirements> = fc.record({
  ovn: fc.boolean(),
  sinks: fc.oneof(fc.constant('all' as const), fc.subarray([...SINK_NAMES])),
  peers: peerRequirement,
});

const ready = (f: ReadinessFacts, r: ReadyRequirements) => readinessChecks(f, r).every((c) => c.ok);
const up = (p: ReadinessFacts['peers'][number]) => !p.shutdown && p.state === 'Established';

/** The rule stated directly, as the documentation says it. */
function expected(f: ReadinessFacts, r: ReadyRequirements): boolean {
  if (!f.started) return false;
  if (r.ovn && f.ovn !== null && !f.ovn.synced) return false;
  if (r.ovn && f.tables.some((t) => !t.following)) return false;
  const sinkNames = r.sinks === 'all' ? f.sinks.map((s) => s.name) : r.sinks;
  if (!sinkNames.every((n) => f.sinks.some((s) => s.name === n && s.state === 'in-sync'))) return false;
  const enabled = f.peers.filter((p) => !p.shutdown);
  switch (r.peers) {
    case 'none':
      return true;
    case 'any':
      return enabled.some(up);
    case 'all':
      return enabled.every(up);
    default:
      return r.peers.every((n) => f.peers.some((p) => p.name === n && up(p)));
  }
}

describe('readinessChecks', () => {
  it('is ready exactly when the documented rule says so', () => {
    fc.assert(fc.property(facts, requirements, (f, r) => ready(f, r) === expected(f, r)));
  });

  it('only gets readier as parts come up: a session Established, a sink in sync, OVN synced', () => {
    const improve = (f: ReadinessFacts, i: number): ReadinessFacts => {
      const peers = f.peers.map((p, j) =>
        j === i % Math.max(1, f.peers.length) ? { ...p, state: 'Established' } : p,
      );
      const sinks = f.sinks.map((s, j) =>
        j === i % Math.max(1, f.sinks.length) ? { ...s, state: 'in-sync' } : s,
      );
      const ovn = f.ovn && i % 2 === 0 ? { ...f.ovn, synced: true } : f.ovn;
      const tables = f.tables.map((t, j) =>
        j === i % Math.max(1, f.tables.length) ? { ...t, following: true } : t,
      );
      return { ...f, peers, sinks, ovn, tables };
    };
    fc.assert(
      fc.property(facts, requirements, fc.nat(), (f, r, i) => !ready(f, r) || ready(improve(f, i), r)),
    );
  });

  it('names every failed check with its reason, and only the failed ones', () => {
    fc.assert(
      fc.property(facts, requirements, (f, r) => {
        for (const c of readinessChecks(f, r)) {
          expect(c.ok ? c.reason : typeof c.reason).toBe(c.ok ? undefined : 'string');
        }
        const names = readinessChecks(f, r).map((c) => c.name);
        expect(new Set(names).size).toBe(names.length);
      }),
    );
  });

  const base: ReadinessFacts = {
    started: true,
    ovn: { synced: false, state: 'holding (nb disconnected, sb synced)' },
    tables: [{ name: 'lr0', following: false, state: 'table not known yet (router lookup)' }],
    sinks: [
      { name: 'kernel', state: 'in-sync' },
      { name: 'zebra', state: 'retrying' },
    ],
    peers: [
      { name: 'tor-a', state: 'Established', shutdown: false },
      { name: 'tor-b', state: 'Active', shutdown: false },
      { name: 'tor-c', state: 'Idle', shutdown: true },
    ],
  };

  it('says which check failed and why', () => {
    const checks = readinessChecks(base, { ovn: true, sinks: 'all', peers: 'all' });
    expect(checks).toEqual([
      { name: 'started', ok: true },
      { name: 'ovn', ok: false, reason: 'holding (nb disconnected, sb synced)' },
      { name: 'ovn-table:lr0', ok: false, reason: 'table not known yet (router lookup)' },
      { name: 'sink:kernel', ok: true },
      { name: 'sink:zebra', ok: false, reason: 'retrying' },
      { name: 'peer:tor-a', ok: true },
      { name: 'peer:tor-b', ok: false, reason: 'Active' },
    ]);
  });

  it('leaves out what is not required; a named peer kept down or a sink not running fails', () => {
    expect(readinessChecks(base, { ovn: false, sinks: [], peers: 'none' })).toEqual([
      { name: 'started', ok: true },
    ]);
    expect(
      readinessChecks(base, { ovn: false, sinks: ['ovn-nb'], peers: ['tor-a', 'tor-c', 'tor-x'] }),
    ).toEqual([
      { name: 'started', ok: true },
      { name: 'sink:ovn-nb', ok: false, reason: 'not running' },
      { name: 'peer:tor-a', ok: true },
      { name: 'peer:tor-c', ok: false, reason: 'shut down' },
      { name: 'peer:tor-x', ok: false, reason: 'not configured' },
    ]);
    expect(readinessChecks({ ...base, peers: [] }, { ovn: false, sinks: [], peers: 'any' })).toEqual([
      { name: 'started', ok: true },
      { name: 'peers', ok: false, reason: 'no peer is enabled' },
    ]);
    expect(
      readinessChecks(
        { ...base, started: false, ovn: null, tables: [] },
        { ovn: true, sinks: [], peers: 'any' },
      ),
    ).toEqual([
      { name: 'started', ok: false, reason: 'starting' },
      { name: 'peers', ok: true },
    ]);
  });
});

describe('livenessChecks', () => {
  it('fails from the bound on, naming the lag and when it was', () => {
    expect(livenessChecks({ worstLagMs: 0, agoMs: 0 }, 5000)).toEqual([{ name: 'loop', ok: true }]);
    expect(livenessChecks({ worstLagMs: 4999, agoMs: 100 }, 5000)).toEqual([{ name: 'loop', ok: true }]);
    expect(livenessChecks({ worstLagMs: 6200, agoMs: 1500 }, 5000)).toEqual([
      { name: 'loop', ok: false, reason: 'event loop stalled 6.2 s (bound 5.0 s), 1.5 s ago' },
    ]);
  });
});

describe('healthAnswer', () => {
  const good = [{ name: 'started', ok: true }];
  const bad = [...good, { name: 'peer:tor-b', ok: false, reason: 'Active' }];
  const text = { verbose: false, json: false };

  it('answers 200 ok, or every line with [+]/[-] when verbose, as Kubernetes does', () => {
    expect(healthAnswer('readyz', good, text)).toEqual({
      status: 200,
      contentType: 'text/plain; charset=utf-8',
      body: 'ok\n',
    });
    expect(healthAnswer('readyz', good, { ...text, verbose: true }).body).toBe(
      '[+]started ok\nreadyz check passed\n',
    );
  });

  it('answers 503 with every line and the failed check’s reason, verbose or not', () => {
    const a = healthAnswer('readyz', bad, text);
    expect(a.status).toBe(503);
    expect(a.body).toBe('[+]started ok\n[-]peer:tor-b failed: Active\nreadyz check failed\n');
  });

  it('answers JSON when asked', () => {
    const a = healthAnswer('healthz', bad, { verbose: false, json: true });
    expect(a).toMatchObject({ status: 503, contentType: 'application/json' });
    expect(JSON.parse(a.body)).toEqual({ status: 'failed', checks: bad });
  });

  it('reads ?verbose, ?format=json and an Accept header', () => {
    expect(healthQuery('', undefined)).toEqual({ verbose: false, json: false });
    expect(healthQuery('?verbose', undefined)).toEqual({ verbose: true, json: false });
    expect(healthQuery('?verbose=1&format=json', undefined)).toEqual({ verbose: true, json: true });
    expect(healthQuery('?verbose=false', 'application/json')).toEqual({ verbose: false, json: true });
  });
});
