/**
 * OVSDB protocol names and the client's defaults (RFC 7047 and ovsdb-server(7)).
 * Defaults are read with `??` by the parts that take an `init`.
 */

/** RFC 7047 section 4.1 methods, plus the ovsdb-server extensions (ovsdb-server(7) section 4.1). */
export const Method = {
  LIST_DBS: 'list_dbs',
  GET_SCHEMA: 'get_schema',
  TRANSACT: 'transact',
  CANCEL: 'cancel',
  MONITOR: 'monitor',
  MONITOR_COND: 'monitor_cond',
  MONITOR_COND_SINCE: 'monitor_cond_since',
  MONITOR_COND_CHANGE: 'monitor_cond_change',
  MONITOR_CANCEL: 'monitor_cancel',
  LOCK: 'lock',
  STEAL: 'steal',
  UNLOCK: 'unlock',
  ECHO: 'echo',
} as const;

/** Server-to-client notifications. */
export const Notification = {
  UPDATE: 'update',
  UPDATE2: 'update2',
  UPDATE3: 'update3',
  LOCKED: 'locked',
  STOLEN: 'stolen',
} as const;

/** The database every ovsdb-server serves about itself (ovsdb-server(5) "_Server"). */
export const SERVER_DATABASE = '_Server';
export const SERVER_DATABASE_TABLE = 'Database';
export const SERVER_COLUMNS = ['name', 'model', 'connected', 'leader', 'cid', 'sid', 'index'] as const;

/** Database models reported in `_Server.Database.model`. */
export const Model = { STANDALONE: 'standalone', CLUSTERED: 'clustered', RELAY: 'relay' } as const;

/** monitor_cond_since: "no transaction seen"; a standalone server always answers with it. */
export const ZERO_UUID = '00000000-0000-0000-0000-000000000000';

/** The IANA port for OVSDB, used when a remote names no port. */
export const OVSDB_PORT = 6640;

/** Error strings ovsdb-server puts in the JSON-RPC `error` member that we act upon. */
export const ServerError = {
  UNKNOWN_METHOD: 'unknown method',
  UNKNOWN_DATABASE: 'unknown database',
} as const;

export const DEFAULTS = {
  /** Largest single JSON-RPC message accepted; a whole-NB snapshot is one message. */
  maxMessageBytes: 128 * 1024 * 1024,
  /** Idle time before we send our own echo, as ovsdb's jsonrpc sessions do (5 s); twice that kills. */
  probeIntervalMs: 5000,
  /** Bound on connect plus the monitor set-up (a large initial snapshot takes a few seconds). */
  setupTimeoutMs: 60_000,
  connectTimeoutMs: 10_000,
  backoffInitialMs: 100,
  backoffMaxMs: 8000,
  /** Fraction of each delay that is randomised so many clients do not reconnect in step. */
  backoffJitter: 0.5,
  /** A session that stayed up this long resets the back-off. */
  stableSessionMs: 10_000,
} as const;
