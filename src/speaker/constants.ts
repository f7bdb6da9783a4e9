/** Defaults of the running speaker process. */
export const SpeakerDefaults = {
  /** How long a graceful shutdown waits for every session to send its Cease and close. */
  SHUTDOWN_TIMEOUT_MS: 5_000,
  /** The RFC 9003 Shutdown Communication sent to every peer when the speaker stops. */
  SHUTDOWN_MESSAGE: 'ovn-bgp-speaker shutting down',
} as const;
