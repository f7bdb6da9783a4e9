/**
 * The control socket: a unix socket (0600) serving SpeakerControl to the CLI, one JSON
 * request per line (see protocol.ts). Many requests per connection, many clients at once.
 */
import { createServer, type Server } from 'node:net';
import { type Logger, silentLogger } from '../components/index.js';
import { type ConnectionLimits, ControlConnection } from './connection.js';
import {
  CONTROL_IDLE_TIMEOUT_MS,
  CONTROL_REQUEST_TIMEOUT_MS,
  MAX_CONTROL_CONNECTIONS,
  MAX_PENDING_REQUESTS,
  MAX_REQUEST_LINE_BYTES,
  MAX_WATCH_BACKLOG,
  RESPONSE_SLICE_ENTRIES,
  WATCH_SLICE_EVENTS,
} from './constants.js';
import { listenPrivately, removeSocketFile } from './socket-file.js';
import type { SpeakerControl } from './types.js';

export interface ControlServerInit extends Partial<ConnectionLimits> {
  /** Where the socket is created; its directory is created (0700) when missing. */
  readonly path: string;
  readonly control: SpeakerControl;
  readonly logger?: Logger;
  readonly maxConnections?: number;
}

export interface ControlServer {
  readonly path: string;
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
  };
  const connections = new Set<ControlConnection>();
  // Half-open: a client may send its requests and shut its side; it still gets every answer.
  const server: Server = createServer({ allowHalfOpen: true }, (socket) => {
    const connection = new ControlConnection(socket, init.control, limits, log);
    connections.add(connection);
    socket.once('close', () => connections.delete(connection));
  });
  server.maxConnections = init.maxConnections ?? MAX_CONTROL_CONNECTIONS;
  server.on('error', (e) => log.error({ err: e.message, path: init.path }, 'control socket failed'));

  const id = await listenPrivately(server, init.path);
  log.info({ path: init.path }, 'control socket listening');

  let closing: Promise<void> | null = null;
  return {
    path: init.path,
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
