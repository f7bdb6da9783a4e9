import { HEALTH_PEER_KEYWORDS, HEALTH_SINK_NAME, HealthDefaults } from './constants.js';
import {
  boolean,
  either,
  integer,
  isList,
  isString,
  list,
  object,
  optional,
  scalar,
  text,
} from './decoders.js';
import { name } from './values.js';

/** `peers`: a keyword, or the peers that must be Established, by name. */
const PEERS_EXPECTED = `one of ${HEALTH_PEER_KEYWORDS.join(', ')}, or a list of peer names`;
const readyPeers = either<'none' | 'any' | 'all' | readonly string[]>(PEERS_EXPECTED, [
  {
    when: isString,
    decoder: scalar(PEERS_EXPECTED, (v, bad) =>
      HEALTH_PEER_KEYWORDS.includes(v as 'all') ? (v as (typeof HEALTH_PEER_KEYWORDS)[number]) : bad(),
    ),
  },
  { when: isList, decoder: list(name, { key: String, expected: 'a list of peer names' }) },
]);

/** `sinks`: all, or sinks by the name `show sinks` prints. */
const SINKS_EXPECTED = 'all, or a list of sink names';
const readySinks = either<'all' | readonly string[]>(SINKS_EXPECTED, [
  { when: isString, decoder: scalar(SINKS_EXPECTED, (v, bad) => (v === 'all' ? 'all' : bad())) },
  {
    when: isList,
    decoder: list(
      text({ expected: 'a sink name (kernel, zebra, ovn-nb, ovn-table NAME)', pattern: HEALTH_SINK_NAME }),
      {
        key: String,
        expected: 'a list of sink names',
      },
    ),
  },
]);

export const healthFields = {
  stall_ms: optional(
    integer(HealthDefaults.minStallMs, HealthDefaults.maxStallMs),
    'An event-loop turn this many milliseconds late is a stall: /healthz answers 503.',
    String(HealthDefaults.stallMs),
  ),
  stall_window: optional(
    integer(1, HealthDefaults.maxStallWindow),
    'Seconds /healthz keeps reporting a stall after the loop turns again.',
    String(HealthDefaults.stallWindow),
  ),
  ready_requires: optional(
    object('a mapping of ovn, sinks and peers', {
      ovn: optional(
        boolean,
        'Ready only once OVN (NB and SB) is synced and every ovn_route_tables table is followed, as configured.',
        'true',
      ),
      sinks: optional(readySinks, 'Sinks that must be in sync with the RIB: all, or names.', 'all'),
      peers: optional(
        readyPeers,
        'Sessions that must be Established: none, any, all (peers not shut down), or names.',
        'none',
      ),
    }),
    'What /readyz requires besides a started speaker.',
  ),
} as const;
