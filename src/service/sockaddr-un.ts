/**
 * struct sockaddr_un (sys/un.h) for a NOTIFY_SOCKET value, as sd_notify(3) reads it: an
 * absolute path, or `@name` for a name in the abstract namespace (a leading NUL, no
 * terminator, the length says where it ends).
 *
 *   0        2                                              110
 *   +--------+----------------------------------------------+
 *   | family | sun_path[108]                                |
 *   | u16 h  | path NUL, or NUL name (abstract)             |
 *   +--------+----------------------------------------------+
 */
import { endianness } from 'node:os';
import { KindedError } from '../components/index.js';

export const AF_UNIX = 1;
const FAMILY_BYTES = 2;
/** Linux sun_path is 108 octets. */
export const SUN_PATH_BYTES = 108;

export class NotifySocketError extends KindedError<'notify-socket'> {}

/** The sockaddr bytes to hand to sendto(2) with their exact length. */
export function encodeSockaddrUn(target: string): Buffer {
  const abstract = target.startsWith('@');
  if (!abstract && !target.startsWith('/')) {
    throw new NotifySocketError(
      'notify-socket',
      `NOTIFY_SOCKET ${JSON.stringify(target)} is neither an absolute path nor an @abstract name`,
    );
  }
  const name = Buffer.from(abstract ? target.slice(1) : target, 'utf8');
  // A path needs its terminating NUL inside sun_path; an abstract name its leading NUL.
  if (name.length + 1 > SUN_PATH_BYTES || name.includes(0)) {
    throw new NotifySocketError(
      'notify-socket',
      `NOTIFY_SOCKET ${JSON.stringify(target)} does not fit sun_path (${SUN_PATH_BYTES} bytes, no NUL inside)`,
    );
  }
  const out = Buffer.alloc(FAMILY_BYTES + 1 + name.length);
  // sa_family is in host order.
  if (endianness() === 'LE') out.writeUInt16LE(AF_UNIX, 0);
  else out.writeUInt16BE(AF_UNIX, 0);
  // Abstract: sun_path[0] is NUL and the name follows; a path: the name, then the NUL.
  name.copy(out, abstract ? FAMILY_BYTES + 1 : FAMILY_BYTES);
  return out;
}
