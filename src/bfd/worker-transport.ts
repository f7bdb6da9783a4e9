import type dgram from 'node:dgram';
import { BFD_TTL, BfdPort } from './constants.js';
import type { Arrival, BfdTransport } from './engine.js';
import type { BfdSessionSpec, FromWorker } from './types.js';
import {
  familyOf,
  openReceiveSocket,
  openSendSocket,
  type ReceiveSocket,
  setMinTtl,
  sourceAddress,
} from './udp.js';

export interface Ports {
  readonly singleHop: number;
  readonly multiHop: number;
}

interface Sender {
  socket: dgram.Socket | null;
  readonly spec: BfdSessionSpec;
  readonly family: 4 | 6;
  closed: boolean;
}

const FAMILIES = [4, 6] as const;

/**
 * The sockets behind the engine, in the worker: one receive socket per port kind and address
 * family (single hop with the TTL 255 filter, multihop with the lowest TTL its sessions allow),
 * and one sending socket per session.
 */
export class WorkerTransport implements BfdTransport {
  readonly #report: (m: FromWorker) => void;
  readonly #random: () => number;
  readonly #senders = new Map<number, Sender>();
  readonly #receivers: ReceiveSocket[] = [];
  readonly #multihop = new Map<4 | 6, ReceiveSocket>();
  #multihopMinTtl = BFD_TTL;
  #ports: Ports = { singleHop: 0, multiHop: 0 };
  /** Stopping: closed sessions' sockets stay open until closeAll, so their last packet leaves. */
  #lingering: dgram.Socket[] | null = null;

  constructor(report: (m: FromWorker) => void, random: () => number) {
    this.#report = report;
    this.#random = random;
  }

  get ports(): Ports {
    return this.#ports;
  }

  /**
   * Opens the receive sockets; `onPacket` gets every datagram that passed the TTL filter.
   * A family the namespace lacks, or a port another BFD daemon holds, is logged and skipped.
   */
  async listen(wanted: Ports, onPacket: (bytes: Uint8Array, from: Arrival) => void): Promise<Ports> {
    const ports = { singleHop: wanted.singleHop, multiHop: wanted.multiHop };
    for (const multihop of [false, true]) {
      for (const family of FAMILIES) {
        const port = multihop ? ports.multiHop : ports.singleHop;
        try {
          // RFC 5881 5: single hop takes TTL 255 only; multihop starts the same until a session asks for less.
          const r = await openReceiveSocket(family, port, BFD_TTL);
          r.socket.on('message', (bytes, rinfo) =>
            onPacket(bytes, { address: sourceAddress(rinfo), multihop }),
          );
          r.socket.on('error', (error) =>
            this.#log('warn', 'BFD receive socket error', { error: String(error) }),
          );
          this.#receivers.push(r);
          if (multihop) this.#multihop.set(family, r);
          // Port 0 (tests): the other family takes the same number.
          if (multihop) ports.multiHop = r.port;
          else ports.singleHop = r.port;
        } catch (error) {
          this.#log('error', 'BFD cannot receive on this port: sessions over it stay Down', {
            family: `IPv${family}`,
            port,
            multihop,
            error: String(error),
          });
        }
      }
    }
    this.#ports = ports;
    return ports;
  }

  open(id: number, spec: BfdSessionSpec): void {
    const sender: Sender = { socket: null, spec, family: familyOf(spec.peer), closed: false };
    this.#senders.set(id, sender);
    if (spec.multihop) this.#lowerMultihopTtl(spec.hops);
    openSendSocket(sender.family, spec.local, this.#random).then(
      (socket) => {
        if (sender.closed) {
          socket.close();
          return;
        }
        socket.on('error', (error) =>
          this.#log('debug', 'BFD send failed', { peer: spec.peer, error: String(error) }),
        );
        sender.socket = socket;
      },
      (error) =>
        this.#log('error', 'BFD cannot open a socket to send from', {
          peer: spec.peer,
          error: String(error),
        }),
    );
  }

  send(id: number, bytes: Uint8Array): void {
    const sender = this.#senders.get(id);
    if (!sender?.socket) return;
    const port =
      sender.spec.port ?? (sender.spec.multihop ? this.#defaultPort(true) : this.#defaultPort(false));
    // The engine reuses its buffer; the datagram keeps a copy until it is sent.
    sender.socket.send(Buffer.from(bytes), port, sender.spec.peer, (error) => {
      if (error) this.#log('debug', 'BFD send failed', { peer: sender.spec.peer, error: String(error) });
    });
  }

  close(id: number): void {
    const sender = this.#senders.get(id);
    if (!sender) return;
    sender.closed = true;
    if (sender.socket && this.#lingering) this.#lingering.push(sender.socket);
    else sender.socket?.close();
    this.#senders.delete(id);
  }

  /** From now on a closed session's socket stays open until closeAll. */
  linger(): void {
    this.#lingering ??= [];
  }

  closeAll(): void {
    for (const id of [...this.#senders.keys()]) this.close(id);
    for (const socket of this.#lingering ?? []) socket.close();
    this.#lingering = null;
    for (const r of this.#receivers) r.socket.close();
    this.#receivers.length = 0;
  }

  #defaultPort(multihop: boolean): number {
    return multihop ? BfdPort.MULTI_HOP : BfdPort.SINGLE_HOP;
  }

  /** RFC 5883 5: a multihop session accepts what crossed up to its hops (TTL 256 - hops and up). */
  #lowerMultihopTtl(hops: number): void {
    const min = Math.max(1, BFD_TTL + 1 - hops);
    if (min >= this.#multihopMinTtl) return;
    this.#multihopMinTtl = min;
    for (const [family, r] of this.#multihop) setMinTtl(r.fd, family, min);
  }

  #log(level: 'debug' | 'info' | 'warn' | 'error', message: string, fields: Record<string, unknown>): void {
    this.#report({ type: 'log', level, message, fields });
  }
}
