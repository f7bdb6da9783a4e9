import { BfdDefaults } from '../bfd/index.js';
import {
  boolean,
  type Decoded,
  dictionary,
  either,
  integer,
  isBoolean,
  isMapping,
  isString,
  map,
  object,
  optional,
} from './decoders.js';
import { name } from './values.js';

/*
 * BFD settings (RFC 5880): a peer's `bfd` (true, a profile name or the timers) and the
 * `bfd_profiles` section, as FRR's `neighbor X bfd [profile NAME]` and `bfd profile NAME`.
 */

const interval = integer(
  BfdDefaults.MIN_INTERVAL_MS,
  BfdDefaults.MAX_INTERVAL_MS,
  `milliseconds ${BfdDefaults.MIN_INTERVAL_MS}..${BfdDefaults.MAX_INTERVAL_MS}`,
);

const timerFields = {
  min_rx: optional(
    interval,
    "Required Min RX Interval: the fastest we take the peer's packets (FRR receive-interval).",
    String(BfdDefaults.minRxMs),
  ),
  min_tx: optional(
    interval,
    'Desired Min TX Interval once Up (FRR transmit-interval); 1 s while not Up (RFC 5880 6.8.3).',
    String(BfdDefaults.minTxMs),
  ),
  multiplier: optional(
    integer(
      BfdDefaults.MIN_MULTIPLIER,
      BfdDefaults.MAX_MULTIPLIER,
      `a count ${BfdDefaults.MIN_MULTIPLIER}..${BfdDefaults.MAX_MULTIPLIER}`,
    ),
    'Detect Mult: packets the peer may miss; its detection time is this times the agreed interval.',
    String(BfdDefaults.multiplier),
  ),
} as const;

const timers = object('a mapping of BFD timers', timerFields);
export type RawBfdTimers = Decoded<typeof timerFields>;

/** What a peer's `bfd` says before profiles are looked up. */
export type RawPeerBfd =
  | { readonly kind: 'off' }
  | { readonly kind: 'defaults' }
  | { readonly kind: 'profile'; readonly profile: string }
  | { readonly kind: 'timers'; readonly timers: RawBfdTimers };

export const peerBfd = either<RawPeerBfd>('true, false, a bfd_profiles name or a mapping of BFD timers', [
  {
    when: isBoolean,
    decoder: map(boolean, (on): RawPeerBfd => (on ? { kind: 'defaults' } : { kind: 'off' })),
  },
  { when: isString, decoder: map(name, (profile) => ({ kind: 'profile', profile }) as const) },
  { when: isMapping, decoder: map(timers, (t) => ({ kind: 'timers', timers: t }) as const) },
]);

export const bfdProfiles = dictionary('a mapping of BFD profile names to timers', name, timers);
