/**
 * The control socket: a unix socket (0600) serving SpeakerControl to the CLI, one JSON
 * request per line (see protocol.ts). Many requests per connection, many clients at once.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { type Logger, silentLogger } from '../components/index.js';
import type { CliRunner } from './cli-framing.js';
import { type ConnectionLimits, ControlConnection } from './connection.js';
import { ConnectionSlots } from './connection-slots.js';
import {
  CLI_MAX_RESULT_ENTRIES,
  CONTROL_CLOSE_LINGER_MS,
  CONTROL_DISCARD_BYTES,
  CONTROL_IDLE_TIMEOUT_MS,
  CONTROL_REQUEST_TIMEOUT_MS,
  MAX_CONTROL_CONNECTIONS,
  MAX_PENDING_REQUESTS,
  MAX_REQUEST_LINE_BYTES,
  MAX_WATCH_BACKLOG,
  RESPONSE_SLICE_ENTRIES,
  WATCH_SLICE_EVENTS,
} from './constants.js';
import { encodeResponse, errorResponse } from './protocol.js';
import { listenPrivately, removeSocketFile } from './socket-file.js';
import { ControlError, type SpeakerControl } from './types.js';

export interface ControlServerInit extends Partial<ConnectionLimits> {
  /** Where the socket is created; its directory is created (0700) when missing. */
  readonly path: string;
  readonly control: SpeakerControl;
  readonly logger?: Logger;
  readonly maxConnections?: number;
  /**
   * Runs the CLI's show and neighbor commands for `cli` requests (src/cli/serve.ts); without
   * it they are answered `bad-request` and the client runs the command itself.
   */
  readonly cli?: CliRunner;
}

export interface ControlServer {
  readonly path: string;
  /** Clients connected now (each holds one of the `maxConnections` slots). */
  readonly connections: number;
  /** Stops accepting, drops connected clients and removes the socket file. */
  close(): Promise<void>;
}

/**
 * Listens on `path`. Rejects with a SocketFileError when another process serves the path
 * (`in-use`) or the path is not a socket; a stale socket file left by a crash is replaced.
 */
export async function startControlServer(init: ControlServerInit): Promise<ControlServer> {
  const log = init.logger ?? silentLogger;
  const limits: ConnectionLimits = {
    maxLineBytes: init.maxLineBytes ?? MAX_REQUEST_LINE_BYTES,
    maxPending: init.maxPending ?? MAX_PENDING_REQUESTS,
    idleTimeoutMs: init.idleTimeoutMs ?? CONTROL_IDLE_TIMEOUT_MS,
    requestTimeoutMs: init.requestTimeoutMs ?? CONTROL_REQUEST_TIMEOUT_MS,
    responseSliceEntries: init.responseSliceEntries ?? RESPONSE_SLICE_ENTRIES,
    watch: init.watch ?? { maxBacklog: MAX_WATCH_BACKLOG, sliceEvents: WATCH_SLICE_EVENTS },
    closeLingerMs: init.closeLingerMs ?? CONTROL_CLOSE_LINGER_MS,
    discardBytes: init.discardBytes ?? CONTROL_DISCARD_BYTES,
    cliMaxResultEntries: init.cliMaxResultEntries ?? CLI_MAX_RESULT_ENTRIES,
  };
  const cli = init.cli && { run: init.cli, path: init.path };
  const connections = new Set<ControlConnection>();
  // Our own count, not net.Server's maxConnections: that one drops a connection over the cap
  // without a word (the client reads ECONNRESET or EPIPE and cannot tell busy from broken).
  const slots = new ConnectionSlots(init.maxConnections ?? MAX_CONTROL_CONNECTIONS);
  let refusing = false;
  // Half-open: a client may send its requests and shut its side; it still gets every answer.
  const server: Server = createServer({ allowHalfOpen: true }, (socket) => {
    const slot = slots.take();
    if (!slot) {
      // One line per busy spell, not per refused client (a flood would flood the log too).
      if (!refusing)
        log.warn({ connections: slots.max }, 'control socket busy; refusing new clients until one leaves');
      refusing = true;
      refuse(socket, limits.closeLingerMs);
      return;
    }
    refusing = false;
    const connection = new ControlConnection(socket, init.control, limits, log, cli);
    connections.add(connection);
    // 'close' comes once however the socket ended, and only then is its descriptor gone.
    socket.once('close', () => {
      connections.delete(connection);
      slot.release();
    });
  });
  server.on('error', (e) => log.error({ err: e.message, path: init.path }, 'control socket failed'));

  const id = await listenPrivately(server, init.path);
  log.info({ path: init.path }, 'control socket listening');

  let closing: Promise<void> | null = null;
  return {
    path: init.path,
    get connections() {
      return slots.used;
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        removeSocketFile(init.path, id);
        server.close(() => resolve());
        for (const c of connections) c.destroy();
      });
      return closing;
    },
  };
}

const BUSY = encodeResponse(
  errorResponse(
    null,
    new ControlError('busy', 'the control socket serves as many clients as it takes; try again'),
  ),
);

/** Says `busy` and closes; nothing the client sent is read. */
function refuse(socket: Socket, lingerMs: number): void {
  socket.on('error', () => {});
  socket.setTimeout(lingerMs, () => socket.destroy());
  socket.end(BUSY, () => socket.destroy());
}
