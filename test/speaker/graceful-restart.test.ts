import { EventEmitter } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { GracefulRestartState } from '../../src/bgp/session/index.js';
import { Afi, CeaseSubcode } from '../../src/bgp/wire/constants.js';
import type { AfiCode } from '../../src/bgp/wire/index.js';
import type { FibChange, FibRoute, FibTarget } from '../../src/fib/index.js';
import { parsePrefix } from '../../src/rib/index.js';
import { RunStatus, runSpeaker, type Speaker } from '../../src/speaker/index.js';
import { FakeScheduler } from '../bgp/session/support.js';
import {
  ACCEPT_ALL,
  Probe,
  probePeer,
  speakerSection,
  startSpeaker,
  tempDir,
  until,
  yamlOf,
} from './support.js';

// Our speaker as the restarting speaker of RFC 4724 section 4.1: it comes up with a kernel that
// still holds the last run's routes, advertises R and F, defers its decision, its sinks and
// what it sends until the peers' End-of-RIBs, then reconciles and sends its own.

/** A kernel in memory that starts with routes a previous run left. */
class KeptKernel implements FibTarget {
  readonly name = 'kernel';
  readonly routes: Map<string, string[]>;
  reconciles = 0;
  readonly applied: string[] = [];
  constructor(kept: Record<string, string[]>) {
    this.routes = new Map(Object.entries(kept));
  }
  async held(): Promise<AfiCode[]> {
    const families = new Set<AfiCode>();
    for (const p of this.routes.keys()) families.add(parsePrefix(p).afi);
    return [...families];
  }
  async apply(changes: readonly FibChange[]): Promise<void> {
    for (const c of changes) {
      if (c.kind === 'add') {
        this.routes.set(
          c.route.prefix.toString(),
          c.route.nextHops.map((h) => h.address),
        );
        this.applied.push(`+${c.route.prefix}`);
      } else {
        this.routes.delete(c.prefix.toString());
        this.applied.push(`-${c.prefix}`);
      }
    }
  }
  async reconcile(all: readonly FibRoute[]): Promise<void> {
    this.reconciles++;
    this.routes.clear();
    for (const r of all)
      this.routes.set(
        r.prefix.toString(),
        r.nextHops.map((h) => h.address),
      );
  }
  async close(): Promise<void> {}
}

const LEARNED = '198.18.10.0/24';
const GONE = '198.18.11.0/24';
const OURS = '198.18.200.0/24';
const PROBE_GR: GracefulRestartState = { restartTime: 30, restarting: false, forwarding: new Set() };

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function restartedSpeaker(opts: { restartTime?: number; clock?: FakeScheduler } = {}) {
  const t = tempDir();
  cleanups.push(t.cleanup);
  const probe = await Probe.start('127.0.0.2', 65002, '198.18.0.2', {}, { gracefulRestart: () => PROBE_GR });
  cleanups.push(() => probe.close());
  // The last run installed LEARNED and GONE (IPv4 only) and kept them.
  const kernel = new KeptKernel({ [LEARNED]: ['127.0.0.2'], [GONE]: ['127.0.0.2'] });
  const speaker: Speaker = await startSpeaker(
    {
      speaker: speakerSection(t.dir, {
        graceful_restart: { enabled: true, restart_time: opts.restartTime ?? 60 },
      }),
      peers: [probePeer(probe, { import: ['all'], export: ['all'] })],
      routes: [{ prefix: OURS, next_hop: '127.0.0.1' }],
      policies: { all: ACCEPT_ALL },
      sinks: { kernel: { on_stop: 'keep' } },
    },
    { sinkTargets: () => kernel, ...(opts.clock && { clock: opts.clock }) },
  );
  cleanups.push(() => speaker.close());
  await until(() => probe.established, 'the probe Established');
  return { probe, kernel, speaker };
}

describe('our speaker restarting gracefully', () => {
  it('advertises R and F for what the kernel kept, defers everything until End-of-RIB, then reconciles', async () => {
    const { probe, kernel } = await restartedSpeaker();
    const ours = probe.rec.established[0]!.negotiated.gracefulRestart;
    expect(ours).toMatchObject({
      restartState: true,
      restartTime: 60,
      notificationExchanged: true,
      families: [
        { afi: 1, safi: 1, forwardingState: true },
        { afi: 2, safi: 1, forwardingState: false },
      ],
    });
    probe.announce([LEARNED]);
    // Deferred: the kept routes stay untouched, and we send nothing, not even our own route.
    await new Promise((r) => setTimeout(r, 200));
    expect(kernel.reconciles).toBe(0);
    expect([...kernel.routes.keys()].sort()).toEqual([LEARNED, GONE]);
    expect(probe.rec.updates).toEqual([]);

    probe.peer.sendEndOfRib(Afi.IPV4);
    probe.peer.sendEndOfRib(Afi.IPV6);
    await until(() => kernel.reconciles === 1, 'the kernel reconciled once the End-of-RIBs are in');
    // LEARNED was kept and is still best (same next hop); GONE was not announced again; our
    // static route is a best path like any other.
    expect(Object.fromEntries(kernel.routes)).toEqual({ [LEARNED]: ['127.0.0.2'], [OURS]: ['127.0.0.1'] });
    await until(() => probe.rec.endOfRib.length === 2, 'our End-of-RIBs at the probe');
    expect(probe.table().has(OURS)).toBe(true);
    // Our route came before our End-of-RIB.
    expect(probe.rec.endOfRibAt[0]).toBeGreaterThan(0);

    // Done: a later session's OPEN has no R bit, and F for every family the kernel sink forwards.
    probe.peer.reset();
    await until(() => probe.rec.established.length === 2, 'the probe back');
    expect(probe.rec.established[1]!.negotiated.gracefulRestart).toMatchObject({
      restartState: false,
      families: [
        { afi: 1, safi: 1, forwardingState: true },
        { afi: 2, safi: 1, forwardingState: true },
      ],
    });
  }, 30_000);

  it('a peer that never sends End-of-RIB holds things only until the deferral timer', async () => {
    const clock = new FakeScheduler();
    const { probe, kernel } = await restartedSpeaker({ restartTime: 5, clock });
    probe.announce([LEARNED]);
    await new Promise((r) => setTimeout(r, 100));
    expect(kernel.reconciles).toBe(0);
    clock.advance(5000);
    await until(() => kernel.reconciles === 1, 'the kernel reconciled after the timer');
    await until(() => probe.rec.endOfRib.length === 2, 'our End-of-RIBs at the probe');
    expect([...kernel.routes.keys()].sort()).toEqual([LEARNED, OURS]);
  }, 30_000);
});

describe('run: SIGTERM stops for a restart, SIGINT for good', () => {
  async function running() {
    const t = tempDir();
    cleanups.push(t.cleanup);
    const probe = await Probe.start(
      '127.0.0.2',
      65002,
      '198.18.0.2',
      {},
      { gracefulRestart: () => PROBE_GR },
    );
    cleanups.push(() => probe.close());
    const file = join(t.dir, 'speaker.yaml');
    writeFileSync(
      file,
      yamlOf({
        speaker: speakerSection(t.dir, { graceful_restart: true }),
        peers: [probePeer(probe, { import: ['all'], export: ['all'] })],
        routes: [{ prefix: OURS, next_hop: '127.0.0.1' }],
        policies: { all: ACCEPT_ALL },
      }),
    );
    const signals = new EventEmitter();
    let started = false;
    const exit = runSpeaker(file, {
      signals,
      logDestination: { write: () => {} },
      onStarted: () => {
        started = true;
      },
    });
    await until(() => started && probe.established, 'the speaker up and peering');
    // No peer but the probe: the deferral ends with its End-of-RIBs.
    probe.peer.sendEndOfRib(Afi.IPV4);
    probe.peer.sendEndOfRib(Afi.IPV6);
    await until(() => probe.table().has(OURS), 'our route at the probe');
    return { probe, signals, exit };
  }

  it('SIGTERM: the connection just closes, no NOTIFICATION, so the probe may keep our routes', async () => {
    const { probe, signals, exit } = await running();
    const ends: { graceful: boolean }[] = [];
    probe.peer.on('down', (_why, end) => ends.push(end));
    signals.emit('SIGTERM');
    expect(await exit).toBe(RunStatus.OK);
    await until(() => ends.length === 1, 'the probe to see the session end');
    expect(probe.rec.notifications).toEqual([]);
    expect(ends[0]).toMatchObject({ graceful: true, notification: null });
  }, 30_000);

  it('SIGINT: Cease as Hard Reset (RFC 8538), so the probe withdraws our routes at once', async () => {
    const { probe, signals, exit } = await running();
    signals.emit('SIGINT');
    expect(await exit).toBe(RunStatus.OK);
    await until(() => probe.rec.notifications.length === 1, 'the NOTIFICATION at the probe');
    expect(probe.rec.notifications[0]).toMatchObject({ code: 6, subcode: CeaseSubcode.HARD_RESET });
    expect(probe.rec.notifications[0]!.text).toMatch(
      /HARD_RESET \(6\/9\) for CEASE\/ADMINISTRATIVE_SHUTDOWN/,
    );
  }, 30_000);
});
