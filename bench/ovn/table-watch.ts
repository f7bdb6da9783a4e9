/**
 * The third clock of an OVN 25.03 sample: when ovn-controller's route reached the chassis'
 * kernel table, so a latency splits into OVN's share (commit -> northd -> ovn-controller ->
 * table) and the share of whoever reads the table (our speaker, or FRR's zebra and bgpd).
 *
 * `ip -ts -n NS monitor route` in a child process: the kernel sends each route change to every
 * listening socket at once, so the instant `ip` read it is the instant the reader under test
 * could have seen it. That instant is `ip`'s timestamp on the line (wall clock, as a capture's),
 * not the line's arrival here: on two loaded cores this process's event loop, busy reading the
 * fabric's vty every millisecond, takes the line up to tens of milliseconds later. A dump would cost the two cores tens of
 * milliseconds per look at 10,000 routes; the monitor costs a line per change. Should the
 * monitor lose notifications (its socket overran: `ip` says so on stderr), counts come from
 * dumps instead, which `lost` tells.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { run } from '../../frr-interop/lab/index.js';

/** ovn-controller's routes (RTPROT_OVN). */
export const PROTO_OVN = 84;
/** The monitor's socket buffer: a burst of 10,000 routes stays within it. */
const RCVBUF = 64 << 20;
const READY_MS = 10_000;
/** The monitor's scheduling priority (root may go below 0). */
const NICE = -15;
const DUMP_POLL_MS = 50;
/** The readiness probe: a route in a table nobody reads, from the benchmark's own range. */
const PROBE = { prefix: '198.18.175.254/32', table: 4242 } as const;
const ROUTE_TYPES = new Set(['unicast', 'blackhole', 'unreachable', 'prohibit', 'local', 'throw']);

interface Waiter {
  /** Whether the change just applied (`add PREFIX` or `del PREFIX`), leaving `count` prefixes, is the one awaited. */
  readonly done: (count: number, change: string) => boolean;
  readonly resolve: (at: number) => void;
}

/**
 * `[2026-12-06T23:06:21.819654] rest` as `ip -ts` prints it under TZ=UTC: its wall-clock ms
 * and the rest; NaN when the line has no timestamp.
 */
export function splitStamp(line: string): { readonly wallMs: number; readonly line: string } {
  const m = /^\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d+)?\]\s*/.exec(line);
  if (!m) return { wallMs: Number.NaN, line };
  return {
    wallMs: Date.parse(`${m[1]}Z`) + Number(m[2] ?? 0) * 1000,
    line: line.slice(m[0].length),
  };
}

/** One line of `ip monitor route`, or null when it is not a route of `table` from `proto`. */
export function parseMonitorLine(
  line: string,
  table: number,
  proto: number,
): { readonly prefix: string; readonly deleted: boolean } | null {
  const t = line.trim().split(/\s+/);
  const deleted = t[0] === 'Deleted';
  if (deleted) t.shift();
  if (ROUTE_TYPES.has(t[0] ?? '')) t.shift();
  const at = (key: string) => (t.includes(key) ? t[t.indexOf(key) + 1] : undefined);
  if (at('table') !== String(table) || at('proto') !== String(proto)) return null;
  const p = t[0] ?? '';
  return { prefix: p.includes('/') ? p : `${p}/${p.includes(':') ? 128 : 32}`, deleted };
}

export class TableWatch {
  readonly ns: string;
  readonly table: number;
  readonly #child: ChildProcess;
  /** Routes of the table per prefix (a prefix moving metric is deleted and added). */
  readonly #routes = new Map<string, number>();
  #waiters: Waiter[] = [];
  #partial = '';
  #lost = false;
  #probeSeen: (() => void) | undefined;

  private constructor(ns: string, table: number) {
    this.ns = ns;
    this.table = table;
    // Niced up: on cores shared with the daemons under test, an observer woken as late as they
    // are would see a route after the fabric has it; its CPU is a line per change.
    this.#child = spawn(
      'nice',
      ['-n', String(NICE), 'ip', '-ts', '-n', ns, '-rcvbuf', String(RCVBUF), 'monitor', 'route'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        // The timestamps are local time without a zone.
        env: { ...process.env, TZ: 'UTC' },
      },
    );
    this.#child.on('error', () => {
      this.#lost = true;
    });
    this.#child.stdout?.setEncoding('utf8').on('data', (d: string) => this.#onData(d));
    this.#child.stderr?.setEncoding('utf8').on('data', () => {
      // "netlink receive error No buffer space available": notifications were dropped.
      this.#lost = true;
    });
  }

  /** Starts the monitor, waits until it hears changes, then reads the table once. */
  static async start(ns: string, table: number): Promise<TableWatch> {
    const w = new TableWatch(ns, table);
    try {
      await w.#ready();
      for (const prefix of await dumpTable(ns, table))
        w.#routes.set(prefix, (w.#routes.get(prefix) ?? 0) + 1);
    } catch (e) {
      w.close();
      throw e;
    }
    return w;
  }

  /** Notifications were lost: counts are read from dumps from now on. */
  get lost(): boolean {
    return this.#lost;
  }

  /** Prefixes the table holds now, as far as the monitor knows. */
  get count(): number {
    return this.#routes.size;
  }

  /** performance.now() of the first notification after this call that adds (removes) `prefix`. */
  arm(prefix: string, change: 'add' | 'del'): Promise<number> {
    return this.#wait((_, hit) => hit === `${change} ${prefix}`);
  }

  /**
   * performance.now() when the table first held `count` prefixes or more (`add`), or that
   * many or fewer (`del`); from dumps every 50 ms once notifications have been lost.
   */
  async waitCount(count: number, change: 'add' | 'del', timeoutMs: number): Promise<number> {
    const ok = (n: number) => (change === 'add' ? n >= count : n <= count);
    const end = performance.now() + timeoutMs;
    if (ok(this.count) && !this.#lost) return performance.now();
    const byMonitor = this.#wait((n) => ok(n));
    for (;;) {
      const at = await Promise.race([byMonitor, sleep(DUMP_POLL_MS).then(() => undefined)]);
      if (at !== undefined) return at;
      if (this.#lost) {
        const n = new Set(await dumpTable(this.ns, this.table)).size;
        if (ok(n)) return performance.now();
      }
      if (performance.now() > end)
        throw new Error(`table ${this.table} in ${this.ns}: ${this.count} prefixes, not ${count}`);
    }
  }

  close(): void {
    this.#child.kill();
    for (const w of this.#waiters) w.resolve(Number.NaN);
    this.#waiters = [];
  }

  #wait(done: Waiter['done']): Promise<number> {
    return new Promise((resolve) => {
      this.#waiters.push({ done, resolve });
    });
  }

  #onData(d: string): void {
    const arrived = performance.now();
    const lines = (this.#partial + d).split('\n');
    this.#partial = lines.pop() ?? '';
    for (const stamped of lines) {
      const { wallMs, line } = splitStamp(stamped);
      const at = Number.isNaN(wallMs) ? arrived : wallMs - wallOffset();
      if (line.includes(PROBE.prefix.replace('/32', '')) && line.includes(`table ${PROBE.table}`))
        this.#probeSeen?.();
      const r = parseMonitorLine(line, this.table, PROTO_OVN);
      if (!r) continue;
      const n = (this.#routes.get(r.prefix) ?? 0) + (r.deleted ? -1 : 1);
      if (n > 0) this.#routes.set(r.prefix, n);
      else this.#routes.delete(r.prefix);
      const change = `${r.deleted ? 'del' : 'add'} ${r.prefix}`;
      this.#waiters = this.#waiters.filter((w) => {
        if (!w.done(this.#routes.size, change)) return true;
        w.resolve(at);
        return false;
      });
    }
  }

  async #ready(): Promise<void> {
    const seen = new Promise<void>((resolve) => {
      this.#probeSeen = resolve;
    });
    const route = ['blackhole', PROBE.prefix, 'table', String(PROBE.table)];
    const end = performance.now() + READY_MS;
    try {
      // The monitor's socket is bound some time after the spawn: add the probe until it is heard.
      for (;;) {
        await run(['ip', '-n', this.ns, 'route', 'replace', ...route]);
        if (await Promise.race([seen.then(() => true), sleep(100).then(() => false)])) return;
        if (performance.now() > end) throw new Error(`ip monitor in ${this.ns} heard nothing`);
        await run(['ip', '-n', this.ns, 'route', 'del', ...route]);
      }
    } finally {
      this.#probeSeen = undefined;
      await run(['ip', '-n', this.ns, 'route', 'del', ...route]).catch(() => undefined);
    }
  }
}

/**
 * Wall clock minus performance.now(), read now: performance.timeOrigin + now() drifts from
 * the wall clock (tens of ppm here, a millisecond a minute), so a benchmark of tens of minutes
 * must not convert with the offset of its start.
 */
export const wallOffset = (): number => Date.now() - performance.now();

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** The prefixes of ovn-controller's routes in `table`, both families, one per route (a dump names no table). */
async function dumpTable(ns: string, table: number): Promise<string[]> {
  const out: string[] = [];
  for (const family of ['-4', '-6']) {
    const text = await run(['ip', '-n', ns, family, 'route', 'show', 'table', String(table)]).catch(() => '');
    for (const line of text.split('\n')) {
      const r = line.trim() === '' ? null : parseMonitorLine(`${line} table ${table}`, table, PROTO_OVN);
      if (r) out.push(r.prefix);
    }
  }
  return out;
}
