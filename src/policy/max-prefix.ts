import { afiName, CeaseSubcode, ErrorCode, safiName } from '../bgp/wire/index.js';
import { MAX_PREFIX_DATA_LENGTH, PERCENT, PolicyDefaults, U32_MAX } from './constants.js';
import { checkInteger, PolicyError } from './errors.js';

export interface MaxPrefixConfig {
  /** Prefixes accepted from the peer in this family before the limit is exceeded (count > limit). */
  readonly limit: number;
  /** Log instead of closing the session. */
  readonly warningOnly?: boolean;
  /** Warn once the count exceeds this share of the limit; default 75. */
  readonly warningThresholdPercent?: number;
  /** After a Cease, start the session again this long after; absent: stay down until reset. */
  readonly restartAfterSeconds?: number;
}

export interface MaxPrefixFamily {
  readonly afi: number;
  readonly safi: number;
}

export interface MaxPrefixState {
  /** The threshold warning was given and the count has not dropped back since. */
  readonly thresholdWarned: boolean;
  /** The limit was exceeded (warned in warning-only mode) and the count has not dropped back since. */
  readonly limitExceeded: boolean;
  /** A Cease was asked for: nothing more until the session starts afresh. */
  readonly ceased: boolean;
}

export const INITIAL_MAX_PREFIX_STATE: MaxPrefixState = Object.freeze({
  thresholdWarned: false,
  limitExceeded: false,
  ceased: false,
});

export type MaxPrefixAction =
  | { readonly type: 'none' }
  | {
      readonly type: 'warn';
      readonly reason: 'threshold' | 'limit';
      readonly count: number;
      readonly limit: number;
      /** For the log. */
      readonly message: string;
    }
  | {
      readonly type: 'cease';
      /** RFC 4486: Cease / Maximum Number of Prefixes Reached, data AFI(2) SAFI(1) limit(4). */
      readonly code: typeof ErrorCode.CEASE;
      readonly subcode: typeof CeaseSubcode.MAXIMUM_NUMBER_OF_PREFIXES_REACHED;
      readonly data: Uint8Array;
      readonly count: number;
      readonly limit: number;
      /** When to start the session again, if configured. */
      readonly restartAfterSeconds?: number;
      readonly message: string;
    };

const NONE: MaxPrefixAction = Object.freeze({ type: 'none' });

/** Checks a max-prefix configuration; throws PolicyError naming the field. */
export function checkMaxPrefixConfig(config: MaxPrefixConfig, path = 'maxPrefix'): MaxPrefixConfig {
  if (!config || typeof config !== 'object')
    throw new PolicyError('invalid-value', path, 'expected {limit, ...}');
  checkInteger(config.limit, 1, U32_MAX, `${path}.limit`);
  if (config.warningThresholdPercent !== undefined)
    checkInteger(config.warningThresholdPercent, 1, PERCENT, `${path}.warningThresholdPercent`);
  if (config.restartAfterSeconds !== undefined)
    checkInteger(config.restartAfterSeconds, 1, U32_MAX, `${path}.restartAfterSeconds`);
  if (config.warningOnly !== undefined && typeof config.warningOnly !== 'boolean')
    throw new PolicyError('invalid-value', `${path}.warningOnly`, 'expected true or false');
  return config;
}

/** RFC 4486 section 4: the Cease/1 data, AFI(2) SAFI(1) prefix upper bound(4). */
export function maxPrefixData(family: MaxPrefixFamily, limit: number): Uint8Array {
  const data = new Uint8Array(MAX_PREFIX_DATA_LENGTH);
  const view = new DataView(data.buffer);
  view.setUint16(0, family.afi);
  view.setUint8(2, family.safi);
  view.setUint32(3, limit);
  return data;
}

function familyText(family: MaxPrefixFamily): string {
  return `${afiName[family.afi] ?? family.afi} ${safiName[family.safi] ?? family.safi}`;
}

/**
 * One step of the max-prefix machine for a peer and family: the accepted-prefix count changed
 * to `count`. As FRR (bgp_maximum_prefix_overflow): exceeding the limit means count > limit;
 * the threshold warning comes once when count exceeds limit x percent / 100 and again only
 * after the count fell back under it; in warning-only mode exceeding the limit warns in the
 * same way, otherwise it asks for a Cease (and a restart timer when configured). Pure.
 */
export function stepMaxPrefix(
  config: MaxPrefixConfig,
  family: MaxPrefixFamily,
  state: MaxPrefixState,
  count: number,
): { readonly state: MaxPrefixState; readonly action: MaxPrefixAction } {
  if (state.ceased) return { state, action: NONE };
  const { limit } = config;
  const percent = config.warningThresholdPercent ?? PolicyDefaults.WARNING_THRESHOLD_PERCENT;
  const what = familyText(family);
  if (count > limit) {
    if (state.limitExceeded) return { state, action: NONE };
    const exceeded = `${count} ${what} prefixes exceed the limit of ${limit}`;
    if (config.warningOnly) {
      return {
        state: { thresholdWarned: true, limitExceeded: true, ceased: false },
        action: { type: 'warn', reason: 'limit', count, limit, message: `${exceeded} (warning only)` },
      };
    }
    const restart = config.restartAfterSeconds;
    return {
      state: { thresholdWarned: true, limitExceeded: true, ceased: true },
      action: {
        type: 'cease',
        code: ErrorCode.CEASE,
        subcode: CeaseSubcode.MAXIMUM_NUMBER_OF_PREFIXES_REACHED,
        data: maxPrefixData(family, limit),
        count,
        limit,
        ...(restart === undefined ? {} : { restartAfterSeconds: restart }),
        message: `${exceeded}: closing the session (RFC 4486 Cease/1)${
          restart === undefined ? '' : `, restart in ${restart} s`
        }`,
      },
    };
  }
  const threshold = Math.floor((limit * percent) / PERCENT);
  if (count > threshold) {
    if (state.thresholdWarned) return { state: { ...state, limitExceeded: false }, action: NONE };
    return {
      state: { thresholdWarned: true, limitExceeded: false, ceased: false },
      action: {
        type: 'warn',
        reason: 'threshold',
        count,
        limit,
        message: `${count} ${what} prefixes exceed ${percent}% of the limit of ${limit}`,
      },
    };
  }
  if (!state.thresholdWarned && !state.limitExceeded) return { state, action: NONE };
  return { state: INITIAL_MAX_PREFIX_STATE, action: NONE };
}

/** The machine for one peer and family, holding its state between counts. */
export class MaxPrefixGuard {
  readonly config: MaxPrefixConfig;
  readonly family: MaxPrefixFamily;
  private current: MaxPrefixState = INITIAL_MAX_PREFIX_STATE;

  constructor(config: MaxPrefixConfig, family: MaxPrefixFamily) {
    this.config = checkMaxPrefixConfig(config);
    this.family = family;
  }

  get state(): MaxPrefixState {
    return this.current;
  }

  /** The accepted-prefix count is now `count`: what to do about it. */
  update(count: number): MaxPrefixAction {
    const r = stepMaxPrefix(this.config, this.family, this.current, count);
    this.current = r.state;
    return r.action;
  }

  /** The session starts afresh (after a restart or a manual clear). */
  reset(): void {
    this.current = INITIAL_MAX_PREFIX_STATE;
  }
}
