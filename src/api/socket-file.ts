/**
 * The control socket's file: refuse a path another speaker is serving, replace a stale one,
 * and never let anyone but the owner connect, not even for an instant.
 *
 * The socket is bound inside a fresh 0700 directory, chmod-ed to 0600 there, then hard-linked
 * to its final path. link(2) fails if the path exists, so two speakers starting together
 * cannot both take it, and no umask is involved (process.umask is process-wide and not
 * available in worker threads).
 */
import { chmodSync, linkSync, lstatSync, mkdirSync, mkdtempSync, rmSync, unlinkSync } from 'node:fs';
import { connect, type Server } from 'node:net';
import { basename, dirname, join } from 'node:path';
import { KindedError } from '../components/index.js';
import {
  MAX_SOCKET_PATH_BYTES,
  PRIVATE_DIR_MODE,
  SOCKET_MODE,
  SOCKET_PROBE_TIMEOUT_MS,
} from './constants.js';

export type SocketFileErrorKind = 'in-use' | 'not-a-socket' | 'path-too-long' | 'cannot-create';

export class SocketFileError extends KindedError<SocketFileErrorKind> {
  constructor(kind: SocketFileErrorKind, message: string) {
    super(kind, message);
  }
}

/** Identifies the socket file we made, so close() never removes someone else's. */
export interface SocketFileId {
  readonly dev: number;
  readonly ino: number;
}

export type Liveness = 'absent' | 'stale' | 'live';

/** Does something accept connections on `path`? A socket that does not answer in time counts as live. */
export function probeSocket(path: string, timeoutMs = SOCKET_PROBE_TIMEOUT_MS): Promise<Liveness> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    const done = (outcome: Liveness | Error) => {
      clearTimeout(timer);
      socket.destroy();
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    const timer = setTimeout(() => done('live'), timeoutMs);
    socket.once('connect', () => done('live'));
    socket.once('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'ECONNREFUSED') done('stale');
      else if (e.code === 'ENOENT') done('absent');
      else done(new SocketFileError('cannot-create', `cannot probe ${path}: ${e.message}`));
    });
  });
}

function fileId(path: string): (SocketFileId & { socket: boolean }) | null {
  try {
    const s = lstatSync(path);
    return { dev: s.dev, ino: s.ino, socket: s.isSocket() };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/** Makes `path` free to take: refuses a live socket or a file that is not a socket, removes a stale one. */
export async function clearStaleSocket(path: string): Promise<void> {
  const before = fileId(path);
  if (before === null) return;
  if (!before.socket) throw new SocketFileError('not-a-socket', `${path} exists and is not a socket`);
  const liveness = await probeSocket(path);
  if (liveness === 'live') {
    throw new SocketFileError('in-use', `${path} is in use: another speaker is serving it`);
  }
  // Remove only the file we probed; if it changed meanwhile, link() below refuses.
  const now = fileId(path);
  if (liveness === 'stale' && now && now.ino === before.ino && now.dev === before.dev) unlinkSync(path);
}

function listen(server: Server, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (e: Error) => reject(e);
    server.once('error', onError);
    server.listen(path, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

/**
 * Binds `server` at `path` with mode 0600. The parent directory is created (0700) if missing.
 * On failure nothing is left behind and the server is closed.
 */
export async function listenPrivately(server: Server, path: string): Promise<SocketFileId> {
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH_BYTES) {
    throw new SocketFileError('path-too-long', `${path} is longer than ${MAX_SOCKET_PATH_BYTES} octets`);
  }
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  await clearStaleSocket(path);
  // A short name keeps the temporary path within sun_path whenever the final one is.
  const privateDir = mkdtempSync(join(dir, `.${basename(path).slice(0, 4)}-`));
  const bound = join(privateDir, 's');
  try {
    if (Buffer.byteLength(bound) > MAX_SOCKET_PATH_BYTES) {
      throw new SocketFileError('path-too-long', `${dir} is too deep for a socket path`);
    }
    await listen(server, bound);
    chmodSync(bound, SOCKET_MODE);
    try {
      linkSync(bound, path);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EEXIST')
        throw new SocketFileError('in-use', `${path} appeared while starting: another speaker?`);
      throw new SocketFileError('cannot-create', `cannot create ${path}: ${(e as Error).message}`);
    }
    const id = fileId(path)!;
    return { dev: id.dev, ino: id.ino };
  } catch (e) {
    server.close();
    throw e;
  } finally {
    rmSync(privateDir, { recursive: true, force: true });
  }
}

/** Removes the socket file if it is still the one we made. */
export function removeSocketFile(path: string, id: SocketFileId): void {
  try {
    const now = fileId(path);
    if (now && now.ino === id.ino && now.dev === id.dev) unlinkSync(path);
  } catch {
    // Already gone or not ours to remove: nothing to do.
  }
}
