import { Afi, type AfiCode, Safi } from '../bgp/wire/index.js';
import type { Clock } from '../components/index.js';
import type { MaxPrefixes } from '../config/index.js';
import { type MaxPrefixAction, type MaxPrefixConfig, MaxPrefixGuard } from '../policy/index.js';
import { MS_PER_SECOND } from './constants.js';

type Cease = Extract<MaxPrefixAction, { type: 'cease' }>;

/** What a max-prefix watch needs: timers for the restart, and what to do on each outcome. */
export interface MaxPrefixWatchComponents {
  readonly clock: Clock;
  /** Over the warning threshold, or over the limit with warning_only. */
  readonly warn: (action: Extract<MaxPrefixAction, { type: 'warn' }>) => void;
  /** Over the limit: stop the session (RFC 4486 Cease, Maximum Number of Prefixes Reached). */
  readonly stop: (action: Cease) => void;
  /** The restart timer after a stop expired: start the session again. */
  readonly restart: (afterSeconds: number) => void;
}

const FAMILIES: readonly AfiCode[] = [Afi.IPV4, Afi.IPV6];

/** The configuration's max-prefix setting as the guard takes it (restart_after 0: stay down). */
export function maxPrefixConfig(m: MaxPrefixes): MaxPrefixConfig {
  return {
    limit: m.limit,
    warningOnly: m.warningOnly,
    warningThresholdPercent: m.warningThreshold,
    ...(m.restartAfter > 0 && { restartAfterSeconds: m.restartAfter }),
  };
}

/**
 * Max-prefix for one peer: a guard per family over the accepted count, and the restart timer
 * after a stop (FRR's `maximum-prefix N restart M`).
 */
export class MaxPrefixWatch {
  readonly #c: MaxPrefixWatchComponents;
  #guards = new Map<AfiCode, MaxPrefixGuard>();
  #restartTimer: unknown = null;

  constructor(config: MaxPrefixConfig | undefined, components: MaxPrefixWatchComponents) {
    this.#c = components;
    this.setLimit(config);
  }

  get active(): boolean {
    return this.#guards.size > 0;
  }

  /** New settings (a reload): fresh guards, nothing counted yet. */
  setLimit(config: MaxPrefixConfig | undefined): void {
    this.#guards = new Map();
    if (!config) return;
    for (const afi of FAMILIES)
      this.#guards.set(afi, new MaxPrefixGuard(config, { afi, safi: Safi.UNICAST }));
  }

  /** A new session: counting starts again. */
  reset(): void {
    for (const g of this.#guards.values()) g.reset();
  }

  /** The peer now has `accepted` prefixes of `afi` in the RIB. */
  check(afi: AfiCode, accepted: number): void {
    const guard = this.#guards.get(afi);
    if (!guard) return;
    const action = guard.update(accepted);
    if (action.type === 'warn') this.#c.warn(action);
    else if (action.type === 'cease') {
      this.#c.stop(action);
      const after = action.restartAfterSeconds;
      if (after === undefined) return;
      this.cancelRestart();
      this.#restartTimer = this.#c.clock.setTimeout(() => {
        this.#restartTimer = null;
        this.#c.restart(after);
      }, after * MS_PER_SECOND);
    }
  }

  cancelRestart(): void {
    if (this.#restartTimer !== null) this.#c.clock.clearTimeout(this.#restartTimer);
    this.#restartTimer = null;
  }
}
