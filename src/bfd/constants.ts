/**
 * BFD numbers as RFC 5880, RFC 5881 and RFC 5883 spell them, and the defaults a session takes
 * when the configuration leaves a value out (FRR bfdd's: 300 ms, 300 ms, 3).
 */

/** RFC 5880 section 4.1: the Sta field. */
export const BfdState = {
  AdminDown: 0,
  Down: 1,
  Init: 2,
  Up: 3,
} as const;
export type BfdStateCode = (typeof BfdState)[keyof typeof BfdState];
export type BfdStateName = keyof typeof BfdState;

/** The names of the states by their code, for logs and `show`. */
export const STATE_NAMES: readonly BfdStateName[] = ['AdminDown', 'Down', 'Init', 'Up'];

/** RFC 5880 section 4.1: the Diag field (IANA "BFD Diagnostic Codes"). */
export const BfdDiag = {
  NO_DIAGNOSTIC: 0,
  CONTROL_DETECTION_TIME_EXPIRED: 1,
  ECHO_FUNCTION_FAILED: 2,
  NEIGHBOR_SIGNALED_SESSION_DOWN: 3,
  FORWARDING_PLANE_RESET: 4,
  PATH_DOWN: 5,
  CONCATENATED_PATH_DOWN: 6,
  ADMINISTRATIVELY_DOWN: 7,
  REVERSE_CONCATENATED_PATH_DOWN: 8,
} as const;
export type BfdDiagCode = (typeof BfdDiag)[keyof typeof BfdDiag];

const DIAG_TEXT: readonly string[] = [
  'no diagnostic',
  'control detection time expired',
  'echo function failed',
  'neighbor signaled session down',
  'forwarding plane reset',
  'path down',
  'concatenated path down',
  'administratively down',
  'reverse concatenated path down',
];

/** A diagnostic code in words ("control detection time expired"); unknown codes by number. */
export function diagText(code: number): string {
  return DIAG_TEXT[code] ?? `diagnostic ${code}`;
}

/**
 * RFC 5880 section 4.1, the mandatory section of a Control packet (24 bytes, no
 * authentication):
 *
 *    0                   1                   2                   3
 *    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |Vers |  Diag   |Sta|P|F|C|A|D|M|  Detect Mult  |    Length     |
 *   |                       My Discriminator                        |
 *   |                      Your Discriminator                       |
 *   |                    Desired Min TX Interval                    |
 *   |                   Required Min RX Interval                    |
 *   |                 Required Min Echo RX Interval                 |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 */
export const PacketLayout = {
  VERSION: 1,
  /** Without authentication. */
  LENGTH: 24,
  /** With the A bit, at least the 2-byte Auth Type and Auth Len (RFC 5880 6.8.6). */
  MIN_LENGTH_AUTH: 26,
  VERS_DIAG: 0,
  FLAGS: 1,
  DETECT_MULT: 2,
  LEN: 3,
  MY_DISCR: 4,
  YOUR_DISCR: 8,
  DESIRED_MIN_TX: 12,
  REQUIRED_MIN_RX: 16,
  REQUIRED_MIN_ECHO_RX: 20,
} as const;

/** Bits of the second byte (Sta in the top two). */
export const Flag = {
  POLL: 0x20,
  FINAL: 0x10,
  CONTROL_PLANE_INDEPENDENT: 0x08,
  AUTH_PRESENT: 0x04,
  DEMAND: 0x02,
  MULTIPOINT: 0x01,
} as const;

/** UDP ports: RFC 5881 section 4 (single hop), RFC 5883 section 5 (multihop). */
export const BfdPort = {
  SINGLE_HOP: 3784,
  MULTI_HOP: 4784,
  /** RFC 5881 section 4: the source port of Control packets. */
  SOURCE_MIN: 49152,
  SOURCE_MAX: 65535,
} as const;

/** RFC 5881 section 5: single-hop packets are sent with, and must arrive with, TTL 255. */
export const BFD_TTL = 255;

export const US_PER_MS = 1000;

/** RFC 5880 section 6.8.3: while not Up, at least one second between packets. */
export const SLOW_TX_US = 1_000_000;

/**
 * RFC 5880 section 6.8.7: each interval is cut by 0 to 25% (so 75-100% of it); with a detect
 * multiplier of 1 it lies between 75% and 90%.
 */
export const Jitter = {
  MIN: 0.75,
  MAX: 1,
  MAX_MULT_ONE: 0.9,
} as const;

/** What a session takes when the configuration leaves a value out, and the ranges allowed. */
export const BfdDefaults = {
  /** FRR bfdd's receive-interval, transmit-interval and detect-multiplier. */
  minRxMs: 300,
  minTxMs: 300,
  multiplier: 3,
  /** FRR accepts 10..60000 ms and a multiplier of 2..255 (BIRD 1..255); we take 10 ms and 1. */
  MIN_INTERVAL_MS: 10,
  MAX_INTERVAL_MS: 60_000,
  MIN_MULTIPLIER: 1,
  MAX_MULTIPLIER: 255,
  /** Multihop sessions accept packets that crossed this many hops (TTL 255 - hops + 1 and up). */
  MULTIHOP_HOPS: 255,
  /** After a session is removed: AdminDown packets sent so the peer does not see a failure. */
  ADMIN_DOWN_PACKETS: 3,
} as const;
