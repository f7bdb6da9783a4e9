/**
 * FRR 10.3 and BIRD 3.1 run from the trixie root. The benchmark makes sure it exists
 * (`scripts/trixie-root.sh ensure` builds it on a machine that has none); where that fails,
 * outside CI, it measures the others and says why two are missing. In CI it fails instead, so a
 * run never passes with half its comparisons quietly gone.
 */
import { DaemonRoot } from '../../frr-interop/lab/index.js';
import { type Impl, needsTrixie } from './bench-lab.js';
import { labelOf } from './report.js';

export interface TrixieCheck {
  /** Resolves once the root is there (built if need be). */
  readonly ensure: () => Promise<unknown>;
  readonly ci: boolean;
  readonly log: (line: string) => void;
}

const defaults: TrixieCheck = {
  ensure: () => DaemonRoot.trixie(),
  ci: Boolean(process.env.CI),
  log: (line) => console.log(line),
};

/** `only` as it can be measured here: without the trixie implementations when the root cannot be had. */
export async function withTrixieRoot(
  only: readonly Impl[],
  check: TrixieCheck = defaults,
): Promise<readonly Impl[]> {
  if (!only.some(needsTrixie)) return only;
  try {
    await check.ensure();
    return only;
  } catch (e) {
    if (check.ci) throw e;
    const skipped = only.filter(needsTrixie).map(labelOf).join(' and ');
    const why = (e instanceof Error ? e.message : String(e)).split('\n')[0];
    check.log(`skipping ${skipped}: no trixie root (scripts/trixie-root.sh ensure failed: ${why})`);
    return only.filter((i) => !needsTrixie(i));
  }
}
