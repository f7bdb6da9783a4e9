/** Defaults of the running speaker process. */
export const SpeakerDefaults = {
  /** How long a graceful shutdown waits for every session to send its Cease and close. */
  SHUTDOWN_TIMEOUT_MS: 5_000,
  /** The RFC 9003 Shutdown Communication sent to every peer when the speaker stops. */
  SHUTDOWN_MESSAGE: 'ovn-bgp-speaker shutting down',
  /** How often the sd_notify STATUS= line is brought up to date (sent only when it changed). */
  STATUS_INTERVAL_MS: 10_000,
} as const;
