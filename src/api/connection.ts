/**
 * One client of the control socket: reads request lines, answers them in order, one at a time.
 * Reading pauses while MAX_PENDING_REQUESTS wait or the client is not reading its answers, so
 * a client can pipeline but never make the speaker buffer without bound.
 */
import type { Socket } from 'node:net';
import type { Logger } from '../components/index.js';
import { nextTurn } from '../components/index.js';
import {
  type CliReply,
  type CliRunner,
  encodeCliReply,
  isCliRequest,
  parseCliRequest,
} from './cli-framing.js';
import { REQUEST_ID, readResponse } from './client.js';
import { LineSplitter } from './framing.js';
import {
  type ControlRequest,
  type ControlResponse,
  dispatch,
  encodeResponse,
  encodeResponsePieces,
  errorResponse,
  isResponse,
  parseRequest,
} from './protocol.js';
import { drained } from './socket-wait.js';
import { ControlError, type SpeakerControl, type WatchTopic } from './types.js';
import { type WatchLimits, WatchStream } from './watch-stream.js';

export interface ConnectionLimits {
  readonly maxLineBytes: number;
  readonly maxPending: number;
  readonly idleTimeoutMs: number;
  readonly requestTimeoutMs: number;
  /** Entries of an array result serialised between two yields to the event loop. */
  readonly responseSliceEntries: number;
  readonly watch: WatchLimits;
  /** A connection closed on an error is destroyed this long after its answer at the latest. */
  readonly closeLingerMs: number;
  /** Bytes of an oversize request read and dropped while closing, before cutting the client off. */
  readonly discardBytes: number;
  /** A `cli` request whose answer has more entries is handed back to the client to format. */
  readonly cliMaxResultEntries: number;
}

/** What serves `cli` requests: the CLI's runner and the socket path its messages name. */
export interface CliService {
  readonly run: CliRunner;
  readonly path: string;
}

export class ControlConnection {
  readonly #socket: Socket;
  readonly #control: SpeakerControl;
  readonly #limits: ConnectionLimits;
  readonly #log: Logger;
  readonly #cli: CliService | undefined;
  readonly #splitter: LineSplitter;
  readonly #queue: string[] = [];
  #working = false;
  /** Set when the client sent an oversize line: answer what came before, then this, then close. */
  #fatal: ControlResponse | null = null;
  /** The client finished sending (half-close): answer what it sent, then end. */
  #ended = false;
  /** Set once a `watch` took the connection over: nothing else is read or answered. */
  #watch: WatchStream | null = null;
  /** The error answer went out; what else comes is dropped until the connection is gone. */
  #closing = false;
  /** Bytes dropped after the error answer to an oversize request. */
  #discarded = 0;

  constructor(
    socket: Socket,
    control: SpeakerControl,
    limits: ConnectionLimits,
    log: Logger,
    cli?: CliService,
  ) {
    this.#socket = socket;
    this.#cli = cli;
    this.#control = control;
    this.#limits = limits;
    this.#log = log;
    this.#splitter = new LineSplitter(limits.maxLineBytes);
    socket.setTimeout(limits.idleTimeoutMs, () => socket.destroy());
    socket.on('data', (chunk: Buffer) => this.#onData(chunk));
    socket.on('end', () => {
      this.#ended = true;
      // Closing already: our side is ended too, and Node closes the connection by itself.
      if (!this.#closing) void this.#work();
    });
    socket.on('error', (e) => log.debug({ err: e.message }, 'control client connection failed'));
  }

  destroy(): void {
    this.#watch?.close();
    this.#socket.destroy();
  }

  #onData(chunk: Buffer): void {
    if (this.#watch) return;
    if (this.#fatal || this.#closing) {
      this.#discard(chunk.length);
      return;
    }
    const split = this.#splitter.push(chunk);
    for (const line of split.lines) if (line.trim() !== '') this.#queue.push(line);
    if (split.kind === 'oversize') {
      const limit = this.#limits.maxLineBytes;
      this.#fatal = errorResponse(
        null,
        new ControlError('bad-request', `request longer than ${limit} bytes`),
      );
      this.#log.warn({ limit }, 'control client sent an oversize request; closing the connection');
      this.#socket.pause();
    } else if (this.#queue.length >= this.#limits.maxPending) {
      this.#socket.pause();
    }
    void this.#work();
  }

  async #work(): Promise<void> {
    if (this.#working) return;
    this.#working = true;
    try {
      for (let line = this.#queue.shift(); line !== undefined; line = this.#queue.shift()) {
        if (isCliRequest(line)) {
          await this.#runCli(line);
          return;
        }
        const { response, method } = await this.#answer(line);
        if (this.#socket.destroyed) return;
        if (method === 'watch' && this.#startsWatch(response)) return;
        await this.#send(response);
      }
      if (this.#socket.destroyed || this.#watch) return;
      if (this.#fatal) this.#closeWith(this.#fatal);
      else if (this.#ended) this.#socket.end();
      else this.#socket.resume();
    } finally {
      this.#working = false;
    }
  }

  /**
   * Answers the error and closes. Half-open with reading paused, the connection would wait
   * for an `end` the client never sends while it blocks writing the rest of its line: each
   * such client held a connection slot until the idle timeout, and enough of them refused
   * everyone else. So the rest is read and dropped (bounded) and the socket destroyed after
   * a short linger, whatever the client does.
   */
  #closeWith(response: ControlResponse): void {
    const socket = this.#socket;
    this.#closing = true;
    socket.setTimeout(this.#limits.closeLingerMs, () => socket.destroy());
    socket.end(encodeResponse(response));
    if (!this.#ended) socket.resume();
  }

  /**
   * A `cli` request (cli-framing.ts) is the last on its connection: the command runs here, its
   * output goes back tagged line by line, and the connection is closed, which is how a client
   * that cannot half-close (nc without -N) knows the answer is complete. One the speaker cannot
   * run is answered with a JSON error instead, and the client runs the command itself: so is
   * one whose answer is too long to format without holding the event loop (a full `show rib`).
   */
  async #runCli(line: string): Promise<void> {
    this.#queue.length = 0;
    const argv = parseCliRequest(line);
    let reply: CliReply | null = null;
    let refusal: ControlResponse | undefined;
    let tooLong = false;
    const call = async (method: string, params: object) => {
      const response = await this.#dispatchInProcess(method, params);
      if ('result' in response && Array.isArray(response.result)) {
        tooLong = response.result.length > this.#limits.cliMaxResultEntries;
        // Ends the command (it prints a ControlError and returns); its output is then dropped.
        if (tooLong) throw new ControlError('unsupported', 'an answer this long is formatted by the client');
      }
      return this.#readInProcess(response);
    };
    try {
      if (argv !== undefined && this.#cli !== undefined) reply = await this.#cli.run(argv, call);
      if (tooLong) reply = null;
    } catch (e) {
      this.#log.error({ err: (e as Error).message }, 'cli request failed');
      refusal = errorResponse(null, e);
    }
    if (this.#socket.destroyed) return;
    if (reply === null) {
      const why =
        argv === undefined
          ? 'malformed cli request'
          : tooLong
            ? `an answer of more than ${this.#limits.cliMaxResultEntries} entries is formatted by the client`
            : 'not a command the control socket runs';
      this.#closeWith(refusal ?? errorResponse(null, new ControlError('bad-request', why)));
      return;
    }
    let sent = false;
    for (const piece of encodeCliReply(reply, this.#limits.responseSliceEntries)) {
      if (this.#socket.destroyed) return;
      if (sent) await nextTurn();
      if (!this.#socket.write(piece)) await drained(this.#socket);
      sent = true;
    }
    if (this.#socket.destroyed) return;
    this.#closing = true;
    this.#socket.setTimeout(this.#limits.closeLingerMs, () => this.#socket.destroy());
    this.#socket.end();
    if (!this.#ended) this.#socket.resume();
  }

  /** The CLI's request answered as the socket answers it: the same parsing and deadline. */
  async #dispatchInProcess(method: string, params: object): Promise<ControlResponse> {
    const request = parseRequest(JSON.stringify({ id: REQUEST_ID, method, params }));
    return isResponse(request) ? request : await this.#withDeadline(request);
  }

  /**
   * The answer as JSON (serialised in slices, as on the socket) read back by the client's own
   * reader: the command prints byte for byte what it prints over the socket.
   */
  async #readInProcess(response: ControlResponse): Promise<unknown> {
    let answer = '';
    try {
      for (const piece of encodeResponsePieces(response, this.#limits.responseSliceEntries)) {
        if (answer !== '') await nextTurn();
        answer += piece;
      }
    } catch (e) {
      answer = encodeResponse(
        errorResponse(response.id, new Error(`result is not JSON: ${(e as Error).message}`)),
      );
    }
    return readResponse(this.#cli?.path ?? '', answer);
  }

  #discard(bytes: number): void {
    this.#discarded += bytes;
    if (this.#discarded > this.#limits.discardBytes) this.#socket.destroy();
  }

  /** A `watch` answered without error: from now on the connection is its stream. */
  #startsWatch(response: ControlResponse): boolean {
    if (!('result' in response)) return false;
    const { topics } = response.result as { topics: WatchTopic[] };
    this.#queue.length = 0;
    this.#watch = new WatchStream(
      this.#socket,
      response.id,
      topics,
      this.#control,
      this.#limits.watch,
      response.result,
    );
    this.#socket.resume();
    return true;
  }

  async #send(response: ControlResponse): Promise<void> {
    let sent = false;
    try {
      for (const piece of encodeResponsePieces(response, this.#limits.responseSliceEntries)) {
        if (this.#socket.destroyed) return;
        if (sent) await nextTurn();
        if (!this.#socket.write(piece)) await drained(this.#socket);
        sent = true;
      }
    } catch (e) {
      const message = `result is not JSON: ${(e as Error).message}`;
      this.#log.error({ err: message }, 'control request failed');
      // Half an answer cannot be taken back: the client sees the connection close instead.
      if (sent) this.#socket.destroy();
      else this.#socket.write(encodeResponse(errorResponse(response.id, new Error(message))));
    }
  }

  async #answer(line: string): Promise<{ response: ControlResponse; method?: string }> {
    const request = parseRequest(line);
    if (isResponse(request)) return { response: request };
    return { response: await this.#withDeadline(request), method: request.method };
  }

  /** A speaker that never answers must not hold the client forever. */
  async #withDeadline(request: ControlRequest): Promise<ControlResponse> {
    let timer: NodeJS.Timeout | undefined;
    const ms = this.#limits.requestTimeoutMs;
    const late = new Promise<ControlResponse>((resolve) => {
      timer = setTimeout(() => {
        this.#log.warn({ method: request.method, ms }, 'control request not answered in time');
        resolve(
          errorResponse(
            request.id,
            new ControlError('timeout', `${request.method} not answered within ${ms} ms`),
          ),
        );
      }, ms);
    });
    try {
      const response = await Promise.race([dispatch(this.#control, request), late]);
      if ('error' in response && response.error.code === 'internal') {
        this.#log.error({ method: request.method, err: response.error.message }, 'control request failed');
      }
      return response;
    } finally {
      clearTimeout(timer);
    }
  }
}
