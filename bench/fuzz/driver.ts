/**
 * The fuzz driver: runs inside the speaker's network namespace (fuzz.ts starts it there) and
 * plays every lane at once. A lane is one configured fuzz peer replaying one captured stream:
 * it keeps a session up across the cases the speaker survives and opens a new one (after
 * `neighbor reset`, which skips the idle hold a flapping peer would wait out) when a case
 * ended it. Writes its report as JSON to the plan's `report` file.
 *
 *   node --import tsx bench/fuzz/driver.ts PLAN.json
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { callControl } from '../../src/api/client.js';
import type { RibEntryView } from '../../src/api/index.js';
import { caseFor, type PlannedCase, plainOpen } from './cases.js';
import { FuzzConnection } from './connection.js';
import { loadStreams, type Stream } from './corpus.js';
import { judge, type Outcome, routeText } from './oracle.js';
import { caseSeed } from './prng.js';
import { cease, keepalive, probeUpdate, type RouteKey, TYPE } from './wire.js';

export interface DriverPlan {
  readonly socket: string;
  readonly speaker: { readonly address: string; readonly port: number };
  readonly lanes: readonly { readonly peer: string; readonly address: string; readonly stream: string }[];
  readonly seed: number;
  /** Epoch ms: no case starts after it. */
  readonly deadline: number;
  readonly maxCases: number;
  /** Share of cases that are OPEN cases. */
  readonly openShare: number;
  readonly holdTime: number;
  readonly report: string;
  /** Run one case only: lane index and case seed. */
  readonly replay?: { readonly lane: number; readonly seed: number };
}

export interface Violation {
  readonly lane: number;
  readonly stream: string;
  readonly seed: number;
  readonly kind: string;
  readonly mutator: string;
  readonly detail: string;
  /** The mutated message, hex (cut at 200 octets). */
  readonly hex: string;
}

export interface DriverReport {
  readonly cases: number;
  readonly byMutator: Record<string, number>;
  /** "3/10", "up", ...: what the speaker did, counted. */
  readonly outcomes: Record<string, number>;
  readonly violations: readonly Violation[];
  /** Sessions a lane could not bring up (not a verdict on a case, but not normal either). */
  readonly setupFailures: readonly string[];
}

const CONNECT_MS = 3000;
const OPEN_MS = 5000;
const ROUND_MS = 2000;
const ROUNDS = 3;
const CLOSE_MS = 3000;
const POLL_MS = 20;
const SETUP_TRIES = 4;
/** 230 KEEPALIVEs: more than a 4096-octet message, so a length that lied long is filled. */
const FILLER = Buffer.concat(Array.from({ length: 230 }, keepalive));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

class Lane {
  readonly index: number;
  readonly peer: string;
  readonly address: string;
  readonly stream: Stream;
  readonly plain: Buffer;
  readonly #plan: DriverPlan;
  #conn: FuzzConnection | undefined;
  #needsReset = true;
  #probes = 0;
  #lastProbe: string | undefined;

  constructor(plan: DriverPlan, index: number, stream: Stream) {
    const l = plan.lanes[index]!;
    this.#plan = plan;
    this.index = index;
    this.peer = l.peer;
    this.address = l.address;
    this.stream = stream;
    this.plain = plainOpen(stream, l.address, plan.holdTime);
  }

  #received(prefix: string): Promise<RibEntryView[]> {
    return callControl(this.#plan.socket, 'received', { peer: this.peer, prefix });
  }

  async #holds(r: RouteKey): Promise<boolean> {
    const entries = await this.#received(r.prefix);
    return entries.some(
      (e) => e.prefix === r.prefix && e.paths.some((p) => r.pathId === undefined || p.pathId === r.pathId),
    );
  }

  #connect(): Promise<FuzzConnection> {
    return FuzzConnection.open({
      host: this.#plan.speaker.address,
      port: this.#plan.speaker.port,
      localAddress: this.address,
      timeoutMs: CONNECT_MS,
    });
  }

  async #reset(): Promise<void> {
    if (!this.#needsReset) return;
    await callControl(this.#plan.socket, 'neighbor.reset', { peer: this.peer });
    this.#needsReset = false;
  }

  drop(): void {
    this.#conn?.end(cease());
    this.#conn = undefined;
    this.#needsReset = true;
    this.#lastProbe = undefined;
  }

  /** A session in Established for UPDATE cases; throws after a few failed tries. */
  async session(): Promise<FuzzConnection> {
    if (this.#conn && !this.#conn.closed) return this.#conn;
    this.drop();
    let why = '';
    for (let t = 0; t < SETUP_TRIES; t++) {
      try {
        await this.#reset();
        const c = await this.#connect();
        c.write(this.plain);
        const o = await c.expect(TYPE.OPEN, OPEN_MS);
        const k = o && 'type' in o && o.type === TYPE.OPEN ? await c.expect(TYPE.KEEPALIVE, OPEN_MS) : o;
        if (k && 'type' in k && k.type === TYPE.KEEPALIVE) {
          c.write(keepalive());
          c.frames.length = 0;
          this.#conn = c;
          return c;
        }
        why = k === undefined ? 'no OPEN and KEEPALIVE in time' : `got ${JSON.stringify(k)}`;
        c.destroy();
      } catch (e) {
        why = (e as Error).message;
      }
      this.#needsReset = true;
      await sleep(200 * (t + 1));
    }
    throw new Error(`lane ${this.index} (${this.peer}): no session: ${why}`);
  }

  #probe(c: FuzzConnection): string {
    const n = this.#probes++;
    const prefix = `198.19.${200 + this.index}.${(n % 250) + 1}/32`;
    c.write(
      probeUpdate({
        prefix,
        as: this.stream.as,
        as4: this.stream.as4,
        nextHop: this.address,
        addPath: this.stream.addPath.v4,
        ...(this.#lastProbe && this.#lastProbe !== prefix && { withdraw: this.#lastProbe }),
      }),
    );
    this.#lastProbe = prefix;
    return prefix;
  }

  /** Waits for the first decisive reaction; probes (and fills) again when there is none. */
  async #react(c: FuzzConnection, probe: boolean, upOnKeepalive: boolean): Promise<Outcome> {
    for (let round = 0; round < ROUNDS; round++) {
      const prefix = probe ? this.#probe(c) : undefined;
      const until = Date.now() + ROUND_MS;
      while (Date.now() < until) {
        const f = c.verdictFrame();
        if (f && 'malformed' in f) return { kind: 'malformed', detail: f.malformed };
        if (f && 'type' in f)
          return { kind: 'notification', code: f.body[0]!, subcode: f.body[1]!, data: f.body.subarray(2) };
        if (upOnKeepalive && c.frames.some((x) => 'type' in x && x.type === TYPE.KEEPALIVE))
          return { kind: 'up' };
        if (c.closed) return { kind: 'closed' };
        if (prefix && (await this.#holds({ prefix }))) return { kind: 'up' };
        await c.changed(POLL_MS);
      }
      c.write(FILLER);
    }
    return { kind: 'silent' };
  }

  /** Runs one case; the outcome and, when it broke a rule, why. */
  async run(pc: PlannedCase): Promise<{ outcome: Outcome; violation?: string }> {
    if (pc.kind === 'open') {
      this.drop();
      await this.#reset();
      const c = await this.#connect();
      c.write(pc.bytes);
      const outcome = await this.#react(c, false, true);
      let violation = judge(pc.expect, outcome);
      if (outcome.kind === 'notification' && !(await c.waitClosed(CLOSE_MS)))
        violation ??= 'connection left open after the NOTIFICATION';
      c.end(cease());
      this.#needsReset = true;
      return violation ? { outcome, violation } : { outcome };
    }
    const c = await this.session();
    for (const m of pc.before) c.write(m);
    c.write(pc.bytes);
    const outcome = await this.#react(c, true, false);
    let violation = judge(pc.expect, outcome);
    if (outcome.kind === 'up') {
      c.frames.length = 0;
      for (const r of (pc.expect.absent ?? []).slice(0, 8))
        if (await this.#holds(r)) violation ??= `${routeText(r)} still held (treat-as-withdraw expected)`;
      for (const r of (pc.expect.present ?? []).slice(0, 8))
        if (!(await this.#holds(r))) violation ??= `${routeText(r)} not held (route must be kept)`;
      if (violation) this.drop();
    } else {
      if (outcome.kind === 'notification' && !(await c.waitClosed(CLOSE_MS)))
        violation ??= 'connection left open after the NOTIFICATION';
      this.drop();
    }
    return violation ? { outcome, violation } : { outcome };
  }
}

const outcomeKey = (o: Outcome) => (o.kind === 'notification' ? `${o.code}/${o.subcode}` : o.kind);

export async function drive(plan: DriverPlan, log: (line: string) => void): Promise<DriverReport> {
  const streams = new Map(loadStreams().map((s) => [s.name, s]));
  const lanes = plan.lanes.map((l, i) => {
    const s = streams.get(l.stream);
    if (!s) throw new Error(`no stream ${l.stream} in fixtures/bgp`);
    return new Lane(plan, i, s);
  });
  const report = {
    cases: 0,
    byMutator: {} as Record<string, number>,
    outcomes: {} as Record<string, number>,
    violations: [] as Violation[],
    setupFailures: [] as string[],
  };
  const one = async (lane: Lane, seed: number) => {
    const pc = caseFor(seed, lane.stream, { openShare: plan.openShare, plain: lane.plain });
    if (!pc) return;
    report.cases++;
    const key = `${pc.kind} ${pc.mutator}`;
    report.byMutator[key] = (report.byMutator[key] ?? 0) + 1;
    let r: Awaited<ReturnType<Lane['run']>>;
    try {
      r = await lane.run(pc);
    } catch (e) {
      report.setupFailures.push(`${(e as Error).message} (case ${lane.index}:${seed})`);
      lane.drop();
      return;
    }
    const k = outcomeKey(r.outcome);
    report.outcomes[k] = (report.outcomes[k] ?? 0) + 1;
    if (r.violation) {
      const v: Violation = {
        lane: lane.index,
        stream: lane.stream.name,
        seed,
        kind: pc.kind,
        mutator: pc.mutator,
        detail: r.violation,
        hex: pc.bytes.subarray(0, 200).toString('hex'),
      };
      report.violations.push(v);
      log(
        `VIOLATION ${pc.kind} ${pc.mutator} on ${v.stream}: ${v.detail} (replay: --replay ${lane.index}:${seed})`,
      );
    }
  };
  if (plan.replay) {
    const lane = lanes[plan.replay.lane];
    if (!lane) throw new Error(`no lane ${plan.replay.lane}`);
    await one(lane, plan.replay.seed);
  } else {
    await Promise.all(
      lanes.map(async (lane) => {
        for (let j = 0; Date.now() < plan.deadline && report.cases < plan.maxCases; j++) {
          await one(lane, caseSeed(plan.seed, lane.index, j));
          if (report.setupFailures.length > 20) break;
        }
        lane.drop();
      }),
    );
  }
  return report;
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const plan = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as DriverPlan;
  const report = await drive(plan, (l) => console.log(l));
  writeFileSync(plan.report, JSON.stringify(report));
  // Sockets the lanes ended may linger for their close timers; the report is written.
  process.exit(0);
}
