import { BmpDefaults } from '../bmp/index.js';
import { ipAddress } from './addresses.js';
import { BMP_ROUTE_MONITORING, U32_MAX } from './constants.js';
import { type Decoded, integer, list, object, oneOf, optional, required } from './decoders.js';

const DAY_SECONDS = 86_400;
const HOUR_MS = 3_600_000;

const routeMonitoring = optional(
  oneOf(BMP_ROUTE_MONITORING),
  "Adj-RIB-In views sent as Route Monitoring: before import policy, after it (the L flag), or both; as FRR's `bmp monitor ... pre-policy|post-policy`.",
  BmpDefaults.ROUTE_MONITORING,
);
const statisticsInterval = optional(
  integer(0, DAY_SECONDS),
  "Seconds between Statistics Reports per peer; 0: none (FRR's `bmp stats interval`, in seconds here).",
  String(BmpDefaults.STATISTICS_INTERVAL),
);

const collector = object('a mapping with address', {
  address: required(ipAddress(), 'The collector (we connect to it, RFC 7854 section 3.2).'),
  port: optional(integer(1, 65535), 'Its TCP port.', String(BmpDefaults.PORT)),
  route_monitoring: optional(
    oneOf(BMP_ROUTE_MONITORING),
    'This collector only: overrides bmp.route_monitoring.',
  ),
  statistics_interval: optional(
    integer(0, DAY_SECONDS),
    'This collector only: overrides bmp.statistics_interval.',
  ),
  min_retry_ms: optional(
    integer(100, HOUR_MS),
    'First wait before connecting again; it doubles per failure (FRR: min-retry).',
    String(BmpDefaults.MIN_RETRY_MS),
  ),
  max_retry_ms: optional(
    integer(100, HOUR_MS),
    'Longest wait between attempts (FRR: max-retry).',
    String(BmpDefaults.MAX_RETRY_MS),
  ),
});

export const bmpFields = {
  collectors: required(list(collector, { expected: 'a list of collectors' }), 'BMP collectors to send to.'),
  route_monitoring: routeMonitoring,
  statistics_interval: statisticsInterval,
  buffer_limit: optional(
    integer(65_536, U32_MAX),
    'Bytes waiting for one collector beyond which its queue is dropped and the state sent afresh on a new connection.',
    String(BmpDefaults.BUFFER_LIMIT),
  ),
} as const;
export type RawBmp = Decoded<typeof bmpFields>;
