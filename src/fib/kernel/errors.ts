import { KindedError } from '../../components/index.js';
import { errnoName } from './constants.js';

/**
 * Every failure of the kernel target is a KernelError with a stable `kind`. A per-route
 * rejection (`rejected`) is recorded against that route; the others fail the whole call.
 */
export type KernelErrorKind =
  /** A message from the kernel that does not parse: lengths past their container. */
  | 'malformed'
  /** A route we cannot express as rtnetlink (a link-local next hop without an interface...). */
  | 'unencodable'
  /** The kernel answered a request with an NLMSG_ERROR; `errno` and `detail` (extended ACK) say why. */
  | 'rejected'
  /** ENOBUFS: answers were lost, so what the kernel holds is unknown until the next dump. */
  | 'overrun'
  /** A write's last message got no answer in time. */
  | 'timeout'
  /** The netlink socket could not be opened or written, or closed under us. */
  | 'socket'
  | 'closed';

export class KernelError extends KindedError<KernelErrorKind> {
  /** Positive errno for `rejected`, `overrun` and `socket`. */
  readonly errno: number | undefined;
  /** The kernel's extended-ACK message, when it sent one. */
  readonly detail: string | undefined;

  constructor(kind: KernelErrorKind, message: string, errno?: number, detail?: string) {
    super(kind, `${kind}: ${message}`);
    this.errno = errno;
    this.detail = detail;
  }
}

/** "ENETUNREACH (Nexthop has invalid gateway)": how a rejection reads in logs and status. */
export function rejectionText(errno: number, detail: string | undefined): string {
  return detail ? `${errnoName(errno)} (${detail})` : errnoName(errno);
}
