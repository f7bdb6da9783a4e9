/**
 * A persistent connection to one FRR daemon's vty socket, speaking what vtysh speaks: a
 * command is its text and a NUL; the answer is the output, then four bytes `0 0 0 <status>`
 * (status 0: success). One process per query (`vtysh -c`) costs ~10 ms of fork, exec and
 * connect on this machine; a query over a held connection costs bgpd well under a
 * millisecond, so a watch loop can look at FRR's RIB every millisecond without taking the
 * CPU the speaker and bgpd need.
 */
import net from 'node:net';

const TRAILER = 4;
const QUERY_TIMEOUT_MS = 10_000;

export class VtyError extends Error {
  readonly status: number;
  constructor(command: string, status: number, output: string) {
    super(`vty: ${command}: status ${status}: ${output.trim().slice(0, 200)}`);
    this.status = status;
  }
}

export class VtyClient {
  readonly #socket: net.Socket;
  #chunks: Buffer[] = [];
  #pending: { resolve: (out: string) => void; reject: (e: Error) => void; command: string } | null = null;
  #closed: Error | null = null;

  private constructor(socket: net.Socket) {
    this.#socket = socket;
    socket.on('data', (b) => this.#onData(b));
    socket.on('error', (e) => this.#fail(e));
    socket.on('close', () => this.#fail(new Error('vty: connection closed')));
  }

  /** Connects to `path` (e.g. `<frr dir>/bgpd.vty`). */
  static connect(path: string, timeoutMs = QUERY_TIMEOUT_MS): Promise<VtyClient> {
    return new Promise((resolve, reject) => {
      const s = net.createConnection(path);
      const timer = setTimeout(() => {
        s.destroy();
        reject(new Error(`vty: connect ${path}: timed out`));
      }, timeoutMs);
      s.once('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
      s.once('connect', () => {
        clearTimeout(timer);
        s.removeAllListeners('error');
        resolve(new VtyClient(s));
      });
    });
  }

  /** Runs one command; resolves with its output, rejects on a non-zero status. One at a time. */
  command(command: string, timeoutMs = QUERY_TIMEOUT_MS): Promise<string> {
    if (this.#closed) return Promise.reject(this.#closed);
    if (this.#pending) return Promise.reject(new Error('vty: one command at a time'));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.#fail(new Error(`vty: ${command}: timed out`)), timeoutMs);
      this.#pending = {
        command,
        resolve: (out) => {
          clearTimeout(timer);
          resolve(out);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      };
      this.#socket.write(`${command}\0`);
    });
  }

  close(): void {
    this.#socket.destroy();
  }

  #onData(b: Buffer): void {
    this.#chunks.push(b);
    // The answer is complete when it ends in the trailer; output never holds NUL bytes.
    const last = b.length >= TRAILER ? b : Buffer.concat(this.#chunks.slice(-2));
    const n = last.length;
    if (n < TRAILER || last[n - 4] !== 0 || last[n - 3] !== 0 || last[n - 2] !== 0) return;
    const all = Buffer.concat(this.#chunks);
    this.#chunks = [];
    const status = all[all.length - 1];
    const out = all.subarray(0, all.length - TRAILER).toString('utf8');
    const p = this.#pending;
    this.#pending = null;
    if (!p) return;
    if (status === 0) p.resolve(out);
    else p.reject(new VtyError(p.command, status, out));
  }

  #fail(e: Error): void {
    if (!this.#closed) this.#closed = e;
    const p = this.#pending;
    this.#pending = null;
    p?.reject(e);
    this.#socket.destroy();
  }
}
