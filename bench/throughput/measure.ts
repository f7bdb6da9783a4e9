/**
 * The measurements, done the same way for every implementation:
 *
 * receive: a fresh receiver; the replayer connects and writes the table; the clock starts at
 *   Established as the replayer saw it and stops at the first poll answer showing every prefix.
 *   The cold-start cell ('cold') is this with the small table.
 * send: the same process, once it holds the full table and has gone quiet, is connected to by
 *   the counter; the clock starts at the counter's Established and stops when the counter holds
 *   every prefix (it stamps that itself). Receiving and sending in one process spares loading
 *   the table twice, which for FRR 10.3 is the longest part of the whole benchmark.
 *
 * Around each: CPU seconds and peak RSS of the process under test from /proc, and whether the
 * sessions stayed up (no NOTIFICATION, no drop, the longest silence from the peer).
 */
import type { AfiCode } from '../../src/bgp/wire/constants.js';
import type { ChildEvent } from './child-io.js';
import { ChildProgram } from './child-process.js';
import { sleep, wallClock } from './clock.js';
import {
  BenchAs,
  CHILD_READY_TIMEOUT,
  ESTABLISH_TIMEOUT,
  HOLD_TIME_SECONDS,
  HUB_ROUTER_ID,
  OURS_LINK,
  QUIET_CPU_SHARE,
  QUIET_SAMPLE,
  QUIET_SAMPLES,
  SETTLE_AFTER_DONE,
  STATUS_TIMEOUT,
} from './constants.js';
import { cpuSeconds, type Usage, usage } from './proc.js';
import { isEstablished, type Target } from './targets.js';

/** [seconds since Established, prefixes held] */
export type Sample = readonly [number, number];

export interface SessionCheck {
  /** The session went down or a NOTIFICATION was exchanged. */
  readonly dropped: boolean;
  readonly reason?: string;
  /** Longest time the tool (replayer or counter) heard nothing from the peer, in seconds. */
  readonly maxSilenceSeconds: number;
  readonly finalState: string;
}

/** 'cold': the small table into a fresh process; 'receive' and 'send': the full table. */
export type CellKind = 'cold' | 'receive' | 'send';

export interface Measurement {
  readonly impl: string;
  readonly shape: string;
  readonly cell: CellKind;
  readonly run: number;
  readonly expected: number;
  /** Prefixes held when the measurement ended. */
  readonly held: number;
  /** Wall seconds from Established to holding every prefix; undefined when it timed out. */
  readonly wallSeconds?: number;
  readonly cpuSeconds?: number;
  readonly idleRssBytes?: number;
  readonly peakRssBytes?: number;
  readonly series: readonly Sample[];
  readonly session?: SessionCheck;
  /** Send only: how long the loaded sender took to go quiet before the counter connected. */
  readonly settleSeconds?: number;
  readonly settleNote?: string;
  /** Why there is no complete figure: "timeout at N prefixes", "load timed out ...", an error. */
  readonly note?: string;
}

export interface MeasureContext {
  readonly hubNs: string;
  /** The table shape sent (for the record). */
  readonly shape: string;
  /** What receiving this table is: the cold-start cell or the full table. */
  readonly cell: 'cold' | 'receive';
  readonly expected: number;
  readonly afis: readonly AfiCode[];
  /** Stream file per implementation's link (the next hop differs). */
  readonly streamFile: (impl: string) => string;
  readonly timeoutMs: number;
  /** How often the receiver is asked what it holds. */
  readonly pollMs: number;
  readonly track: (c: ChildProgram) => void;
}

interface Followed {
  readonly series: Sample[];
  readonly doneAt?: number;
  readonly last: number;
  readonly state: string;
  /** The tool's session closed before the end: why. */
  readonly dropped?: string;
}

/** Polls `target` until it holds `expected` from `neighbor`, the tool's session closes, or the time is up. */
async function follow(
  target: Target,
  neighbor: string,
  ctx: Pick<MeasureContext, 'expected' | 'timeoutMs' | 'pollMs'>,
  t0: number,
  tool: ChildProgram,
): Promise<Followed> {
  const { expected, timeoutMs } = ctx;
  const series: Sample[] = [[0, 0]];
  const deadline = t0 + timeoutMs;
  let last = 0;
  let state = 'unknown';
  while (wallClock() < deadline) {
    const closed = tool.find((e) => e.ev === 'closed');
    if (closed) return { series, last, state, dropped: String(closed.reason) };
    const asked = wallClock();
    const h = await target.held(neighbor);
    const t = wallClock();
    last = h.count;
    state = h.state;
    series.push([(t - t0) / 1000, h.count]);
    if (h.count >= expected) return { series, doneAt: t, last, state };
    await sleep(Math.max(0, ctx.pollMs - (t - asked)));
  }
  return { series, last, state };
}

function startReplayer(ctx: MeasureContext, target: Target): ChildProgram {
  const replayer = new ChildProgram(
    ctx.hubNs,
    'replayer',
    {
      host: target.link.targetIpv4,
      localAddress: target.link.hubIpv4,
      localAs: BenchAs.REPLAYER,
      routerId: HUB_ROUTER_ID,
      holdTimeSeconds: HOLD_TIME_SECONDS,
      afis: ctx.afis,
      streamFile: ctx.streamFile(target.impl),
      connectTimeoutMs: ESTABLISH_TIMEOUT,
    },
    `replayer to ${target.label}`,
  );
  ctx.track(replayer);
  return replayer;
}

const isUp = (e: ChildEvent) => e.ev === 'established' || e.ev === 'closed';

async function established(tool: ChildProgram): Promise<number> {
  const e = await tool.waitFor(isUp, 'Established', ESTABLISH_TIMEOUT);
  if (e.ev !== 'established')
    throw new Error(`${tool.name}: session closed before Established: ${String(e.reason)}`);
  return e.t as number;
}

/** Drops seen by a tool (its 'closed' events) and its longest silence from the peer. */
async function sessionCheck(tool: ChildProgram, target: Target, neighbor: string): Promise<SessionCheck> {
  const closed = tool.find((e) => e.ev === 'closed');
  let maxSilenceSeconds = Number.NaN;
  if (!tool.exited) {
    const s = await tool.request('stats', STATUS_TIMEOUT);
    maxSilenceSeconds = (s.maxSilenceMs as number) / 1000;
  }
  const h = await target.held(neighbor).catch((e) => ({ count: 0, state: `unknown (${String(e)})` }));
  const down = closed !== undefined || !isEstablished(h);
  return {
    dropped: down,
    ...(down && { reason: closed ? String(closed.reason) : `state ${h.state}` }),
    maxSilenceSeconds,
    finalState: h.state,
  };
}

/** Why a measurement has no time: the session dropped, or the clock ran out. */
function unfinished(held: number, dropped: string | undefined): string {
  return dropped ? `dropped at ${held} prefixes (${dropped})` : `timeout at ${held} prefixes`;
}

/**
 * Waits (bounded) until the process uses under QUIET_CPU_SHARE of a core over QUIET_SAMPLES
 * samples in a row: a sender that holds the table may still be deciding or indexing it.
 */
async function waitQuiet(pid: number, timeoutMs: number): Promise<{ seconds: number; quiet: boolean }> {
  const t0 = wallClock();
  let calm = 0;
  let cpu = cpuSeconds(pid);
  while (wallClock() - t0 < timeoutMs) {
    await sleep(QUIET_SAMPLE);
    const now = cpuSeconds(pid);
    calm = (now - cpu) / (QUIET_SAMPLE / 1000) < QUIET_CPU_SHARE ? calm + 1 : 0;
    cpu = now;
    if (calm >= QUIET_SAMPLES) return { seconds: (wallClock() - t0) / 1000, quiet: true };
  }
  return { seconds: (wallClock() - t0) / 1000, quiet: false };
}

function figures(before: Usage, after: Usage) {
  return {
    cpuSeconds: after.cpuSeconds - before.cpuSeconds,
    idleRssBytes: before.memory.rssBytes,
    peakRssBytes: after.memory.peakBytes,
  };
}

/** Counter progress events as a series from its Established. */
function counterSeries(counter: ChildProgram, t0: number): Sample[] {
  const out: Sample[] = [[0, 0]];
  for (const e of counter.events) {
    if (e.ev === 'progress' || e.ev === 'done') out.push([((e.t as number) - t0) / 1000, e.n as number]);
  }
  return out.sort((a, b) => a[0] - b[0]);
}

function startCounter(
  ctx: MeasureContext,
  ns: string,
  config: { host: string; localAddress: string; listen?: boolean },
  label: string,
): ChildProgram {
  const counter = new ChildProgram(
    ns,
    'counter',
    {
      ...config,
      localAs: BenchAs.COUNTER,
      routerId: config.localAddress,
      holdTimeSeconds: HOLD_TIME_SECONDS,
      afis: ctx.afis,
      expected: ctx.expected,
      connectTimeoutMs: ESTABLISH_TIMEOUT,
    },
    label,
  );
  ctx.track(counter);
  return counter;
}

/** Waits for the counter to hold the table; returns the send figures from its stamps. */
async function countUntilDone(ctx: MeasureContext, counter: ChildProgram) {
  const t0 = await established(counter);
  const end = await counter
    .waitFor((e) => e.ev === 'done' || e.ev === 'closed', 'every prefix', ctx.timeoutMs)
    .catch(() => undefined);
  const done = end?.ev === 'done' ? (end.t as number) : undefined;
  const series = counterSeries(counter, t0);
  const closed = counter.find((e) => e.ev === 'closed');
  // The counter's own count at its end is the last word; progress events lag by up to one tick.
  const last = closed ? (closed.n as number) : (series[series.length - 1]?.[1] ?? 0);
  return { t0, done, series, last, ...(closed && { dropped: String(closed.reason) }) };
}

/**
 * Whether to go on to sending once the table is held: true, or why not (the time budget).
 * Asked after receiving, when the time left is known.
 */
export type SendGate = () => true | string;

export interface ReceivedAndSent {
  readonly receive: Measurement;
  /** Absent when no send was asked for. */
  readonly send?: Measurement;
}

/** A fresh `target` receives the table; then, when `gate` is given and agrees, sends it to the counter. */
export async function measureReceiveThenSend(
  ctx: MeasureContext,
  target: Target,
  run: number,
  gate?: SendGate,
): Promise<ReceivedAndSent> {
  const base = { impl: target.impl, shape: ctx.shape, run, expected: ctx.expected };
  await target.start();
  const pid = target.pid();
  // Idle: started, configured, no session yet.
  const before = usage(pid);
  const replayer = startReplayer(ctx, target);
  try {
    await replayer.waitFor((e) => e.ev === 'ready', 'ready', CHILD_READY_TIMEOUT);
    const t0 = await established(replayer);
    const f = await follow(target, target.link.hubIpv4, ctx, t0, replayer);
    const after = usage(pid);
    if (f.doneAt !== undefined) await sleep(SETTLE_AFTER_DONE);
    const receive: Measurement = {
      ...base,
      cell: ctx.cell,
      held: f.last,
      ...(f.doneAt !== undefined && { wallSeconds: (f.doneAt - t0) / 1000 }),
      ...figures(before, after),
      series: f.series,
      session: await sessionCheck(replayer, target, target.link.hubIpv4),
      ...(f.doneAt === undefined && { note: unfinished(f.last, f.dropped) }),
    };
    if (!gate) return { receive };
    const noSend = { ...base, cell: 'send' as const, held: 0, series: [] };
    if (f.doneAt === undefined)
      return { receive, send: { ...noSend, note: `not loaded: ${unfinished(f.last, f.dropped)}` } };
    const go = gate();
    if (go !== true) return { receive, send: { ...noSend, note: go } };
    return { receive, send: await sendFrom(ctx, target, base) };
  } finally {
    await replayer.stop();
    await target.stop();
  }
}

/** The loaded sender's half: quiet first, then the counter's session until it holds the table. */
async function sendFrom(
  ctx: MeasureContext,
  target: Target,
  base: Pick<Measurement, 'impl' | 'shape' | 'run' | 'expected'>,
): Promise<Measurement> {
  const pid = target.pid();
  // What it still does with the table it holds is part of receiving, not of sending.
  const settle = await waitQuiet(pid, ctx.timeoutMs);
  const before = usage(pid);
  const counter = startCounter(
    ctx,
    ctx.hubNs,
    { host: target.link.targetIpv4, localAddress: target.link.counterIpv4 },
    `counter from ${target.label}`,
  );
  try {
    const c = await countUntilDone(ctx, counter);
    const after = usage(pid);
    if (c.done !== undefined) await sleep(SETTLE_AFTER_DONE);
    return {
      ...base,
      cell: 'send',
      held: c.last,
      ...(c.done !== undefined && { wallSeconds: (c.done - c.t0) / 1000 }),
      ...figures(before, after),
      series: c.series,
      session: await sessionCheck(counter, target, target.link.counterIpv4),
      settleSeconds: settle.seconds,
      ...(!settle.quiet && { settleNote: 'still busy when the counter connected' }),
      ...(c.done === undefined && { note: unfinished(c.last, c.dropped) }),
    };
  } finally {
    await counter.stop();
  }
}

/**
 * The floor: the replayer's pre-encoded writes straight into the counter (which listens in our
 * speaker's namespace, our speaker not running), over the same kind of link.
 */
export async function measureReplayerSend(
  ctx: MeasureContext,
  oursNs: string,
  run: number,
): Promise<Measurement> {
  const base = { impl: 'replayer', shape: ctx.shape, cell: 'send' as const, run, expected: ctx.expected };
  const counter = startCounter(
    ctx,
    oursNs,
    { host: OURS_LINK.hubIpv4, localAddress: OURS_LINK.oursIpv4, listen: true },
    'counter of the replayer',
  );
  const replayer = new ChildProgram(
    ctx.hubNs,
    'replayer',
    {
      host: OURS_LINK.oursIpv4,
      localAddress: OURS_LINK.hubIpv4,
      localAs: BenchAs.REPLAYER,
      routerId: HUB_ROUTER_ID,
      holdTimeSeconds: HOLD_TIME_SECONDS,
      afis: ctx.afis,
      streamFile: ctx.streamFile('ours'),
      connectTimeoutMs: ESTABLISH_TIMEOUT,
    },
    'replayer to the counter',
  );
  ctx.track(replayer);
  try {
    await counter.waitFor((e) => e.ev === 'listening', 'listening', CHILD_READY_TIMEOUT);
    const pid = replayer.pid;
    await replayer.waitFor((e) => e.ev === 'ready', 'ready', CHILD_READY_TIMEOUT);
    const before = usage(pid);
    const c = await countUntilDone(ctx, counter);
    const after = usage(pid);
    const closed = counter.find((e) => e.ev === 'closed');
    const stats = closed ? undefined : await counter.request('stats', STATUS_TIMEOUT);
    return {
      ...base,
      held: c.last,
      ...(c.done !== undefined && { wallSeconds: (c.done - c.t0) / 1000 }),
      ...figures(before, after),
      series: c.series,
      session: {
        dropped: closed !== undefined,
        ...(closed && { reason: String(closed.reason) }),
        maxSilenceSeconds: stats ? (stats.maxSilenceMs as number) / 1000 : Number.NaN,
        finalState: closed ? 'closed' : String(stats?.state),
      },
      ...(c.done === undefined && { note: unfinished(c.last, c.dropped) }),
    };
  } finally {
    await replayer.stop();
    await counter.stop();
  }
}
