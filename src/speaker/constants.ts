/** Defaults of the running speaker process. */
export const SpeakerDefaults = {
  /** How long a graceful shutdown waits for every session to send its Cease and close. */
  SHUTDOWN_TIMEOUT_MS: 5_000,
  /** The RFC 9003 Shutdown Communication sent to every peer when the speaker stops. */
  SHUTDOWN_MESSAGE: 'ovn-bgp-speaker shutting down',
} as const;

/** The name `show advertised` prints as the source of what we sent. */
export const LOCAL_SOURCE_NAME = 'local';

/** Next hop text of a route originated with next hop self (FRR prints the same). */
export const UNSPECIFIED_NEXT_HOP = { 4: '0.0.0.0', 6: '::' } as const;
