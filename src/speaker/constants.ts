/**
 * Defaults of the running speaker: how much work one event-loop turn may do, so keepalives
 * and the control socket are never starved by a full table, and how long shutdown may take.
 */
export const SpeakerDefaults = {
  /** Prefixes taken from one Adj-RIB-Out, filtered and packed per turn before yielding. */
  EXPORT_SLICE_PREFIXES: 8192,
  /** Routes of a peer that went down withdrawn from the RIB per turn. */
  CLEAR_SLICE_ROUTES: 32_768,
  /** Stored routes sent through a changed import policy per turn (soft reconfiguration in). */
  SOFT_IN_SLICE_ROUTES: 16_384,
  /**
   * Prefixes waiting for the decision process above which reading from peers pauses until
   * the next flush: a peer sending faster than we decide must not grow the backlog forever.
   */
  IMPORT_BACKLOG_PREFIXES: 262_144,
  /** Bytes of UPDATEs packed before they are handed to the session in one write. */
  SEND_BATCH_BYTES: 256 * 1024,
  /** How long a graceful shutdown waits for every session to send its Cease and close. */
  SHUTDOWN_TIMEOUT_MS: 5_000,
  /** The RFC 9003 Shutdown Communication sent to every peer when the speaker stops. */
  SHUTDOWN_MESSAGE: 'ovn-bgp-speaker shutting down',
} as const;

/**
 * RFC 7911: the path identifier of the one path we send per prefix when the peer agreed to
 * receive several (any value is valid; it only has to be stable per prefix).
 */
export const SINGLE_PATH_ID = 1;

/** Milliseconds per second, for timers configured in seconds. */
export const MS_PER_SECOND = 1000;

/** The pseudo-peer name `show rib` prints for routes the speaker originates. */
export const LOCAL_SOURCE_NAME = 'local';

/** Next hop text of a route originated with next hop self (FRR prints the same). */
export const UNSPECIFIED_NEXT_HOP = { 4: '0.0.0.0', 6: '::' } as const;
