/**
 * How much route work one event-loop turn may do, so keepalives and the control socket are
 * never starved by a full table.
 */
export const RoutingDefaults = {
  /** Prefixes taken from one Adj-RIB-Out, filtered and packed per turn before yielding. */
  EXPORT_SLICE_PREFIXES: 8192,
  /** Routes of a peer that went down withdrawn from the RIB per turn. */
  CLEAR_SLICE_ROUTES: 32_768,
  /** Stored routes sent through a changed import policy per turn (soft reconfiguration in). */
  SOFT_IN_SLICE_ROUTES: 16_384,
  /**
   * Prefixes decided and handed to the consumers (update groups, sinks) per turn: a slice of
   * a full table costs a few tens of milliseconds, so a timer is never late by more.
   */
  FLUSH_SLICE_PREFIXES: 8192,
  /** Best paths offered to a consumer that asked for a full replay, per turn. */
  REPLAY_SLICE_ROUTES: 16_384,
  /**
   * Prefixes waiting for the decision process above which reading from peers pauses until
   * the next flush: a peer sending faster than we decide must not grow the backlog forever.
   */
  IMPORT_BACKLOG_PREFIXES: 262_144,
  /** Bytes of UPDATEs packed before they are handed to the session in one write. */
  SEND_BATCH_BYTES: 256 * 1024,
  /** A session's interface not listed yet: look again this often, this many times (a minute). */
  INTERFACE_LOOKUP_MS: 1000,
  INTERFACE_LOOKUPS: 60,
} as const;

/**
 * RFC 7911: the path identifier of the one path we send per prefix when the peer agreed to
 * receive several (any value is valid; it only has to be stable per prefix).
 */
export const SINGLE_PATH_ID = 1;

export { MS_PER_SECOND } from '../components/index.js';
