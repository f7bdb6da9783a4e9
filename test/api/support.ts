import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { type ControlServer, startControlServer } from '../../src/api/index.js';
import { fakeControl } from './fake-control.js';

/** A fresh directory for sockets; `cleanup` removes it. */
export function tempDir(prefix = 'obs-api-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

type ServerInit = Parameters<typeof startControlServer>[0];

/**
 * For a test file of control servers: per test a fresh directory (`dir`) with the socket path
 * `socket` below it (`path`), and every server started (`start`, on the fake control unless
 * told otherwise) or handed over (`keep`) closed afterwards, the directory removed.
 */
export function controlServers(socket = 'control.sock', defaults: Partial<ServerInit> = {}) {
  let tmp: ReturnType<typeof tempDir> | null = null;
  let servers: ControlServer[] = [];
  beforeEach(() => {
    tmp = tempDir();
    servers = [];
  });
  afterEach(async () => {
    await Promise.all(servers.map((s) => s.close()));
    tmp?.cleanup();
  });
  const fixture = {
    get dir(): string {
      if (!tmp) throw new Error('controlServers: used outside a test');
      return tmp.dir;
    },
    get path(): string {
      return join(fixture.dir, socket);
    },
    keep(server: ControlServer): ControlServer {
      servers.push(server);
      return server;
    },
    async start(init: Partial<ServerInit> = {}): Promise<ControlServer> {
      return fixture.keep(
        await startControlServer({ path: fixture.path, control: fakeControl(), ...defaults, ...init }),
      );
    },
  };
  return fixture;
}

/** Bounded by this, a test that would hang fails instead. */
const WAIT_MS = 5_000;

export interface Exchange {
  readonly lines: string[];
  /** The connection ended (either side) before WAIT_MS. */
  readonly closed: boolean;
}

/**
 * Writes `data` on a raw connection and collects answer lines until `expectLines` arrived
 * (then closes) or the server closes. `halfClose` ends our side after writing.
 */
export function exchange(
  path: string,
  data: string | Buffer,
  expectLines: number,
  halfClose = false,
): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(path);
    let text = '';
    let done = false;
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const lines = text.split('\n');
      lines.pop();
      resolve({ lines, closed });
    };
    const timer = setTimeout(() => finish(false), WAIT_MS);
    socket.on('connect', () => {
      socket.write(data);
      if (halfClose) socket.end();
    });
    socket.on('data', (chunk) => {
      text += chunk.toString('utf8');
      if (text.split('\n').length - 1 >= expectLines && expectLines > 0) finish(false);
    });
    // The server may reset after its error answer; what was read still counts.
    socket.on('error', (e: NodeJS.ErrnoException) => (text ? finish(true) : reject(e)));
    socket.on('close', () => finish(true));
  });
}

export const request = (id: number | string, method: string, params?: unknown) =>
  `${JSON.stringify({ id, method, ...(params !== undefined && { params }) })}\n`;
