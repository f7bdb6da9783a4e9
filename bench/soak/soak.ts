/**
 * The soak: a running speaker under steady churn for a fixed time, then checked exactly.
 *
 *   lab speaker ns ── veth ── GoBGP (AS 65002): a stable table, and a pool of host routes it
 *   announces and withdraws at a fixed rate; the speaker installs what it learns in kernel
 *   table 100 (the kernel sink) and sends its OVN routes to GoBGP.
 *   OVN (NB + SB ovsdb-server, ovn-northd, the sample topology) where floating IPs are added
 *   and deleted at a fixed rate.
 *
 * Sampled every few seconds: the speaker's RSS. On the wire (dumpcap on the speaker's link):
 * the longest time the speaker sent GoBGP nothing (its keepalive is 3 s, hold 9 s). At the
 * end, once churn stopped: the speaker's RIB, its kernel table and GoBGP's routes from it
 * must be exactly what the churn left, and the session must never have dropped.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildTopology } from '../../frr-interop/capture/ovn-snapshot.js';
import { type GobgpDaemon, Lab, run } from '../../frr-interop/lab/index.js';
import { Capture } from '../../test/interop/support/bgp-capture.js';
import { eventually, LabSpeaker } from '../../test/speaker/lab-speaker.js';
import { NB_SCHEMA, nbctl, OvsdbLab, SB_SCHEMA, sbctl } from '../../test/support/ovsdb-lab.js';

export interface SoakOptions {
  readonly seconds: number;
  /** Route flaps (one announce or one withdrawal) per second from GoBGP. */
  readonly flapsPerSecond: number;
  /** Floating-IP changes (one add or one delete) per second in OVN. */
  readonly fipChangesPerSecond: number;
  /** RSS before this many seconds is warm-up, not compared. */
  readonly warmupSeconds: number;
  readonly log?: (line: string) => void;
}

export interface SoakReport {
  readonly seconds: number;
  readonly flaps: number;
  readonly fipChanges: number;
  /** Medians of the samples in the first and the last fifth after warm-up, and the largest sample. */
  readonly rssMiB: { readonly afterWarmup: number; readonly end: number; readonly max: number };
  /** Longest gap between two BGP messages from the speaker to GoBGP, seconds. */
  readonly longestSilence: number;
  readonly holdTime: number;
  readonly establishedTransitions: number;
  readonly speakerAlive: boolean;
  /** Each check of the final state, with what differed. */
  readonly checks: readonly { readonly what: string; readonly ok: boolean; readonly detail: string }[];
  readonly ok: boolean;
}

const SPEAKER = { as: 65000, routerId: '198.18.0.1' } as const;
const GOBGP_AS = 65002;
const HOLD_TIME = 9;
const KERNEL_TABLE = 100;
const STABLE = Array.from({ length: 50 }, (_, i) => `198.19.150.${i}/32`);
const POOL = Array.from({ length: 200 }, (_, i) => `198.19.160.${i}/32`);
/** FIPs on router1 (centralized, via gw1) for logical IPs of its tenant network. */
const FIP_POOL = Array.from({ length: 100 }, (_, i) => ({
  external: `198.18.66.${i + 1}`,
  logical: `198.19.1.${100 + (i % 100)}`,
}));
const SAMPLE_MS = 5000;
const SETTLE_MS = 60_000;

const mib = (kb: number) => Math.round((kb / 1024) * 10) / 10;

function rssKiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : Number.NaN;
}

/** A seeded generator, so two soaks of the same length churn the same way. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Every `intervalMs`, runs `step` (awaited: a slow step delays the next, never overlaps it) until `until`. */
async function every(intervalMs: number, until: number, step: () => Promise<void>): Promise<void> {
  for (let next = Date.now(); Date.now() < until; ) {
    await step();
    next += intervalMs;
    const wait = next - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
}

async function kernelRoutes(ns: string): Promise<Set<string>> {
  const out = await run([
    'ip',
    '-n',
    ns,
    '-4',
    'route',
    'show',
    'table',
    String(KERNEL_TABLE),
    'proto',
    '186',
  ]);
  return new Set(
    out
      .split('\n')
      .map((l) => l.split(' ')[0] ?? '')
      .filter((p) => p !== '')
      .map((p) => (p.includes('/') ? p : `${p}/32`)),
  );
}

/** Times of the BGP messages `src` sent, from the capture file (tshark, after dumpcap stopped). */
async function messageTimes(file: string, src: string): Promise<number[]> {
  const out = await run(
    ['tshark', '-r', file, '-Y', `bgp && ip.src == ${src}`, '-T', 'fields', '-e', 'frame.time_epoch'],
    {
      timeoutMs: 120_000,
    },
  );
  return out
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map(Number)
    .sort((a, b) => a - b);
}

function difference(want: ReadonlySet<string>, have: ReadonlySet<string>): string {
  const missing = [...want].filter((p) => !have.has(p));
  const extra = [...have].filter((p) => !want.has(p));
  return missing.length + extra.length === 0
    ? `${want.size} exact`
    : `missing ${missing.slice(0, 5).join(' ')}${missing.length > 5 ? ` (+${missing.length - 5})` : ''}; extra ${extra.slice(0, 5).join(' ')}${extra.length > 5 ? ` (+${extra.length - 5})` : ''}`;
}

const same = (a: ReadonlySet<string>, b: ReadonlySet<string>) =>
  a.size === b.size && [...a].every((x) => b.has(x));

export async function runSoak(o: SoakOptions): Promise<SoakReport> {
  const log = o.log ?? (() => {});
  const lab = await Lab.create({
    id: 'soak',
    speaker: SPEAKER,
    peers: [{ name: 'gobgp', impl: 'gobgp', as: GOBGP_AS, originate: { ipv4: STABLE, ipv6: [] } }],
  });
  const ovsdb = OvsdbLab.create('obs-soak-ovn-');
  let capture: Capture | undefined;
  try {
    const nb = (await ovsdb.startServer('nb', await ovsdb.createDb('nb', NB_SCHEMA))).unix;
    const sb = (await ovsdb.startServer('sb', await ovsdb.createDb('sb', SB_SCHEMA))).unix;
    await nbctl(nb, 'init');
    await sbctl(sb, 'init');
    await ovsdb.startNorthd(nb, sb);
    await buildTopology(nb, sb);

    const peer = lab.peer('gobgp');
    const gobgp = peer.daemon as GobgpDaemon;
    const speaker = await LabSpeaker.start(lab, {
      speaker: {
        name: 'soak',
        local_as: SPEAKER.as,
        router_id: SPEAKER.routerId,
        listen: { address: '::', port: 179 },
        hold_time: HOLD_TIME,
        connect_retry: 2,
        log: { level: 'warn' },
      },
      peers: [
        { name: 'gobgp', peer_ip: peer.address.ipv4, remote_as: GOBGP_AS, import: ['all'], export: ['all'] },
      ],
      prefix_lists: { learned: [{ action: 'permit', prefix: '198.19.0.0/16', le: 32 }] },
      policies: {
        all: { statements: [{ action: 'accept' }] },
        // OVN's next hops are chassis on a provider network this namespace does not have.
        'learned-only': { statements: [{ match: { prefix_list: 'learned' }, action: 'accept' }] },
      },
      ovn: { nb, sb },
      sinks: { kernel: { table: KERNEL_TABLE, on_stop: 'flush', install: ['learned-only'] } },
    });
    const pid = speaker.pid;
    await speaker.waitEstablished(['gobgp'], 60_000);
    await eventually(
      async () => ((await speaker.rib(STABLE[0])).length > 0 ? true : undefined),
      'the stable table',
      60_000,
    );
    capture = await Capture.start(lab.speakerNs, peer.link.a.ifname, join(lab.dir, 'soak.pcap'), () => {});
    log(
      `soak: ${o.seconds} s, ${o.flapsPerSecond} flaps/s from GoBGP, ${o.fipChangesPerSecond} FIP changes/s in OVN`,
    );

    const rand = random(7675);
    const announced = new Set<string>();
    const fips = new Set<string>();
    let flaps = 0;
    let fipChanges = 0;
    const start = Date.now();
    const end = start + o.seconds * 1000;
    const rss: { t: number; kb: number }[] = [];

    const flapper = every(1000 / o.flapsPerSecond, end, async () => {
      const p = POOL[Math.floor(rand() * POOL.length)]!;
      if (announced.has(p)) {
        await gobgp.withdraw([p]);
        announced.delete(p);
      } else {
        await gobgp.announce([p]);
        announced.add(p);
      }
      flaps++;
    });
    const fipper = every(1000 / o.fipChangesPerSecond, end, async () => {
      const f = FIP_POOL[Math.floor(rand() * FIP_POOL.length)]!;
      if (fips.has(f.external)) {
        await nbctl(nb, 'lr-nat-del', 'router1', 'dnat_and_snat', f.external);
        fips.delete(f.external);
      } else {
        await nbctl(nb, '--may-exist', 'lr-nat-add', 'router1', 'dnat_and_snat', f.external, f.logical);
        fips.add(f.external);
      }
      fipChanges++;
    });
    const sampler = every(SAMPLE_MS, end, async () => {
      rss.push({ t: (Date.now() - start) / 1000, kb: rssKiB(pid) });
      const last = rss.at(-1)!;
      log(`  ${last.t.toFixed(0)} s: RSS ${mib(last.kb)} MiB, ${flaps} flaps, ${fipChanges} FIP changes`);
    });
    await Promise.all([flapper, fipper, sampler]);
    rss.push({ t: (Date.now() - start) / 1000, kb: rssKiB(pid) });

    // Churn stopped: wait (bounded) for the final state, then compare each view exactly.
    const wantLearned = new Set([...STABLE, ...announced]);
    const wantOvnFips = new Set([...fips].map((ip) => `${ip}/32`));
    const learnedInRib = async () => {
      const all = await speaker.show<{ prefix: string; paths: { from: string }[] }[]>([
        'rib',
        '--afi',
        '4',
        '--limit',
        '100000',
      ]);
      return new Set((all ?? []).filter((e) => e.paths.some((p) => p.from === 'gobgp')).map((e) => e.prefix));
    };
    const fipsAtGobgp = async () =>
      new Set(
        (await gobgp.routes('ipv4'))
          .filter((r) => r.from === peer.speakerAddress.ipv4 && r.prefix.startsWith('198.18.66.'))
          .map((r) => r.prefix),
      );
    const fipsInNb = async () =>
      new Set(
        (await nbctl(nb, '--bare', '--columns=external_ip', 'find', 'NAT', 'type=dnat_and_snat'))
          .split(/\s+/)
          .filter((ip) => ip.startsWith('198.18.66.'))
          .map((ip) => `${ip}/32`),
      );
    const fipsDerived = async () =>
      new Set(
        ((await speaker.show<{ routes: { prefix: string }[] }>(['ovn']))?.routes ?? [])
          .map((r) => r.prefix)
          .filter((p) => p.startsWith('198.18.66.')),
      );
    const fipsAdvertised = async () =>
      new Set(
        ((await speaker.show<{ prefix: string }[]>(['advertised', 'gobgp', '--limit', '100000'])) ?? [])
          .map((e) => e.prefix)
          .filter((p) => p.startsWith('198.18.66.')),
      );
    const kernel = () => kernelRoutes(lab.speakerNs);
    await eventually(
      async () =>
        same(await learnedInRib(), wantLearned) &&
        same(await kernel(), wantLearned) &&
        same(await fipsAtGobgp(), wantOvnFips)
          ? true
          : undefined,
      'the final state everywhere',
      SETTLE_MS,
      500,
    ).catch(() => undefined);

    const checks = [
      { what: 'learned routes in the RIB', have: await learnedInRib(), want: wantLearned },
      { what: `learned routes in kernel table ${KERNEL_TABLE}`, have: await kernel(), want: wantLearned },
      { what: 'floating IPs in OVN NB', have: await fipsInNb(), want: wantOvnFips },
      { what: 'floating IPs derived from OVN', have: await fipsDerived(), want: wantOvnFips },
      { what: 'floating IPs advertised to GoBGP', have: await fipsAdvertised(), want: wantOvnFips },
      { what: 'floating IPs at GoBGP', have: await fipsAtGobgp(), want: wantOvnFips },
    ].map((c) => ({ what: c.what, ok: same(c.have, c.want), detail: difference(c.want, c.have) }));

    const neighbor = (await speaker.show<{ establishedTransitions: number }[]>(['neighbors', 'gobgp']))?.[0];
    await capture.stop();
    const times = await messageTimes(join(lab.dir, 'soak.pcap'), peer.speakerAddress.ipv4);
    capture = undefined;
    let longestSilence = 0;
    for (let i = 1; i < times.length; i++)
      longestSilence = Math.max(longestSilence, times[i]! - times[i - 1]!);
    const warm = rss.filter((s) => s.t >= o.warmupSeconds);
    const fifth = Math.max(1, Math.floor(warm.length / 5));
    const median = (list: { kb: number }[]) => {
      const kb = list.map((x) => x.kb).sort((a, b) => a - b);
      return kb[Math.floor(kb.length / 2)] ?? Number.NaN;
    };
    const speakerAlive = (await speaker.summary()) !== undefined;
    const establishedTransitions = neighbor?.establishedTransitions ?? 0;
    const report: SoakReport = {
      seconds: o.seconds,
      flaps,
      fipChanges,
      rssMiB: {
        afterWarmup: mib(median(warm.slice(0, fifth))),
        end: mib(median(warm.slice(-fifth))),
        max: mib(Math.max(...rss.map((s) => s.kb))),
      },
      longestSilence: Math.round(longestSilence * 100) / 100,
      holdTime: HOLD_TIME,
      establishedTransitions,
      speakerAlive,
      checks,
      ok:
        speakerAlive &&
        establishedTransitions === 1 &&
        longestSilence < HOLD_TIME &&
        checks.every((c) => c.ok),
    };
    await speaker.stop();
    return report;
  } finally {
    await capture?.stop().catch(() => undefined);
    await ovsdb.close().catch(() => undefined);
    await lab.destroy();
  }
}
