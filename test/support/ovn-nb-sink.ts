/**
 * What the OVN NB sink's interop test and bench share: lab routes in bulk, reading a router's
 * routes back the way an operator would (`ovn-nbctl lr-route-list`), counting our marked rows
 * (`ovn-nbctl find`), and calling a target the way the SinkDriver does (retry until it takes).
 */
import { Afi } from '../../src/bgp/wire/index.js';
import type { FibRoute } from '../../src/fib/index.js';
import { RibPrefix } from '../../src/rib/index.js';
import { nbctl, sleep } from './ovsdb-lab.js';

export const NH4 = ['198.18.0.1', '198.18.0.2'] as const;
export const NH6 = ['2001:db8::1', '2001:db8::2'] as const;

/**
 * `n` routes: IPv4 /32s counted up from 198.19.0.0 and IPv6 /64s under 2001:db8:1000::/36,
 * alternating; every `ecmpEvery`-th one over both next hops of its family.
 */
export function labRoutes(
  n: number,
  opts: { ecmpEvery?: number; offset?: number; hops?: 1 | 2 } = {},
): FibRoute[] {
  const out: FibRoute[] = [];
  const base4 = ((198 << 24) | (19 << 16)) >>> 0;
  const offset = opts.offset ?? 0;
  for (let i = offset; i < offset + n; i++) {
    const v6 = i % 2 === 1;
    const ecmp = opts.ecmpEvery !== undefined && i % opts.ecmpEvery === 0;
    const hops = (v6 ? NH6 : NH4).slice(0, ecmp ? 2 : (opts.hops ?? 1));
    out.push({
      prefix: v6
        ? new RibPrefix(Afi.IPV6, 64, 0x20010db8, 0x10000000 + (i >> 1))
        : new RibPrefix(Afi.IPV4, 32, (base4 + (i >> 1)) >>> 0),
      nextHops: hops.map((address) => ({ address, afi: v6 ? Afi.IPV6 : Afi.IPV4 })),
    });
  }
  return out;
}

/** The rows a set of routes becomes: "ip_prefix nexthop", sorted (host routes without length, as nbctl). */
export function expectedRows(routes: readonly FibRoute[]): string[] {
  return routes
    .flatMap((r) => {
      const max = r.prefix.afi === Afi.IPV4 ? 32 : 128;
      const ip = r.prefix.len === max ? r.prefix.addr : `${r.prefix.addr}/${r.prefix.len}`;
      return r.nextHops.map((h) => `${ip} ${h.address}`);
    })
    .sort();
}

export interface ListedRoute {
  readonly table: string;
  readonly prefix: string;
  readonly nexthop: string;
  readonly policy: string;
  readonly ecmp: boolean;
  readonly outputPort?: string;
}

/** `ovn-nbctl lr-route-list ROUTER`, parsed line by line. */
export async function lrRouteList(db: string, router: string): Promise<ListedRoute[]> {
  const out: ListedRoute[] = [];
  let table = '';
  for (const line of (await nbctl(db, 'lr-route-list', router)).split('\n')) {
    const header = /^Route Table (.+):$/.exec(line.trim());
    if (header) {
      table = header[1];
      continue;
    }
    const cells = line.trim().split(/\s+/);
    if (cells.length < 3 || !['dst-ip', 'src-ip'].includes(cells[2])) continue;
    const rest = cells.slice(3);
    const port = rest.find((c) => c !== 'ecmp' && c !== 'ecmp-symmetric-reply');
    out.push({
      table,
      prefix: cells[0],
      nexthop: cells[1],
      policy: cells[2],
      ecmp: rest.includes('ecmp'),
      ...(port !== undefined && { outputPort: port }),
    });
  }
  return out;
}

/**
 * Our marked rows on `router`, "ip_prefix nexthop" sorted, duplicates kept (each row once).
 * `anyMember` reads a RAFT follower too (ovn-nbctl is leader-only by default).
 */
export async function markedRows(
  db: string,
  router: string,
  key: string,
  value: string,
  anyMember = false,
): Promise<string[]> {
  const any = anyMember ? ['--no-leader-only'] : [];
  const members = new Set(
    (await nbctl(db, ...any, '--bare', '--columns=static_routes', 'list', 'Logical_Router', router))
      .trim()
      .split(/\s+/),
  );
  const out = await nbctl(
    db,
    ...any,
    '--format=csv',
    '--data=bare',
    '--no-headings',
    '--columns=_uuid,ip_prefix,nexthop',
    'find',
    'Logical_Router_Static_Route',
    `external_ids:${key}=${value}`,
  );
  return out
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => l.split(','))
    .filter(([uuid]) => members.has(uuid))
    .map(([, prefix, nexthop]) => `${prefix} ${nexthop}`)
    .sort();
}

/** Rows listed more than once. */
export function duplicates(rows: readonly string[]): string[] {
  return rows.filter((r, i) => i > 0 && rows[i - 1] === r);
}

/**
 * Calls `work` until it resolves, the way SinkDriver retries a failed apply (after a back-off,
 * with the same changes); returns the errors seen. Bounded by `deadlineMs`.
 */
export async function untilApplied(
  work: () => Promise<void>,
  deadlineMs = 60_000,
  pauseMs = 100,
): Promise<Error[]> {
  const errors: Error[] = [];
  const end = Date.now() + deadlineMs;
  for (;;) {
    try {
      await work();
      return errors;
    } catch (err) {
      errors.push(err as Error);
      if (Date.now() > end)
        throw new Error(`still failing after ${deadlineMs} ms: ${(err as Error).message}`);
      await sleep(pauseMs);
    }
  }
}
