/** Defaults and bounds of the operator interface: the control socket, its client, the metrics endpoint. */

/** Defaults of the operator interface; read with `??` where a caller leaves one out. */
export const ApiDefaults = {
  /** Where the control socket lives unless configured otherwise (systemd's RuntimeDirectory). */
  SOCKET_PATH: '/run/ovn-bgp-speaker/control.sock',
  /** `show rib` returns at most this many entries unless asked for a different limit. */
  RIB_LIMIT: 1000,
  /** The CLI waits this long for an answer. */
  CALL_TIMEOUT_MS: 10_000,
  /** A `busy` answer is tried again after this long, doubling up to BUSY_RETRY_MAX_MS. */
  BUSY_RETRY_MS: 20,
  BUSY_RETRY_MAX_MS: 500,
} as const;

/** Overrides ApiDefaults.SOCKET_PATH for the CLI; `--socket` overrides both. */
export const SOCKET_PATH_ENV = 'OVN_BGP_SPEAKER_SOCKET';

/** A request is one line of JSON; anything longer is not a request, and the connection is closed. */
export const MAX_REQUEST_LINE_BYTES = 64 * 1024;
/** Requests read ahead on one connection before reading pauses until answers are written. */
export const MAX_PENDING_REQUESTS = 16;
/** Clients served at once; one more is answered `busy` and closed (the CLI tries again). */
export const MAX_CONTROL_CONNECTIONS = 64;
/**
 * A connection being closed on an error (an oversize request) or refused as `busy` is closed
 * for good after this long, whether or not the client ever reads or ends its side.
 */
export const CONTROL_CLOSE_LINGER_MS = 2_000;
/**
 * Of the rest of an oversize request, this much is read and dropped so the client's write can
 * finish and it reads the error; a client still sending beyond it is cut off.
 */
export const CONTROL_DISCARD_BYTES = 1024 * 1024;
/** A connection that sends nothing for this long is closed (a CLI call lasts milliseconds). */
export const CONTROL_IDLE_TIMEOUT_MS = 60_000;
/** A request the speaker has not answered in this time gets a `timeout` error. */
export const CONTROL_REQUEST_TIMEOUT_MS = 30_000;
/** How long start-up waits for an existing socket to answer before treating it as live. */
export const SOCKET_PROBE_TIMEOUT_MS = 1_000;
/** Owner read/write only: the socket can reset sessions. */
export const SOCKET_MODE = 0o600;
/** The private directory the socket is bound in before it is linked into place. */
export const PRIVATE_DIR_MODE = 0o700;
/** Linux sun_path is 108 octets including the terminating NUL. */
export const MAX_SOCKET_PATH_BYTES = 107;

/** Upper bound of a RIB query's limit: one answer stays one bounded line of JSON. */
export const MAX_RIB_LIMIT = 100_000;

/** A long array result is serialised this many entries at a time (a few milliseconds of work). */
export const RESPONSE_SLICE_ENTRIES = 1000;

/**
 * A `cli` request is formatted in the speaker only when its answer has at most this many
 * entries (`show rib`'s default limit); formatting is one synchronous piece of work, which at
 * 100 000 entries held the event loop for seconds. A longer answer is handed back: the client
 * runs the Node CLI, which asks for it as JSON (sent in slices) and formats it itself.
 */
export const CLI_MAX_RESULT_ENTRIES = 1000;

/** The largest answer the client reads (MAX_RIB_LIMIT entries with several paths each). */
export const MAX_RESPONSE_BYTES = 256 * 1024 * 1024;

/** Prometheus scrapes are small; these bound a slow or stuck client. */
export const METRICS_REQUEST_TIMEOUT_MS = 10_000;
export const METRICS_KEEP_ALIVE_TIMEOUT_MS = 5_000;
export const METRICS_MAX_CONNECTIONS = 32;
export const METRICS_MAX_HEADER_BYTES = 8 * 1024;
export const METRICS_PATH = '/metrics';
/** Liveness, as Kubernetes names it (/livez is the same answer). */
export const HEALTH_PATH = '/healthz';
export const LIVE_PATH = '/livez';
/** Readiness. */
export const READY_PATH = '/readyz';

/** The control API's version (`version`): bumped on an incompatible change, kept on additions. */
export const CONTROL_API_VERSION = 1;
/** Live events a `watch` client may fall behind by before its stream is closed with `overflow`. */
export const MAX_WATCH_BACKLOG = 100_000;
/** Snapshot entries a `watch` stream writes between two yields to the event loop. */
export const WATCH_SLICE_EVENTS = 1000;
