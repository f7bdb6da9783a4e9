import { afterEach, describe, expect, it } from 'vitest';
import type { GracefulRestartState } from '../../src/bgp/session/index.js';
import { Afi } from '../../src/bgp/wire/constants.js';
import type { FibChange, FibRoute, FibTarget } from '../../src/fib/index.js';
import type { Speaker } from '../../src/speaker/index.js';
import { ACCEPT_ALL, Probe, probePeer, speakerSection, startSpeaker, tempDir, until } from './support.js';

// Our speaker as the receiving speaker of RFC 4724 (the helper): a probe peer on loopback
// restarts gracefully; its routes must stay in the forwarding plane the whole time.

/** A forwarding plane in memory that also remembers every withdrawal it was given. */
class MemoryTarget implements FibTarget {
  readonly name = 'kernel';
  readonly routes = new Map<string, string[]>();
  readonly withdrawn: string[] = [];
  async apply(changes: readonly FibChange[]): Promise<void> {
    for (const c of changes) {
      if (c.kind === 'add')
        this.routes.set(
          c.route.prefix.toString(),
          c.route.nextHops.map((h) => h.address),
        );
      else {
        this.routes.delete(c.prefix.toString());
        this.withdrawn.push(c.prefix.toString());
      }
    }
  }
  async reconcile(all: readonly FibRoute[]): Promise<void> {
    this.routes.clear();
    for (const r of all)
      this.routes.set(
        r.prefix.toString(),
        r.nextHops.map((h) => h.address),
      );
  }
  async close(): Promise<void> {}
}

const P1 = '198.18.10.0/24';
const P2 = '198.18.11.0/24';
const P6 = '2001:db8:10::/48';
/** The probe keeps forwarding IPv4 across its restart, not IPv6. */
const PROBE_GR: GracefulRestartState = {
  restartTime: 30,
  restarting: false,
  forwarding: new Set(['ipv4-unicast']),
};

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(opts: { speakerGr: boolean; probeGr: GracefulRestartState | null }) {
  const t = tempDir();
  cleanups.push(t.cleanup);
  let probeState = opts.probeGr;
  const probe = await Probe.start(
    '127.0.0.2',
    65002,
    '198.18.0.2',
    {},
    { gracefulRestart: () => probeState },
  );
  cleanups.push(() => probe.close());
  const kernel = new MemoryTarget();
  const speaker: Speaker = await startSpeaker(
    {
      speaker: speakerSection(t.dir, {
        graceful_restart: { enabled: opts.speakerGr, restart_time: 90, stale_routes_time: 60 },
      }),
      peers: [probePeer(probe, { import: ['all'], export: ['all'] })],
      policies: { all: ACCEPT_ALL },
      sinks: { kernel: {} },
    },
    { sinkTargets: () => kernel },
  );
  cleanups.push(() => speaker.close());
  await until(() => probe.established, 'the probe Established');
  probe.announce([P1, P2]);
  probe.announce([P6]);
  // Our own start defers the sinks until the peers' End-of-RIBs (we restart gracefully too).
  probe.peer.sendEndOfRib(Afi.IPV4);
  probe.peer.sendEndOfRib(Afi.IPV6);
  await until(() => kernel.routes.size === 3, 'the probe’s routes in the kernel sink');
  return {
    probe,
    kernel,
    speaker,
    restartProbe: (state: GracefulRestartState | null) => {
      probeState = state;
    },
  };
}

const neighbor = (speaker: Speaker) => speaker.neighbors('p2')[0]!;

describe('our speaker as graceful restart helper', () => {
  it('keeps a restarting peer’s routes installed, stale, and sweeps what it did not announce again', async () => {
    const { probe, kernel, speaker, restartProbe } = await setup({ speakerGr: true, probeGr: PROBE_GR });
    expect(neighbor(speaker).gracefulRestart).toMatchObject({
      peerRestartTime: 30,
      notification: true,
      forwarding: ['ipv4-unicast'],
    });
    probe.peer.stopForRestart();
    await until(() => neighbor(speaker).state !== 'Established', 'the speaker to see the probe gone');
    // Both families were in the probe's capability: everything stays, stale.
    await until(() => neighbor(speaker).gracefulRestart?.stale !== undefined, 'stale routes reported');
    expect(neighbor(speaker).gracefulRestart?.stale).toMatchObject({
      phase: 'restarting',
      'ipv4-unicast': 2,
      'ipv6-unicast': 1,
    });
    expect(kernel.withdrawn).toEqual([]);
    expect(kernel.routes.size).toBe(3);
    expect(speaker.rib({ prefix: P1 })[0]!.paths[0]).toMatchObject({ from: 'p2', stale: true, best: true });

    // Back, now with R set: IPv6 has no F bit, so its stale route goes at once.
    restartProbe({ ...PROBE_GR, restarting: true });
    probe.peer.start();
    await until(() => probe.established, 'the probe back');
    await until(() => kernel.withdrawn.includes(P6), 'the IPv6 route without forwarding state withdrawn');
    expect(neighbor(speaker).gracefulRestart?.stale).toMatchObject({
      phase: 'waiting-end-of-rib',
      'ipv4-unicast': 2,
      'ipv6-unicast': 0,
    });
    probe.announce([P1]);
    probe.peer.sendEndOfRib(Afi.IPV4);
    await until(() => kernel.withdrawn.includes(P2), 'P2, not announced again, swept at End-of-RIB');
    expect([...kernel.routes.keys()]).toEqual([P1]);
    // P1 never left the forwarding plane.
    expect(kernel.withdrawn).not.toContain(P1);
    expect(speaker.rib({ prefix: P1 })[0]!.paths[0]!.stale).toBeUndefined();
    await until(() => neighbor(speaker).gracefulRestart?.stale === undefined, 'no stale routes left');
  }, 30_000);

  it('a Hard Reset (the peer shut down for good) withdraws at once', async () => {
    const { probe, kernel } = await setup({ speakerGr: true, probeGr: PROBE_GR });
    probe.peer.shutdown('decommissioned');
    await until(() => kernel.routes.size === 0, 'every route withdrawn');
    expect(kernel.withdrawn.sort()).toEqual([P1, P2, P6].sort());
  });

  it('without the capability on our side a lost session withdraws at once, as before', async () => {
    const { probe, kernel, speaker } = await setup({ speakerGr: false, probeGr: PROBE_GR });
    expect(neighbor(speaker).gracefulRestart).toBeUndefined();
    probe.peer.stopForRestart();
    await until(() => kernel.routes.size === 0, 'every route withdrawn');
  });

  it('without the capability on the peer’s side, the same', async () => {
    const { probe, kernel } = await setup({ speakerGr: true, probeGr: null });
    probe.peer.stopForRestart();
    await until(() => kernel.routes.size === 0, 'every route withdrawn');
  });
});
