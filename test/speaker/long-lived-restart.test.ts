import { afterEach, describe, expect, it } from 'vitest';
import type { GracefulRestartState } from '../../src/bgp/session/index.js';
import { Afi } from '../../src/bgp/wire/constants.js';
import type { FibChange, FibRoute, FibTarget } from '../../src/fib/index.js';
import { WellKnownCommunity } from '../../src/rib/index.js';
import type { Speaker } from '../../src/speaker/index.js';
import { ACCEPT_ALL, Probe, probePeer, speakerSection, startSpeaker, tempDir, until } from './support.js';

// RFC 9494 long-lived graceful restart through the whole speaker: a peer away past its
// Restart Time stays in the forwarding plane, its routes tagged LLGR_STALE, sent on only to
// peers that agreed to long-lived graceful restart.

class MemoryTarget implements FibTarget {
  readonly name = 'kernel';
  readonly routes = new Set<string>();
  async apply(changes: readonly FibChange[]): Promise<void> {
    for (const c of changes) {
      if (c.kind === 'add') this.routes.add(c.route.prefix.toString());
      else this.routes.delete(c.prefix.toString());
    }
  }
  async reconcile(all: readonly FibRoute[]): Promise<void> {
    this.routes.clear();
    for (const r of all) this.routes.add(r.prefix.toString());
  }
  async close(): Promise<void> {}
}

const P1 = '198.18.10.0/24';
/** The restarting probe's Restart Time is one second: the long-lived phase comes quickly. */
const SHORT_GR: GracefulRestartState = {
  restartTime: 1,
  restarting: false,
  forwarding: new Set(['ipv4-unicast']),
};
const LONG_LIVED = 600;

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('long-lived graceful restart (RFC 9494) in the speaker', () => {
  it('keeps a peer’s routes past its Restart Time as LLGR_STALE, sent only to LLGR peers', async () => {
    const t = tempDir();
    cleanups.push(t.cleanup);
    const grComponents = { gracefulRestart: () => SHORT_GR };
    const away = await Probe.start(
      '127.0.0.2',
      65002,
      '198.18.0.2',
      { longLivedStaleTime: LONG_LIVED },
      grComponents,
    );
    const llgrPeer = await Probe.start(
      '127.0.0.3',
      65003,
      '198.18.0.3',
      { longLivedStaleTime: LONG_LIVED },
      grComponents,
    );
    const plainPeer = await Probe.start('127.0.0.4', 65004, '198.18.0.4', {}, grComponents);
    for (const p of [away, llgrPeer, plainPeer]) cleanups.push(() => p.close());
    const kernel = new MemoryTarget();
    const peerOf = (p: Probe, llgr: boolean) =>
      probePeer(p, { import: ['all'], export: ['all'], ...(llgr && { long_lived_stale_time: LONG_LIVED }) });
    const speaker: Speaker = await startSpeaker(
      {
        speaker: speakerSection(t.dir, { graceful_restart: { enabled: true, restart_time: 30 } }),
        peers: [peerOf(away, true), peerOf(llgrPeer, true), peerOf(plainPeer, false)],
        policies: { all: ACCEPT_ALL },
        sinks: { kernel: {} },
      },
      { sinkTargets: () => kernel },
    );
    cleanups.push(() => speaker.close());
    await until(() => [away, llgrPeer, plainPeer].every((p) => p.established), 'every probe Established');
    // Our capability: the F bits as graceful restart's (clear: we have just started, nothing kept).
    expect(away.rec.established[0]!.negotiated.longLivedGracefulRestart).toEqual({
      families: [
        { afi: 1, safi: 1, forwardingState: false, staleTime: LONG_LIVED },
        { afi: 2, safi: 1, forwardingState: false, staleTime: LONG_LIVED },
      ],
    });
    expect(plainPeer.rec.established[0]!.negotiated.longLivedGracefulRestart).toBeNull();
    away.announce([P1]);
    for (const p of [away, llgrPeer, plainPeer]) {
      p.peer.sendEndOfRib(Afi.IPV4);
      p.peer.sendEndOfRib(Afi.IPV6);
    }
    await until(
      () => kernel.routes.has(P1) && llgrPeer.table().has(P1) && plainPeer.table().has(P1),
      'P1 installed and passed on',
    );
    expect(speaker.neighbors('p2')[0]!.capabilities).toContain('long-lived-graceful-restart');
    expect(speaker.neighbors('p4')[0]!.capabilities).not.toContain('long-lived-graceful-restart');

    away.peer.stopForRestart();
    // Past its one second of Restart Time: long-lived.
    await until(
      () => speaker.neighbors('p2')[0]!.gracefulRestart?.stale?.phase === 'long-lived',
      'the long-lived phase',
    );
    await until(() => !plainPeer.table().has(P1), 'P1 withdrawn from the peer without LLGR');
    await until(
      () => llgrPeer.table().get(P1)?.communities?.includes(WellKnownCommunity.LLGR_STALE) === true,
      'P1 sent again with LLGR_STALE to the LLGR peer',
    );
    expect(kernel.routes.has(P1)).toBe(true);
    expect(speaker.rib({ prefix: P1 })[0]!.paths[0]).toMatchObject({ stale: true, longLivedStale: true });
    expect(speaker.rib({ prefix: P1 })[0]!.paths[0]!.communities).toContain('LLGR_STALE');

    // Back: announced again and End-of-RIB, P1 is fresh and goes to everyone untagged.
    away.peer.start();
    await until(() => away.rec.established.length === 2, 'the probe back');
    away.announce([P1]);
    away.peer.sendEndOfRib(Afi.IPV4);
    away.peer.sendEndOfRib(Afi.IPV6);
    await until(() => plainPeer.table().has(P1), 'P1 back at the peer without LLGR');
    await until(() => {
      const back = llgrPeer.table().get(P1);
      return back !== undefined && !(back.communities ?? []).includes(WellKnownCommunity.LLGR_STALE);
    }, 'P1 untagged at the LLGR peer');
    expect(speaker.neighbors('p2')[0]!.gracefulRestart?.stale).toBeUndefined();
  }, 30_000);
});
