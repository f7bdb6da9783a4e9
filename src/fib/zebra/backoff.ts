/** Reconnect back-off: exponential, capped, with jitter so restarted clients do not stampede zebra. */
export interface BackoffOptions {
  /** The first delay, ms. */
  readonly initialMs: number;
  /** The cap, ms: no delay is ever longer. */
  readonly maxMs: number;
  /** Fraction (0..1) taken off at random: a delay lies in [d * (1 - jitter), d]. */
  readonly jitter: number;
}

/** The delay before reconnect attempt `attempt` (0 for the first retry after a loss). */
export function backoffDelay(attempt: number, opts: BackoffOptions, random: () => number): number {
  // 2^attempt overflows to Infinity past ~1024; the cap handles it, min() keeps it finite.
  const base = Math.min(opts.maxMs, opts.initialMs * 2 ** Math.max(0, attempt));
  const jitter = Math.min(1, Math.max(0, opts.jitter));
  return Math.max(0, Math.round(base * (1 - jitter * random())));
}
