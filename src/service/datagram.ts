/**
 * A unix datagram socket that only sends, through libc (node:dgram has no AF_UNIX): what
 * sd_notify(3) does, one sendto(2) per message. MSG_DONTWAIT: a service manager that does not
 * read must never block the speaker's event loop; a message it misses is one it misses.
 */
import { lastErrno, libc } from '../components/libc.js';
import { NotifySocketError } from './sockaddr-un.js';

const AF_UNIX = 1;
const SOCK_DGRAM = 2;
/** O_CLOEXEC: the fd must not leak into child processes (ovs-vsctl and the like). */
const SOCK_CLOEXEC = 0o2000000;
const MSG_DONTWAIT = 0x40;
const MSG_NOSIGNAL = 0x4000;

/** One socket, many sends to one address. */
export class UnixDatagramSender {
  readonly #address: Buffer;
  #fd: number;

  constructor(address: Buffer) {
    this.#address = address;
    this.#fd = libc().socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (this.#fd < 0)
      throw new NotifySocketError(
        'notify-socket',
        `socket(AF_UNIX, SOCK_DGRAM) failed: errno ${lastErrno()}`,
      );
  }

  /** Sends one datagram; returns the errno when the kernel refused it (no reader, queue full), else 0. */
  send(message: Buffer): number {
    if (this.#fd < 0) return 0;
    const sent = libc().sendto(
      this.#fd,
      message,
      message.length,
      MSG_DONTWAIT | MSG_NOSIGNAL,
      this.#address,
      this.#address.length,
    );
    return sent < 0 ? lastErrno() : 0;
  }

  close(): void {
    if (this.#fd < 0) return;
    libc().close(this.#fd);
    this.#fd = -1;
  }
}
