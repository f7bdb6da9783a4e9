/**
 * BFD tied to a BGP session, as FRR's `neighbor X bfd`: the speaker against a probe peer on
 * loopback, with the BFD sessions in the hands of the test (a fake BfdSessions fires the
 * state changes a real worker would report). BFD Down closes the session at once and its
 * routes go; graceful restart keeps them unless the peer's C bit says its forwarding failed
 * (RFC 5882 4.3); AdminDown from the peer keeps the session (RFC 5882 3.2); a reload changes
 * the BFD session beside the BGP one.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type {
  BfdHandle,
  BfdListener,
  BfdSessionSpec,
  BfdStatus,
  BfdTimersSpec,
} from '../../src/bfd/index.js';
import type { GracefulRestartState } from '../../src/bgp/session/index.js';
import { Afi } from '../../src/bgp/wire/constants.js';
import { ConfigStore, parseConfig } from '../../src/config/index.js';
import type { FibChange, FibRoute, FibTarget } from '../../src/fib/index.js';
import type { BfdSessions } from '../../src/routing/index.js';
import { Speaker } from '../../src/speaker/index.js';
import { ACCEPT_ALL, Probe, probePeer, speakerSection, tempDir, until, yamlOf } from './support.js';

class MemoryTarget implements FibTarget {
  readonly name = 'kernel';
  readonly routes = new Set<string>();
  readonly withdrawn: string[] = [];
  async apply(changes: readonly FibChange[]): Promise<void> {
    for (const c of changes) {
      if (c.kind === 'add') this.routes.add(c.route.prefix.toString());
      else {
        this.routes.delete(c.prefix.toString());
        this.withdrawn.push(c.prefix.toString());
      }
    }
  }
  async reconcile(all: readonly FibRoute[]): Promise<void> {
    this.routes.clear();
    for (const r of all) this.routes.add(r.prefix.toString());
  }
  async close(): Promise<void> {}
}

const UP: BfdStatus = {
  state: 'Up',
  remoteState: 'Up',
  localDiscr: 1,
  remoteDiscr: 2,
  localDiag: 0,
  remoteDiag: 0,
  multihop: false,
  txIntervalMs: 300,
  detectionTimeMs: 900,
  remoteMinRxMs: 300,
  remoteMinTxMs: 300,
  remoteMultiplier: 3,
  remoteControlPlaneIndependent: false,
  polling: false,
  transitions: 2,
  lastChangeAt: 0,
  lastDownReason: null,
};

/** BFD sessions the test drives: what was opened, updated and closed, and a way to fire changes. */
class FakeBfd implements BfdSessions {
  readonly opened: BfdSessionSpec[] = [];
  readonly updates: BfdTimersSpec[] = [];
  closed = 0;
  #listener: BfdListener | null = null;
  #status: BfdStatus | null = null;

  open(spec: BfdSessionSpec, listener: BfdListener): BfdHandle {
    this.opened.push(spec);
    this.#listener = listener;
    const self = this;
    return {
      get status() {
        return self.#status;
      },
      update: (t) => this.updates.push(t),
      close: () => {
        this.closed++;
      },
    };
  }

  up(): void {
    this.#status = UP;
    this.#listener?.({ from: 'Init', to: 'Up', diag: 0, remoteAdminDown: false, at: 0 }, UP);
  }

  /** Down after Up: a detection (diag 1), or the peer's AdminDown (diag 3). */
  down(how: 'detect' | 'admin-down', over: Partial<BfdStatus> = {}): void {
    const detect = how === 'detect';
    this.#status = {
      ...UP,
      state: 'Down',
      remoteState: detect ? 'Down' : 'AdminDown',
      localDiag: detect ? 1 : 3,
      remoteDiag: detect ? 0 : 7,
      lastDownReason: detect
        ? 'control detection time expired'
        : 'neighbor signaled session down (administratively down)',
      ...over,
    };
    this.#listener?.(
      { from: 'Up', to: 'Down', diag: detect ? 1 : 3, remoteAdminDown: !detect, at: 0 },
      this.#status,
    );
  }
}

const PROBE_GR: GracefulRestartState = {
  restartTime: 30,
  restarting: false,
  forwarding: new Set(['ipv4-unicast']),
};
const P1 = '198.18.10.0/24';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(opts: { gr?: boolean; bfd?: unknown; extra?: Record<string, unknown> } = {}) {
  const t = tempDir();
  cleanups.push(t.cleanup);
  const probe = await Probe.start(
    '127.0.0.2',
    65002,
    '198.18.0.2',
    {},
    {
      gracefulRestart: () => (opts.gr ? PROBE_GR : null),
    },
  );
  cleanups.push(() => probe.close());
  const kernel = new MemoryTarget();
  const bfd = new FakeBfd();
  const speakerDoc = speakerSection(t.dir, opts.gr ? { graceful_restart: { enabled: true } } : {});
  const doc = (peer: Record<string, unknown>) =>
    yamlOf({
      speaker: speakerDoc,
      peers: [probePeer(probe, { import: ['all'], export: ['all'], idle_hold_time: 0, ...peer })],
      policies: { all: ACCEPT_ALL },
      sinks: { kernel: {} },
      bfd_profiles: { slow: { min_tx: 1000, min_rx: 1000 } },
    });
  let text = doc({ bfd: opts.bfd ?? true, ...opts.extra });
  const store = ConfigStore.open('speaker.yaml', { load: (f) => parseConfig(text, { file: f }) });
  const speaker = await Speaker.start(store.config, { sinkTargets: () => kernel, bfd });
  cleanups.push(() => speaker.close());
  return {
    probe,
    kernel,
    bfd,
    speaker,
    async reload(peer: Record<string, unknown>) {
      text = doc(peer);
      await speaker.reload(store.reload());
    },
  };
}

async function established(s: Awaited<ReturnType<typeof setup>>): Promise<void> {
  await until(() => s.probe.established, 'the probe Established');
  s.probe.announce([P1]);
  // Our own graceful restart holds the sinks until every End-of-RIB is in.
  s.probe.peer.sendEndOfRib(Afi.IPV4);
  s.probe.peer.sendEndOfRib(Afi.IPV6);
  await until(() => s.kernel.routes.has(P1), 'the probe’s route in the kernel sink');
}

const view = (speaker: Speaker) => speaker.neighbors('p2')[0]!;

describe('BFD tied to the BGP session', () => {
  it('opens the BFD session with the peer’s configuration, before BGP is up', async () => {
    const s = await setup({ bfd: { min_rx: 100, min_tx: 200, multiplier: 4 } });
    expect(s.bfd.opened).toEqual([
      {
        peer: '127.0.0.2',
        local: '127.0.0.1',
        multihop: false,
        hops: 1,
        minTxMs: 200,
        minRxMs: 100,
        multiplier: 4,
      },
    ]);
  });

  it('is multihop with ebgp_multihop, bounded by its hops (RFC 5883)', async () => {
    const s = await setup({ extra: { ebgp_multihop: 3 } });
    expect(s.bfd.opened[0]).toMatchObject({ multihop: true, hops: 3 });
  });

  it('BFD Down closes the session at once, without a NOTIFICATION, and withdraws its routes', async () => {
    const s = await setup();
    await established(s);
    s.bfd.up();
    const before = s.probe.rec.states.length;
    const t0 = Date.now();
    s.bfd.down('detect');
    const t1 = Date.now();
    // At once: the neighbour left Established before anything else ran.
    expect(view(s.speaker).state).not.toBe('Established');
    // Stamped when this thread closed the session, not when the worker saw BFD go Down (0 here).
    const closed = Date.parse(view(s.speaker).bfd!.lastSessionDrop!.at);
    expect(closed).toBeGreaterThanOrEqual(t0);
    expect(closed).toBeLessThanOrEqual(t1);
    // Read now: the next connection's outcome (the probe refusing it) may replace it later.
    expect(view(s.speaker).lastError).toBe('BFD down: control detection time expired');
    await until(() => s.kernel.withdrawn.includes(P1), 'the route withdrawn');
    // The probe saw the connection close; no NOTIFICATION came to it.
    expect(s.probe.rec.notifications.filter((n) => n.direction === 'received')).toEqual([]);
    await until(() => s.probe.rec.states.length > before, 'the probe to see it');
    expect(s.probe.rec.states[before]).toMatchObject({
      from: 'Established',
      reason: 'connection closed by the peer',
    });
    expect(view(s.speaker).bfd).toMatchObject({
      state: 'Down',
      transitions: 2,
      lastDownReason: 'control detection time expired',
      lastSessionDrop: { reason: 'BFD down: control detection time expired' },
      configured: { minRx: 300, minTx: 300, multiplier: 3 },
    });
    expect(s.speaker.summary().neighbors[0]!.bfd).toEqual({ state: 'Down', transitions: 2 });
    // And BGP tries again: with the path back it is Established again.
    await until(() => s.probe.established, 'the session back');
  });

  it('AdminDown from the peer is no failure: the session stays (RFC 5882 3.2)', async () => {
    const s = await setup();
    await established(s);
    s.bfd.up();
    s.bfd.down('admin-down');
    await new Promise((r) => setTimeout(r, 200));
    expect(view(s.speaker).state).toBe('Established');
    expect(s.kernel.withdrawn).toEqual([]);
  });

  it('with graceful restart the routes stay, stale (RFC 4724 4.2)', async () => {
    const s = await setup({ gr: true });
    await established(s);
    s.bfd.up();
    s.bfd.down('detect');
    expect(view(s.speaker).state).not.toBe('Established');
    await until(() => view(s.speaker).gracefulRestart?.stale !== undefined, 'stale routes reported');
    expect(s.kernel.withdrawn).toEqual([]);
    expect(s.speaker.rib({ prefix: P1 })[0]!.paths[0]).toMatchObject({ stale: true });
  });

  it('but not when the peer’s BFD is control-plane independent: its forwarding failed (RFC 5882 4.3)', async () => {
    const s = await setup({ gr: true });
    await established(s);
    s.bfd.up();
    s.bfd.down('detect', { remoteControlPlaneIndependent: true });
    await until(() => s.kernel.withdrawn.includes(P1), 'the route withdrawn');
  });

  it('a reload changes timers live, and removing bfd closes the BFD session only', async () => {
    const s = await setup();
    await established(s);
    await s.reload({ bfd: 'slow' });
    expect(s.bfd.updates.at(-1)).toMatchObject({ minTxMs: 1000, minRxMs: 1000, multiplier: 3 });
    expect(s.bfd.opened).toHaveLength(1);
    await s.reload({ bfd: false });
    expect(s.bfd.closed).toBe(1);
    expect(view(s.speaker).state).toBe('Established');
    await s.reload({ bfd: true });
    expect(s.bfd.opened).toHaveLength(2);
  });
});
