/**
 * When the seat's UPDATEs for a change left hv1 (capture.ts on hv1's eth0), so the time from
 * hv1's table to the fabric's RIB splits once more: the seat's own (table -> UPDATE out) and
 * the fabric's (UPDATE in -> its BGP table). All times are wall-clock ms; a capture covers one
 * seat, in which every prefix is added once and removed once.
 */
import type { WireLog } from './capture.js';

const min = (xs: readonly number[]) => (xs.length === 0 ? Number.NaN : Math.min(...xs));

/**
 * The first UPDATE for `prefix` after `commitWall`, ms after it: an addition's announcement,
 * or a removal's first word, whichever it is (a withdrawal, or ours marking the route with the
 * worst MED before it withdraws it: an announcement later than the addition's). NaN when the
 * capture has none.
 */
export function wireSingle(log: WireLog, prefix: string, change: 'add' | 'del', commitWall: number): number {
  const e = log.get(prefix);
  if (!e) return Number.NaN;
  const added = min(e.announced);
  if (change === 'add') return added - commitWall;
  const later = [...e.announced, ...e.withdrawn].filter((t) => !(t <= added));
  return min(later) - commitWall;
}

/**
 * For a batch: when the first and the last of `prefixes` was announced (`add`) or withdrawn
 * (`del`), ms after `commitWall`; the last is NaN when one of them never was (the capture
 * missed it), the first NaN when none was.
 */
export function wireBatch(
  log: WireLog,
  prefixes: readonly string[],
  change: 'add' | 'del',
  commitWall: number,
): { readonly first: number; readonly last: number } {
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  let missing = prefixes.length === 0;
  for (const p of prefixes) {
    const e = log.get(p);
    const t = min((change === 'add' ? e?.announced : e?.withdrawn) ?? []);
    if (Number.isNaN(t)) {
      missing = true;
      continue;
    }
    first = Math.min(first, t);
    last = Math.max(last, t);
  }
  return {
    first: Number.isFinite(first) ? first - commitWall : Number.NaN,
    last: missing ? Number.NaN : last - commitWall,
  };
}
