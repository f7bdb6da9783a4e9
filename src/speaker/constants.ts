/** Defaults of the running speaker process. */
export const SpeakerDefaults = {
  /** How long a graceful shutdown waits for every session to send its Cease and close. */
  SHUTDOWN_TIMEOUT_MS: 5_000,
  /** The RFC 9003 Shutdown Communication sent to every peer when the speaker stops. */
  SHUTDOWN_MESSAGE: 'ovn-bgp-speaker shutting down',
  /** How often the sd_notify STATUS= line is brought up to date (sent only when it changed). */
  STATUS_INTERVAL_MS: 10_000,
} as const;

/**
 * The warm-up as the speaker starts (see warm-up.ts). 4,000 prefixes four times took a
 * fresh process's first 100k-prefix table from about 0.26 s to 0.17 s of CPU in the decoder
 * and RIB alone (a warm process: 0.05-0.10 s), for about 0.2 s of CPU at start; larger tables
 * or more rounds bought little more.
 */
export const WarmUpDefaults = {
  PREFIXES: 4_000,
  ROUNDS: 4,
  /** A quarter IPv6, so the MP_REACH_NLRI path is compiled too. */
  IPV6_SHARE: 0.25,
  /** What one socket read hands the framer under load. */
  READ_BYTES: 65_536,
} as const;
