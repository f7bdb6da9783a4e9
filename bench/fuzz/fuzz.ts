/**
 * The live fuzzer: our speaker as a process in a lab namespace, a good peer (GoBGP) that must
 * stay up the whole run, and fuzz peers on the namespace's loopback sending mutated captured
 * UPDATE streams and OPENs over real TCP.
 *
 *   lab speaker ns:  speaker (listens on :179) ── veth ── GoBGP (AS 65020, a stable table)
 *                    lo: 198.18.250.1 (the speaker), 198.18.250.10+i (fuzz peer i, passive
 *                    on our side, remote AS = its stream's sender AS), driver.ts connects from there
 *
 * Every case is judged by its oracle (oracle.ts) in the driver. Here: the speaker's RSS at the
 * start and the end, that its process never died, and that the GoBGP session never dropped and
 * still delivers its table.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Lab, run } from '../../frr-interop/lab/index.js';
import { eventually, LabSpeaker } from '../../test/speaker/lab-speaker.js';
import { loadStreams } from './corpus.js';
import type { DriverPlan, DriverReport, Violation } from './driver.js';

export interface FuzzOptions {
  readonly seconds: number;
  /** Stop after this many cases even before the time is up. */
  readonly maxCases?: number;
  readonly seed?: number;
  readonly replay?: { readonly lane: number; readonly seed: number };
  readonly log?: (line: string) => void;
}

export interface FuzzReport extends Omit<DriverReport, 'violations'> {
  readonly seed: number;
  readonly seconds: number;
  readonly streams: readonly string[];
  readonly violations: readonly Violation[];
  readonly speakerAlive: boolean;
  /** Established transitions of the good peer's session (1: it never dropped). */
  readonly goodPeerTransitions: number;
  readonly goodPeerDrops: number;
  readonly goodPeerRoutes: { readonly want: number; readonly have: number };
  readonly rssMiB: { readonly start: number; readonly end: number; readonly max: number };
  readonly driverExit: number | null;
  readonly ok: boolean;
}

/** The lab's id: its namespaces are `obs-fuzz-*`, its directory /tmp/obs-lab-fuzz. */
export const FUZZ_LAB_ID = 'fuzz';
const SPEAKER = { as: 65000, routerId: '198.18.0.1' } as const;
const GOOD_AS = 65020;
const GOOD_TABLE = Array.from({ length: 20 }, (_, i) => `198.19.190.${i}/32`);
const LOOPBACK = '198.18.250.1';
const laneAddress = (i: number) => `198.18.250.${10 + i}`;
const HOLD_TIME = 90;
const OPEN_SHARE = 0.2;
const SAMPLE_MS = 2000;
/** Past the deadline: the last cases' bounded waits, and the driver's start. */
const DRIVER_GRACE_MS = 60_000;
const DRIVER = resolve(import.meta.dirname, 'driver.ts');

const mib = (kb: number) => Math.round((kb / 1024) * 10) / 10;

function rssKiB(pid: number): number | undefined {
  try {
    const s = readFileSync(`/proc/${pid}/status`, 'utf8');
    if (/State:\s+Z/.test(s)) return undefined;
    const m = /VmRSS:\s+(\d+) kB/.exec(s);
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

export async function runFuzz(o: FuzzOptions): Promise<FuzzReport> {
  const log = o.log ?? (() => {});
  const seed = (o.seed ?? Date.now()) >>> 0;
  const streams = loadStreams();
  const lab = await Lab.create({
    id: FUZZ_LAB_ID,
    speaker: SPEAKER,
    peers: [{ name: 'gobgp', impl: 'gobgp', as: GOOD_AS, originate: { ipv4: GOOD_TABLE, ipv6: [] } }],
  });
  try {
    const ns = lab.speakerNs;
    await run(['ip', '-n', ns, 'link', 'set', 'lo', 'up']);
    for (const a of [LOOPBACK, ...streams.map((_, i) => laneAddress(i))])
      await run(['ip', '-n', ns, 'addr', 'add', `${a}/32`, 'dev', 'lo']);
    const good = lab.peer('gobgp');
    const lanes = streams.map((s, i) => ({ peer: `fz${i}`, address: laneAddress(i), stream: s.name }));
    const speaker = await LabSpeaker.start(lab, {
      speaker: {
        name: 'fuzz',
        local_as: SPEAKER.as,
        router_id: SPEAKER.routerId,
        listen: { address: '::', port: 179 },
        hold_time: 9,
        connect_retry: 2,
        log: { level: 'warn' },
      },
      peers: [
        { name: 'gobgp', peer_ip: good.address.ipv4, remote_as: GOOD_AS, import: ['all'], export: ['all'] },
        ...streams.map((s, i) => ({
          name: lanes[i]!.peer,
          peer_ip: lanes[i]!.address,
          remote_as: s.as,
          passive: true,
          hold_time: HOLD_TIME,
          families: ['ipv4-unicast', 'ipv6-unicast'],
          ...((s.addPath.v4 || s.addPath.v6) && { add_path: { receive: true } }),
          import: ['all'],
        })),
      ],
      policies: { all: { statements: [{ action: 'accept' }] } },
    });
    const pid = speaker.pid;
    await speaker.waitEstablished(['gobgp'], 60_000);
    const goodRoutes = async () =>
      (await speaker.show<{ prefix: string; paths: { from: string }[] }[]>(['received', 'gobgp'])) ?? [];
    await eventually(
      async () => ((await goodRoutes()).length === GOOD_TABLE.length ? true : undefined),
      'the good peer’s table',
      60_000,
    );

    const reportFile = join(lab.dir, 'fuzz-report.json');
    const plan: DriverPlan = {
      socket: speaker.socket,
      speaker: { address: LOOPBACK, port: 179 },
      lanes,
      seed,
      deadline: Date.now() + o.seconds * 1000,
      maxCases: o.maxCases ?? Number.MAX_SAFE_INTEGER,
      openShare: OPEN_SHARE,
      holdTime: HOLD_TIME,
      report: reportFile,
      ...(o.replay && { replay: o.replay }),
    };
    const planFile = join(lab.dir, 'fuzz-plan.json');
    writeFileSync(planFile, JSON.stringify(plan));
    log(
      `fuzz: seed ${seed}, ${o.seconds} s, ${lanes.length} lanes: ${lanes.map((l) => l.stream).join(', ')}`,
    );

    const rss: number[] = [];
    const sample = () => {
      const kb = rssKiB(pid);
      if (kb !== undefined) rss.push(kb);
      return kb !== undefined;
    };
    sample();
    const driverLog = join(lab.dir, 'fuzz-driver.log');
    const driver = lab.spawn(ns, [process.execPath, '--import', 'tsx', DRIVER, planFile], {
      name: 'fuzz-driver',
      logFile: driverLog,
    });
    const exited = new Promise<number | null>((r) => driver.child.once('exit', (code) => r(code)));
    let speakerAlive = true;
    const hardStop = Date.now() + o.seconds * 1000 + DRIVER_GRACE_MS;
    let driverExit: number | null | undefined;
    let lastLog = Date.now();
    while (driverExit === undefined) {
      const r = await Promise.race([
        exited,
        new Promise<undefined>((res) => setTimeout(() => res(undefined), SAMPLE_MS)),
      ]);
      if (r !== undefined || driver.child.exitCode !== null) driverExit = r ?? driver.child.exitCode;
      if (!sample()) speakerAlive = false;
      if (Date.now() - lastLog > 30_000) {
        lastLog = Date.now();
        log(`  RSS ${mib(rss.at(-1) ?? 0)} MiB`);
      }
      if (driverExit === undefined && Date.now() > hardStop) {
        log('fuzz: the driver overran its deadline; stopping it');
        await lab.stopProcess(driver.record);
        driverExit = null;
      }
    }
    const found: DriverReport = existsSync(reportFile)
      ? JSON.parse(readFileSync(reportFile, 'utf8'))
      : {
          cases: 0,
          byMutator: {},
          outcomes: {},
          violations: [],
          setupFailures: [`the driver wrote no report: ${readFileSync(driverLog, 'utf8').slice(-2000)}`],
        };
    speakerAlive &&= (await speaker.summary()) !== undefined;
    const neighbor = (
      await speaker.show<{ state: string; establishedTransitions: number }[]>(['neighbors', 'gobgp'])
    )?.[0];
    const transitions = neighbor?.establishedTransitions ?? 0;
    const have = (await goodRoutes()).length;
    const rssEnd = rss.at(-1) ?? Number.NaN;
    const report: FuzzReport = {
      ...found,
      seed,
      seconds: o.seconds,
      streams: lanes.map((l) => l.stream),
      speakerAlive,
      goodPeerTransitions: transitions,
      goodPeerDrops: Math.max(0, transitions - 1) + (neighbor?.state === 'Established' ? 0 : 1),
      goodPeerRoutes: { want: GOOD_TABLE.length, have },
      rssMiB: { start: mib(rss[0] ?? Number.NaN), end: mib(rssEnd), max: mib(Math.max(...rss)) },
      driverExit,
      ok:
        speakerAlive &&
        found.violations.length === 0 &&
        found.setupFailures.length === 0 &&
        transitions === 1 &&
        neighbor?.state === 'Established' &&
        have === GOOD_TABLE.length &&
        driverExit === 0,
    };
    if (!speakerAlive) log(`speaker log tail:\n${speaker.logTail()}`);
    await speaker.stop();
    return report;
  } finally {
    await lab.destroy();
  }
}
