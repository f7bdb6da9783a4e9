import { type Clock, type Logger, silentLogger, systemClock } from '../components/index.js';
import { JsonRpcConnection } from './connection.js';
import { DEFAULTS, Method, Notification } from './constants.js';
import { OvsdbError, preview } from './errors.js';
import { idKey } from './jsonrpc.js';
import { decodeTransactResult, encodeTransact, type Operation, type TransactResult } from './operations.js';
import { parseRemote, type Remote } from './remote.js';
import { type DatabaseSchema, parseSchema } from './schema.js';
import { type Connector, makeConnector, type TlsFiles } from './transport.js';

/** An update notification for one monitor: `lastTxnId` only with update3. */
export type MonitorUpdate =
  | { readonly method: 'update' | 'update2'; readonly updates: unknown }
  | { readonly method: 'update3'; readonly updates: unknown; readonly lastTxnId: string };

export type MonitorHandler = (update: MonitorUpdate) => void;

/** monitor_cond_since reply (ovsdb-server(7) 4.1.15). */
export interface MonitorSinceResult {
  readonly found: boolean;
  readonly lastTxnId: string;
  readonly updates: unknown;
}

export interface SessionOptions {
  readonly tls?: TlsFiles;
  readonly maxMessageBytes?: number;
  readonly probeIntervalMs?: number;
  readonly connectTimeoutMs?: number;
}

export interface SessionComponents {
  readonly clock?: Clock;
  readonly logger?: Logger;
  readonly connect?: Connector;
}

/** Probes on stream sockets only: ovsdb-server never probes unix sockets, and a dead peer there is seen at once. */
export function defaultProbeInterval(remote: Remote): number {
  return remote.kind === 'unix' ? 0 : DEFAULTS.probeIntervalMs;
}

/**
 * The OVSDB methods over one connection (RFC 7047 section 4.1 and ovsdb-server(7)): each
 * returns decoded results; update notifications go to the handler of their monitor id.
 */
export class OvsdbSession {
  readonly remote: Remote;
  readonly connection: JsonRpcConnection;
  readonly #log: Logger;
  readonly #monitors = new Map<string, MonitorHandler>();

  constructor(remote: Remote, connection: JsonRpcConnection, logger: Logger = silentLogger) {
    this.remote = remote;
    this.connection = connection;
    this.#log = logger;
    connection.onNotification((method, params) => this.#onNotification(method, params));
  }

  /** Connects to one remote (`unix:`, `tcp:` or `ssl:`). */
  static async open(
    remote: string | Remote,
    options: SessionOptions = {},
    components: SessionComponents = {},
  ): Promise<OvsdbSession> {
    const target = typeof remote === 'string' ? parseRemote(remote) : remote;
    const clock = components.clock ?? systemClock;
    const logger = components.logger ?? silentLogger;
    const connect = components.connect ?? makeConnector(options.tls, clock);
    const channel = await connect(target, options.connectTimeoutMs ?? DEFAULTS.connectTimeoutMs);
    const connection = new JsonRpcConnection(
      channel,
      {
        name: target.text,
        maxMessageBytes: options.maxMessageBytes,
        probeIntervalMs: options.probeIntervalMs ?? defaultProbeInterval(target),
      },
      { clock, logger },
    );
    return new OvsdbSession(target, connection, logger);
  }

  get closed(): boolean {
    return this.connection.closed;
  }

  close(): void {
    this.connection.close();
  }

  async listDbs(): Promise<string[]> {
    const result = await this.connection.request(Method.LIST_DBS, []);
    if (!Array.isArray(result) || !result.every((n) => typeof n === 'string')) {
      throw new OvsdbError('bad-message', `list_dbs result: ${preview(result)}`);
    }
    return result;
  }

  async getSchema(database: string, timeoutMs?: number): Promise<DatabaseSchema> {
    return parseSchema(await this.connection.request(Method.GET_SCHEMA, [database], { timeoutMs }));
  }

  async echo(payload: readonly unknown[] = []): Promise<unknown> {
    return this.connection.request(Method.ECHO, payload);
  }

  /** Raw transact: `params` is `[db, op...]` in wire form; the result array comes back unchecked. */
  transactRaw(params: readonly unknown[], timeoutMs?: number): Promise<unknown> {
    return this.connection.request(Method.TRANSACT, params, { timeoutMs });
  }

  /** Encodes the operations with the schema, runs them, and decodes the results (throws TransactionError). */
  async transact(
    schema: DatabaseSchema,
    ops: readonly Operation[],
    timeoutMs?: number,
  ): Promise<TransactResult> {
    const params = encodeTransact(schema, ops);
    return decodeTransactResult(schema, ops, await this.transactRaw(params, timeoutMs));
  }

  /**
   * monitor_cond (update2). `onInitial` runs synchronously on the reply with its
   * `<table-updates2>`, before any notification that follows it.
   */
  monitorCond<T>(
    database: string,
    monitorId: unknown,
    requests: unknown,
    handler: MonitorHandler,
    onInitial: (updates: unknown) => T,
    timeoutMs?: number,
  ): Promise<T> {
    return this.#monitor(
      Method.MONITOR_COND,
      [database, monitorId, requests],
      monitorId,
      handler,
      onInitial,
      timeoutMs,
    );
  }

  /** monitor_cond_since (update3): `onReply` sees `found`, the last txn id and the changes or snapshot. */
  monitorCondSince<T>(
    database: string,
    monitorId: unknown,
    requests: unknown,
    lastTxnId: string,
    handler: MonitorHandler,
    onReply: (reply: MonitorSinceResult) => T,
    timeoutMs?: number,
  ): Promise<T> {
    return this.#monitor(
      Method.MONITOR_COND_SINCE,
      [database, monitorId, requests, lastTxnId],
      monitorId,
      handler,
      (result) => onReply(parseSinceResult(result)),
      timeoutMs,
    );
  }

  /** The original monitor (RFC 7047 4.1.5, `update` notifications with old/new rows). */
  monitor<T>(
    database: string,
    monitorId: unknown,
    requests: unknown,
    handler: MonitorHandler,
    onInitial: (updates: unknown) => T,
    timeoutMs?: number,
  ): Promise<T> {
    return this.#monitor(
      Method.MONITOR,
      [database, monitorId, requests],
      monitorId,
      handler,
      onInitial,
      timeoutMs,
    );
  }

  /** monitor_cond_change: new conditions; the rows that enter or leave arrive before the reply. */
  async monitorCondChange(monitorId: unknown, requests: unknown, timeoutMs?: number): Promise<void> {
    await this.connection.request(Method.MONITOR_COND_CHANGE, [monitorId, monitorId, requests], {
      timeoutMs,
    });
  }

  async monitorCancel(monitorId: unknown): Promise<void> {
    await this.connection.request(Method.MONITOR_CANCEL, [monitorId]);
    this.#monitors.delete(idKey(monitorId));
  }

  async #monitor<T>(
    method: string,
    params: readonly unknown[],
    monitorId: unknown,
    handler: MonitorHandler,
    onReply: (result: unknown) => T,
    timeoutMs: number | undefined,
  ): Promise<T> {
    const key = idKey(monitorId);
    if (this.#monitors.has(key)) throw new OvsdbError('bad-message', `monitor id ${key} already in use`);
    this.#monitors.set(key, handler);
    try {
      return (await this.connection.request(method, params, { timeoutMs, onResult: onReply })) as T;
    } catch (err) {
      this.#monitors.delete(key);
      throw err;
    }
  }

  #onNotification(method: string, params: readonly unknown[]): void {
    let update: MonitorUpdate;
    if (method === Notification.UPDATE || method === Notification.UPDATE2) {
      if (params.length !== 2) throw new OvsdbError('bad-message', `${method} with ${params.length} params`);
      update = { method, updates: params[1] };
    } else if (method === Notification.UPDATE3) {
      if (params.length !== 3 || typeof params[1] !== 'string') {
        throw new OvsdbError('bad-message', `update3 params: ${preview(params)}`);
      }
      update = { method, updates: params[2], lastTxnId: params[1] };
    } else {
      this.#log.debug({ remote: this.remote.text, method }, 'ovsdb: notification ignored');
      return;
    }
    const handler = this.#monitors.get(idKey(params[0]));
    if (!handler) {
      this.#log.debug(
        { remote: this.remote.text, monitor: params[0] },
        'ovsdb: update for no monitor ignored',
      );
      return;
    }
    handler(update);
  }
}

function parseSinceResult(result: unknown): MonitorSinceResult {
  if (
    !Array.isArray(result) ||
    result.length !== 3 ||
    typeof result[0] !== 'boolean' ||
    typeof result[1] !== 'string'
  ) {
    throw new OvsdbError('bad-message', `monitor_cond_since result: ${preview(result)}`);
  }
  return { found: result[0], lastTxnId: result[1], updates: result[2] };
}
