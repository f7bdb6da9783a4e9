import type { Clock, Logger, TimerHandle } from '../components/index.js';
import type { Channel } from './channel.js';
import { DEFAULTS, Method } from './constants.js';
import { OvsdbError } from './errors.js';
import { JsonFramer } from './framer.js';
import {
  describeRpcError,
  encodeRequest,
  encodeResponse,
  idKey,
  type JsonRpcMessage,
  parseMessage,
} from './jsonrpc.js';

export interface ConnectionInit {
  /** The remote's text, for logs and errors. */
  readonly name: string;
  readonly maxMessageBytes?: number;
  /** Idle time before we send an echo; the connection dies after twice that. 0 turns probes off. */
  readonly probeIntervalMs?: number;
}

export interface ConnectionComponents {
  readonly clock: Clock;
  readonly logger: Logger;
}

export interface RequestOptions {
  readonly timeoutMs?: number;
  /**
   * Runs synchronously when the reply arrives, before any later message is read: a monitor
   * reply must be applied before the update notifications that follow it in the stream.
   * If it throws, the request fails and the connection closes with that error.
   */
  readonly onResult?: (result: unknown) => unknown;
}

interface Pending {
  readonly method: string;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: OvsdbError) => void;
  readonly onResult: ((result: unknown) => unknown) | undefined;
  readonly timer: TimerHandle | undefined;
}

export interface ConnectionStats {
  messagesIn: number;
  bytesIn: number;
  /** Echo requests from the server (its inactivity probe) that we answered. */
  echoesAnswered: number;
  /** Echo requests we sent because the server was quiet. */
  probesSent: number;
}

export type NotificationHandler = (method: string, params: readonly unknown[]) => void;

/**
 * One JSON-RPC 1.0 session over a byte stream (RFC 7047 section 4): framing, request/response
 * matching by id, answering the server's echo, and probing a quiet server with our own.
 * Any protocol fault (malformed or oversize input, an unknown response id) closes it with an
 * OvsdbError; it never throws out of a socket callback.
 */
export class JsonRpcConnection {
  readonly name: string;
  readonly stats: ConnectionStats = { messagesIn: 0, bytesIn: 0, echoesAnswered: 0, probesSent: 0 };
  readonly #channel: Channel;
  readonly #framer: JsonFramer;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #probeIntervalMs: number;
  readonly #pending = new Map<string, Pending>();
  /** Requests that timed out: a late reply to one is dropped, not taken for a wrong id. */
  readonly #abandoned = new Set<string>();
  #nextId = 1;
  #lastReceived: number;
  #probeSentAt: number | undefined;
  #probeTimer: TimerHandle | undefined;
  #closedWith: OvsdbError | undefined;
  #onNotification: NotificationHandler = () => {};
  readonly #onClose: ((error: OvsdbError) => void)[] = [];

  constructor(channel: Channel, init: ConnectionInit, components: ConnectionComponents) {
    this.name = init.name;
    this.#channel = channel;
    this.#framer = new JsonFramer(init.maxMessageBytes ?? DEFAULTS.maxMessageBytes);
    this.#clock = components.clock;
    this.#log = components.logger;
    this.#probeIntervalMs = init.probeIntervalMs ?? DEFAULTS.probeIntervalMs;
    this.#lastReceived = this.#clock.now();
    channel.on('data', (chunk) => this.#onData(chunk));
    channel.on('error', (err) =>
      this.close(new OvsdbError('connection-lost', `${this.name}: ${err.message}`, { remote: this.name })),
    );
    channel.on('close', () =>
      this.close(
        new OvsdbError(
          'connection-lost',
          `${this.name}: closed by peer${this.#framer.idle ? '' : ' in the middle of a message'}`,
          { remote: this.name },
        ),
      ),
    );
    this.#armProbe();
  }

  get closed(): boolean {
    return this.#closedWith !== undefined;
  }

  get closeReason(): OvsdbError | undefined {
    return this.#closedWith;
  }

  /** Bytes held for a message not yet complete (never more than the size limit plus a chunk). */
  get bufferedBytes(): number {
    return this.#framer.bufferedBytes;
  }

  onNotification(handler: NotificationHandler): void {
    this.#onNotification = handler;
  }

  onClose(handler: (error: OvsdbError) => void): void {
    if (this.#closedWith) handler(this.#closedWith);
    else this.#onClose.push(handler);
  }

  request(method: string, params: readonly unknown[], options: RequestOptions = {}): Promise<unknown> {
    if (this.#closedWith) return Promise.reject(this.#closedWith);
    const id = this.#nextId++;
    return new Promise<unknown>((resolve, reject) => {
      const timer =
        options.timeoutMs === undefined
          ? undefined
          : this.#clock.setTimeout(() => {
              this.#pending.delete(idKey(id));
              this.#abandoned.add(idKey(id));
              reject(
                new OvsdbError(
                  'request-timeout',
                  `${this.name}: no reply to ${method} in ${options.timeoutMs} ms`,
                ),
              );
            }, options.timeoutMs);
      this.#pending.set(idKey(id), { method, resolve, reject, onResult: options.onResult, timer });
      this.#channel.write(encodeRequest(method, params, id));
    });
  }

  /** Closes the session; outstanding requests fail with `error` (kind 'closed' by default). */
  close(error: OvsdbError = new OvsdbError('closed', `${this.name}: closed`)): void {
    if (this.#closedWith) return;
    this.#closedWith = error;
    if (this.#probeTimer !== undefined) this.#clock.clearTimeout(this.#probeTimer);
    for (const p of this.#pending.values()) {
      if (p.timer !== undefined) this.#clock.clearTimeout(p.timer);
      p.reject(error);
    }
    this.#pending.clear();
    this.#channel.destroy();
    for (const handler of this.#onClose.splice(0)) handler(error);
  }

  #onData(chunk: Buffer): void {
    if (this.#closedWith) return;
    this.#lastReceived = this.#clock.now();
    this.#probeSentAt = undefined;
    this.stats.bytesIn += chunk.length;
    let values: unknown[];
    try {
      values = this.#framer.push(chunk);
    } catch (err) {
      this.close(asOvsdbError(err, this.name));
      return;
    }
    for (const value of values) {
      if (this.#closedWith) return;
      this.stats.messagesIn++;
      try {
        this.#dispatch(parseMessage(value));
      } catch (err) {
        this.close(asOvsdbError(err, this.name));
        return;
      }
    }
  }

  #dispatch(message: JsonRpcMessage): void {
    switch (message.kind) {
      case 'request':
        if (message.method === Method.ECHO) {
          // The server's inactivity probe: the reply echoes the params (RFC 7047 4.1.11).
          this.stats.echoesAnswered++;
          this.#channel.write(encodeResponse(message.id, message.params));
        } else {
          this.#log.warn(
            { remote: this.name, method: message.method },
            'ovsdb: server sent an unknown request',
          );
          this.#channel.write(encodeResponse(message.id, null, 'unknown method'));
        }
        return;
      case 'notification':
        this.#onNotification(message.method, message.params);
        return;
      case 'response': {
        const key = idKey(message.id);
        const pending = this.#pending.get(key);
        if (!pending && this.#abandoned.delete(key)) {
          this.#log.debug({ remote: this.name, id: key }, 'ovsdb: late reply to a timed-out request dropped');
          return;
        }
        if (!pending) {
          throw new OvsdbError('unknown-response-id', `${this.name}: response to no request (id ${key})`, {
            id: message.id,
          });
        }
        this.#pending.delete(key);
        if (pending.timer !== undefined) this.#clock.clearTimeout(pending.timer);
        if (message.error !== null) {
          pending.reject(
            new OvsdbError(
              'rpc-error',
              `${this.name}: ${pending.method}: ${describeRpcError(message.error)}`,
              {
                error: message.error,
                method: pending.method,
              },
            ),
          );
          return;
        }
        if (!pending.onResult) {
          pending.resolve(message.result);
          return;
        }
        let value: unknown;
        try {
          value = pending.onResult(message.result);
        } catch (err) {
          const error = asOvsdbError(err, this.name);
          pending.reject(error);
          throw error;
        }
        pending.resolve(value);
        return;
      }
    }
  }

  #armProbe(): void {
    if (this.#probeIntervalMs <= 0 || this.#closedWith) return;
    const since = this.#probeSentAt ?? this.#lastReceived;
    const wait = Math.max(0, since + this.#probeIntervalMs - this.#clock.now());
    this.#probeTimer = this.#clock.setTimeout(() => this.#onProbeTimer(), wait);
  }

  #onProbeTimer(): void {
    if (this.#closedWith) return;
    const now = this.#clock.now();
    if (this.#probeSentAt !== undefined) {
      if (now - this.#probeSentAt >= this.#probeIntervalMs) {
        this.close(
          new OvsdbError(
            'inactivity-timeout',
            `${this.name}: no reply to echo for ${this.#probeIntervalMs} ms`,
            {
              remote: this.name,
            },
          ),
        );
        return;
      }
    } else if (now - this.#lastReceived >= this.#probeIntervalMs) {
      this.#probeSentAt = now;
      this.stats.probesSent++;
      this.request(Method.ECHO, []).catch(() => {});
    }
    this.#armProbe();
  }
}

function asOvsdbError(err: unknown, name: string): OvsdbError {
  if (err instanceof OvsdbError) return err;
  return new OvsdbError('bad-message', `${name}: ${(err as Error)?.message ?? String(err)}`);
}
