/**
 * One fuzz case from its seed: which kind (OPEN or UPDATE), which mutator, which captured
 * message, and the valid UPDATEs of the stream sent before it. The same seed and stream give
 * the same bytes, so a failing case can be run again alone (`--replay LANE:SEED`).
 */
import type { Stream } from './corpus.js';
import { openCase } from './mutate-open.js';
import { updateCase } from './mutate-update.js';
import type { FuzzCase } from './oracle.js';
import { Prng } from './prng.js';
import { addPathSendCap, as4Cap, CAP, mpCap, open } from './wire.js';

/** The plain OPEN a fuzz peer sends for its UPDATE cases: the context its stream was captured in. */
export function plainOpen(stream: Stream, id: string, holdTime: number): Buffer {
  const afis = [stream.addPath.v4 && 1, stream.addPath.v6 && 2].filter((x): x is number => x !== false);
  return open({
    as: stream.as,
    holdTime,
    id,
    caps: [
      mpCap(1),
      mpCap(2),
      { code: CAP.ROUTE_REFRESH, value: Buffer.alloc(0) },
      ...(stream.as4 ? [as4Cap(stream.as)] : []),
      ...(afis.length ? [addPathSendCap(afis)] : []),
    ],
  });
}

export interface PlannedCase extends FuzzCase {
  readonly seed: number;
  /** Valid UPDATEs of the stream sent first (UPDATE cases only). */
  readonly before: readonly Buffer[];
}

export function caseFor(
  seed: number,
  stream: Stream,
  o: { readonly openShare: number; readonly plain: Buffer },
): PlannedCase | undefined {
  const rng = new Prng(seed);
  if (rng.chance(o.openShare)) {
    const base = rng.chance(0.5) ? stream.open : o.plain;
    const c = openCase(base, stream.as, rng);
    return c && { ...c, seed, before: [] };
  }
  const start = rng.int(0, stream.updates.length - 1);
  const before = stream.updates.slice(start, start + rng.int(0, 2));
  const c = updateCase(stream, rng);
  return c && { ...c, seed, before };
}
