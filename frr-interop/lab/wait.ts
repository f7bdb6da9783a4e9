import { LabError, type LabErrorKind } from './errors.js';

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export interface WaitOptions {
  readonly timeoutMs: number;
  readonly intervalMs: number;
  /** Named in the timeout error: "<what> not reached within N ms". */
  readonly what: string;
  readonly kind?: LabErrorKind;
}

/**
 * Polls `probe` until it returns a value other than undefined, at most until the deadline.
 * A probe that throws counts as "not yet" (daemons refuse connections while they start);
 * the last error is quoted when the wait gives up.
 */
export async function waitFor<T>(probe: () => Promise<T | undefined>, opts: WaitOptions): Promise<T> {
  const deadline = Date.now() + opts.timeoutMs;
  let lastError = '';
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (e) {
      if (e instanceof LabError && e.kind === 'daemon-exited') throw e;
      lastError = e instanceof Error ? e.message : String(e);
    }
    if (Date.now() >= deadline) {
      const tail = lastError ? ` (last error: ${lastError})` : '';
      throw new LabError(
        opts.kind ?? 'wait-timeout',
        `${opts.what} not reached within ${opts.timeoutMs} ms${tail}`,
      );
    }
    await sleep(Math.min(opts.intervalMs, Math.max(0, deadline - Date.now())));
  }
}
