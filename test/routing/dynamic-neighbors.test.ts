import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { StateChange } from '../../src/bgp/session/index.js';
import { CeaseSubcode } from '../../src/bgp/wire/constants.js';
import type { Logger } from '../../src/components/index.js';
import { type Config, type ListenRangeConfig, type PeerConfig, parseConfig } from '../../src/config/index.js';
import type { PeerPolicies } from '../../src/policy/index.js';
import { admission, DynamicNeighbors, type Neighbor, rangeOf } from '../../src/routing/index.js';

// The rule of dynamic neighbours (which range, which template, the limit, configured peers
// first) as a pure function, and DynamicNeighbors' bookkeeping around it with fakes for the
// neighbours: counts per range, refusals logged once per address, forgetting on Idle, and what
// a reload does to the live ones.

const POLICIES = { all: { statements: [{ action: 'accept' }] } };

function config(extra: Record<string, unknown> = {}): Config {
  return parseConfig(
    stringify({
      speaker: { name: 's', local_as: 65000, router_id: '198.18.0.1' },
      policies: POLICIES,
      peer_templates: {
        leaves: { remote_as: 'external', import: ['all'], export: ['all'] },
        inner: { remote_as: 'internal' },
      },
      listen_ranges: [
        { prefix: '198.18.0.0/16', template: 'leaves', limit: 2 },
        { prefix: '198.18.7.0/24', template: 'inner', limit: 1 },
        { prefix: '2001:db8::/32', template: 'leaves' },
      ],
      ...extra,
    }),
  ).config;
}

describe('rangeOf and admission', () => {
  const c = config();

  it('the longest range holding the address, as a route lookup; none outside', () => {
    expect(rangeOf(c.listenRanges, '198.18.7.9')?.text).toBe('198.18.7.0/24');
    expect(rangeOf(c.listenRanges, '198.18.8.9')?.text).toBe('198.18.0.0/16');
    expect(rangeOf(c.listenRanges, '2001:db8:5::1')?.text).toBe('2001:db8::/32');
    expect(rangeOf(c.listenRanges, '::ffff:198.18.8.9')?.text).toBe('198.18.0.0/16');
    expect(rangeOf(c.listenRanges, '198.19.0.1')).toBeUndefined();
    expect(rangeOf(c.listenRanges, '2001:db9::1')).toBeUndefined();
    expect(rangeOf(c.listenRanges, 'not an address')).toBeUndefined();
  });

  it('property: rangeOf is the longest prefix whose leading bits equal the address’s', () => {
    const bits = (a: number[]) => a.map((x) => x.toString(2).padStart(8, '0')).join('');
    const octets = fc.tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }));
    fc.assert(
      fc.property(
        fc.array(fc.tuple(octets, fc.integer({ min: 8, max: 24 })), { maxLength: 6 }),
        octets,
        (raw, [c3, c4]) => {
          const ranges: ListenRangeConfig[] = [];
          for (const [[a, b], len] of raw) {
            const word = ((198 << 24) | (18 << 16) | (a << 8) | b) >>> 0;
            const net = len === 0 ? 0 : (word & (0xffffffff << (32 - len))) >>> 0;
            const addr = [net >>> 24, (net >>> 16) & 255, (net >>> 8) & 255, net & 255].join('.');
            const text = `${addr}/${len}`;
            if (ranges.some((r) => r.text === text)) continue;
            ranges.push({ prefix: { afi: 1, addr, len }, text, template: 'leaves', limit: 1 });
          }
          const address = `198.18.${c3}.${c4}`;
          const model = ranges
            .filter(
              (r) =>
                bits(r.prefix.addr.split('.').map(Number)).slice(0, r.prefix.len) ===
                bits([198, 18, c3, c4]).slice(0, r.prefix.len),
            )
            .sort((x, y) => y.prefix.len - x.prefix.len)[0];
          expect(rangeOf(ranges, address)?.prefix.len).toBe(model?.prefix.len);
          if (model) expect(rangeOf(ranges, address)?.text).toBe(model.text);
        },
      ),
    );
  });

  it('admits with the range’s template, refuses at the limit, refuses outside, and a configured peer wins', () => {
    const none = () => 0;
    const a = admission(c, '198.18.7.9', none);
    expect(a.kind).toBe('admit');
    if (a.kind === 'admit') {
      expect(a.config).toMatchObject({
        name: 'dyn-198.18.7.9',
        remoteAs: 'internal',
        type: 'ibgp',
        passive: true,
      });
      expect(a.range.text).toBe('198.18.7.0/24');
    }
    expect(admission(c, '198.18.7.9', (r) => (r === '198.18.7.0/24' ? 1 : 0))).toMatchObject({
      kind: 'limit',
      range: { text: '198.18.7.0/24' },
    });
    // The limit counts per range: the /16 still has room.
    expect(admission(c, '198.18.8.1', (r) => (r === '198.18.7.0/24' ? 1 : 0)).kind).toBe('admit');
    expect(admission(c, '203.0.113.1', none).kind).toBe('no-range');
    const withPeer = config({
      peers: [{ name: 'p', peer_ip: '198.18.8.1', remote_as: 65001, import: ['all'], export: ['all'] }],
    });
    expect(admission(withPeer, '198.18.8.1', none).kind).toBe('configured');
  });
});

/** A neighbour as DynamicNeighbors sees it: name, config, its peer's state events, the live setters. */
class FakeNeighbor {
  readonly name: string;
  config: PeerConfig;
  state = 'Active';
  readonly calls: string[] = [];
  readonly peer: {
    on(event: 'state', listener: (c: StateChange) => void): () => void;
    readonly state: string;
  };
  readonly #listeners = new Set<(c: StateChange) => void>();

  constructor(config: PeerConfig) {
    this.name = config.name;
    this.config = config;
    const me = this;
    this.peer = {
      on: (_event, listener) => {
        me.#listeners.add(listener);
        return () => me.#listeners.delete(listener);
      },
      get state() {
        return me.state;
      },
    };
  }

  go(to: string): void {
    const from = this.state;
    this.state = to;
    for (const l of this.#listeners) l({ from, to, reason: 'test' } as StateChange);
  }

  setConfig(c: PeerConfig): void {
    this.config = c;
    this.calls.push('setConfig');
  }

  setPolicies(_p: PeerPolicies, softIn: boolean, softOut: boolean): void {
    this.calls.push(`setPolicies ${softIn} ${softOut}`);
  }
}

function harness(c: Config) {
  const deferred: (() => void)[] = [];
  const created: FakeNeighbor[] = [];
  const forgotten: [string, number | undefined][] = [];
  const refused: string[] = [];
  const warnings: string[] = [];
  const log: Logger = {
    debug: () => {},
    info: () => {},
    warn: (o: unknown) => warnings.push((o as { remote: string }).remote),
    error: () => {},
  };
  const dyn = new DynamicNeighbors(c, {
    log,
    clock: {
      now: () => 0,
      setTimeout: () => 0,
      clearTimeout: () => {},
      defer: (fn) => deferred.push(fn),
    },
    create: (config) => {
      const n = new FakeNeighbor(config);
      created.push(n);
      return n as unknown as Neighbor;
    },
    forget: async (name, subcode) => {
      forgotten.push([name, subcode]);
    },
    policies: () => ({ warnings: [] }) as unknown as PeerPolicies,
    onRefused: (range, address) => refused.push(`${range} ${address}`),
  });
  const runDeferred = () => {
    for (const fn of deferred.splice(0)) fn();
  };
  return { dyn, created, forgotten, refused, warnings, runDeferred };
}

describe('DynamicNeighbors', () => {
  it('counts per range; refusals counted each time and logged once per address', () => {
    const h = harness(config());
    expect(h.dyn.admit('198.18.7.1')).toBeDefined();
    expect(h.dyn.count('198.18.7.0/24')).toBe(1);
    for (let i = 0; i < 3; i++) expect(h.dyn.admit('198.18.7.2')).toBeUndefined();
    expect(h.refused).toEqual(Array(3).fill('198.18.7.0/24 198.18.7.2'));
    expect(h.warnings).toEqual(['198.18.7.2']);
    expect(h.dyn.admit('203.0.113.1')).toBeUndefined(); // outside: not a limit refusal
    expect(h.refused).toHaveLength(3);
    expect(h.created.map((n) => n.name)).toEqual(['dyn-198.18.7.1']);
  });

  it('a neighbour gone Idle is forgotten a turn later, making room; one started again meanwhile is kept', async () => {
    const h = harness(config());
    h.dyn.admit('198.18.7.1');
    const [n] = h.created;
    n!.go('Idle');
    expect(h.forgotten).toEqual([]); // never from inside its own state event
    h.runDeferred();
    await Promise.resolve();
    expect(h.forgotten).toEqual([['dyn-198.18.7.1', undefined]]);
    expect(h.dyn.count('198.18.7.0/24')).toBe(0);
    expect(h.dyn.admit('198.18.7.2')).toBeDefined();
    const m = h.created[1]!;
    m.go('Idle');
    m.go('Active'); // an operator's reset: stop then start
    h.runDeferred();
    expect(h.dyn.has('dyn-198.18.7.2')).toBe(true);
  });

  it('reload: range gone and address configured de-configure; a reset change resets; a policy change is soft out', async () => {
    const h = harness(config());
    h.dyn.admit('198.18.7.1'); // inner
    h.dyn.admit('198.18.8.1'); // leaves
    h.dyn.admit('198.18.9.1'); // leaves
    h.dyn.admit('2001:db8::5'); // leaves, v6
    const next = config({
      peer_templates: {
        leaves: { remote_as: 'external', import: ['all'], export: [] },
        inner: { remote_as: 'internal' },
      },
      listen_ranges: [
        { prefix: '198.18.0.0/16', template: 'leaves', limit: 2 },
        { prefix: '2001:db8::/32', template: 'inner' },
      ],
      peers: [{ name: 'p', peer_ip: '198.18.9.1', remote_as: 65001, import: ['all'], export: ['all'] }],
    });
    await h.dyn.reconfigure(next, new Set());
    // 198.18.7.1: its /24 is gone, but the /16 holds it now with another template: external
    // instead of internal is a reset. 198.18.9.1 is configured now. 2001:db8::5: template inner.
    expect(h.forgotten).toEqual([
      ['dyn-198.18.7.1', CeaseSubcode.OTHER_CONFIGURATION_CHANGE],
      ['dyn-198.18.9.1', CeaseSubcode.PEER_DE_CONFIGURED],
      ['dyn-2001:db8::5', CeaseSubcode.OTHER_CONFIGURATION_CHANGE],
    ]);
    const kept = h.created[1]!;
    expect(kept.calls).toEqual(['setConfig', 'setPolicies false true']);
    expect(kept.config.export).toEqual([]);
    expect(h.dyn.has('dyn-198.18.8.1')).toBe(true);

    await h.dyn.reconfigure(config({ listen_ranges: [] }), new Set());
    expect(h.forgotten.at(-1)).toEqual(['dyn-198.18.8.1', CeaseSubcode.PEER_DE_CONFIGURED]);
  });

  it('a policy whose definition changed refreshes the live neighbours that use it', async () => {
    const h = harness(config());
    h.dyn.admit('198.18.8.1');
    await h.dyn.reconfigure(config(), new Set(['all']));
    expect(h.created[0]!.calls).toEqual(['setConfig', 'setPolicies true true']);
  });

  it('property: whatever connects and goes down, no range exceeds its limit, nothing outside or configured is admitted', async () => {
    const c = config({
      peers: [{ name: 'p', peer_ip: '198.18.8.1', remote_as: 65001, import: ['all'], export: ['all'] }],
    });
    const pool = [
      '198.18.7.1',
      '198.18.7.2',
      '198.18.8.1',
      '198.18.8.2',
      '198.18.8.3',
      '198.18.9.4',
      '203.0.113.1',
      '2001:db8::1',
      '2001:db8::2',
    ];
    const op = fc.oneof(
      fc.record({ kind: fc.constant('connect' as const), at: fc.integer({ min: 0, max: pool.length - 1 }) }),
      fc.record({ kind: fc.constant('down' as const), at: fc.integer({ min: 0, max: pool.length - 1 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 40 }), async (ops) => {
        const h = harness(c);
        const live = new Map<string, FakeNeighbor>();
        for (const o of ops) {
          const address = pool[o.at]!;
          if (o.kind === 'connect') {
            if (live.has(address)) continue; // the session layer hands it to the live peer
            const range = rangeOf(c.listenRanges, address);
            const before = range ? h.dyn.count(range.text) : 0;
            const refusedBefore = h.refused.length;
            const peer = h.dyn.admit(address);
            if (peer) {
              expect(range).toBeDefined();
              expect(address).not.toBe('198.18.8.1');
              expect(before).toBeLessThan(range!.limit);
              live.set(address, h.created.at(-1)!);
            } else if (range && address !== '198.18.8.1') {
              expect(before).toBe(range.limit); // refused only at the limit, and counted
              expect(h.refused).toHaveLength(refusedBefore + 1);
            } else {
              expect(h.refused).toHaveLength(refusedBefore);
            }
          } else {
            const n = live.get(address);
            if (!n) continue;
            n.go('Idle');
            h.runDeferred();
            live.delete(address);
          }
          for (const r of c.listenRanges) expect(h.dyn.count(r.text)).toBeLessThanOrEqual(r.limit);
          expect([...live.keys()].every((a) => h.dyn.has(`dyn-${a}`))).toBe(true);
        }
      }),
    );
  });

  it('after close nothing is admitted', () => {
    const h = harness(config());
    h.dyn.close();
    expect(h.dyn.admit('198.18.8.1')).toBeUndefined();
  });
});
