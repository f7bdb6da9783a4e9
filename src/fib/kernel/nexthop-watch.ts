import { maskIpv4, maskWord, parseIpv4, parseIpv6 } from '../../address/index.js';
import { Afi } from '../../bgp/wire/index.js';
import type { Clock, TimerHandle } from '../../components/index.js';
import type { RibPrefix } from '../../rib/index.js';
import type { FibChange, FibNextHop, FibRoute } from '../route.js';
import { RtTable } from './constants.js';
import type { Wanted } from './plan.js';
import { nextHopKey } from './resolve.js';
import type { KernelRoute } from './route-message.js';

interface Watched {
  readonly afi: number;
  readonly words: Uint32Array;
}

/**
 * Next-hop tracking, as zebra does it for bgpd: a route somebody else adds, replaces or
 * deletes can change how a BGP next hop resolves when its prefix covers that next hop (a
 * more specific route appears, the covering one goes or gets other gateways). Such addresses
 * are gathered for a short quiet time, so a burst of IGP changes costs one new lookup each,
 * then handed to `due`. Other route changes cannot change a lookup and are ignored.
 *
 * The tables worth hearing of are the main table (a lookup that found nothing may find a
 * route there later) and every table a lookup answered from (policy routing).
 */
export class NextHopWatch {
  readonly #clock: Clock;
  readonly #delayMs: number;
  readonly #due: (addresses: string[]) => void;
  #watched = new Map<string, Watched>();
  #tables = new Set<number>([RtTable.MAIN]);
  #pending = new Set<string>();
  #timer: TimerHandle;
  #closed = false;

  constructor(clock: Clock, delayMs: number, due: (addresses: string[]) => void) {
    this.#clock = clock;
    this.#delayMs = delayMs;
    this.#due = due;
  }

  /** The next hops to watch and the tables their lookups answered from; replaces the last set. */
  watch(addresses: Iterable<string>, tables: Iterable<number>): void {
    const watched = new Map<string, Watched>();
    for (const a of addresses) watched.set(a, this.#watched.get(a) ?? parse(a));
    this.#watched = watched;
    this.#tables = new Set([RtTable.MAIN, ...tables]);
  }

  /** Whether route changes in `table` can matter (the monitor decodes only those and our own table's). */
  watches(table: number): boolean {
    return this.#tables.has(table);
  }

  /** A route somebody else changed: the next hops it covers are looked up again after the quiet time. */
  note(route: KernelRoute): void {
    if (this.#closed || !this.#tables.has(route.table)) return;
    let hit = false;
    for (const [address, w] of this.#watched)
      if (covers(route.prefix, w)) {
        this.#pending.add(address);
        hit = true;
      }
    if (!hit || this.#timer !== undefined) return;
    // Writes are owed to the kernel once it fires: it holds the process like a request in flight.
    this.#timer = this.#clock.setTimeout(
      () => {
        this.#timer = undefined;
        const due = [...this.#pending];
        this.#pending.clear();
        if (!this.#closed && due.length > 0) this.#due(due);
      },
      this.#delayMs,
      { keepAlive: true },
    );
  }

  close(): void {
    this.#closed = true;
    this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

function parse(key: string): Watched {
  // A link-local next hop's key carries its interface (nextHopKey); the address is before '%'.
  const address = key.split('%')[0];
  return address.includes(':')
    ? { afi: Afi.IPV6, words: parseIpv6(address) }
    : { afi: Afi.IPV4, words: Uint32Array.of(parseIpv4(address)) };
}

/** Whether the prefix holds the address (IPv4 in IPv4, IPv6 in IPv6). */
function covers(p: RibPrefix, w: Watched): boolean {
  if (p.afi !== w.afi) return false;
  if (p.afi === Afi.IPV4) return maskIpv4(w.words[0], p.len) === p.w0;
  return (
    maskWord(w.words[0], 0, p.len) === p.w0 &&
    maskWord(w.words[1], 1, p.len) === p.w1 &&
    maskWord(w.words[2], 2, p.len) === p.w2 &&
    maskWord(w.words[3], 3, p.len) === p.w3
  );
}

/**
 * Every route to plan again once the next hops in `moved` resolve otherwise: the installed
 * routes over one of them and the problems that carry a route over one (failed ones). Routes share next-hop lists,
 * so each list is checked once.
 */
export function routesOver(
  moved: ReadonlySet<string>,
  installed: Iterable<Wanted>,
  problems: Iterable<{ readonly route?: FibRoute }>,
): FibChange[] {
  const verdicts = new Map<readonly FibNextHop[], boolean>();
  const affected = (hops: readonly FibNextHop[]) => {
    const known = verdicts.get(hops);
    if (known !== undefined) return known;
    const v = hops.some((h) => moved.has(nextHopKey(h)));
    verdicts.set(hops, v);
    return v;
  };
  const changes: FibChange[] = [];
  for (const w of installed)
    if (w.hops && affected(w.hops))
      changes.push({ kind: 'add', route: { prefix: w.prefix, nextHops: w.hops } });
  for (const p of problems)
    if (p.route && affected(p.route.nextHops)) changes.push({ kind: 'add', route: p.route });
  return changes;
}
