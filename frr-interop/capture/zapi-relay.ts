/**
 * A unix-socket relay between ZAPI clients and zebra that records every frame it passes on.
 * Each accepted client gets its own connection to zebra; bytes go through unchanged, and are
 * cut into frames by the header's length (the first two bytes, RFC-free ZAPI framing), so a
 * recording never depends on the codec under test.
 */
import { chmodSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export interface RecordedFrame {
  /** Order over all connections, as the relay read the frames. */
  readonly seq: number;
  readonly from: 'client' | 'zebra';
  /** The header's command field (bytes 8-9). */
  readonly command: number;
  readonly hex: string;
}

export interface RecordedConnection {
  /** Who the client was: the label set when it connected. */
  readonly client: string;
  readonly frames: RecordedFrame[];
}

const HEADER = 10;

/** Cuts a byte stream into length-prefixed frames; keeps the tail until it is whole. */
class Cutter {
  #buf: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): Buffer[] {
    this.#buf = this.#buf.length === 0 ? chunk : Buffer.concat([this.#buf, chunk]);
    const out: Buffer[] = [];
    while (this.#buf.length >= HEADER) {
      const len = this.#buf.readUInt16BE(0);
      if (len < HEADER) throw new Error(`frame length ${len} under the header size`);
      if (this.#buf.length < len) break;
      out.push(Buffer.from(this.#buf.subarray(0, len)));
      this.#buf = this.#buf.subarray(len);
    }
    return out;
  }
}

export class ZapiRelay {
  readonly path: string;
  readonly connections: RecordedConnection[] = [];
  /** Connections accepted from now on are recorded under this name. */
  label = 'client';
  readonly #zebra: string;
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  #seq = 0;

  private constructor(path: string, zebra: string) {
    this.path = path;
    this.#zebra = zebra;
    this.#server = createServer((c) => this.#accept(c));
  }

  /** Listens at `path` (mode 0777, so a daemon running as frr can connect) for zebra at `zebra`. */
  static async start(path: string, zebra: string): Promise<ZapiRelay> {
    rmSync(path, { force: true });
    const relay = new ZapiRelay(path, zebra);
    await new Promise<void>((resolve, reject) => {
      relay.#server.once('error', reject);
      relay.#server.listen(path, () => resolve());
    });
    chmodSync(path, 0o777);
    return relay;
  }

  /** Frames recorded so far, over all connections. */
  get frameCount(): number {
    return this.#seq;
  }

  #accept(client: Socket): void {
    const conn: RecordedConnection = { client: this.label, frames: [] };
    this.connections.push(conn);
    const zebra = createConnection({ path: this.#zebra });
    for (const s of [client, zebra]) {
      this.#sockets.add(s);
      s.on('close', () => this.#sockets.delete(s));
    }
    this.#pump(client, zebra, 'client', conn);
    this.#pump(zebra, client, 'zebra', conn);
  }

  #pump(src: Socket, dst: Socket, from: RecordedFrame['from'], conn: RecordedConnection): void {
    const cutter = new Cutter();
    src.on('data', (chunk: Buffer) => {
      dst.write(chunk);
      for (const f of cutter.push(chunk))
        conn.frames.push({ seq: this.#seq++, from, command: f.readUInt16BE(8), hex: f.toString('hex') });
    });
    src.on('end', () => dst.end());
    src.on('error', () => dst.destroy());
    src.on('close', () => dst.end());
  }

  async close(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
    rmSync(this.path, { force: true });
  }
}
