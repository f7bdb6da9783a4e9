import { formatIp, tryParseIp, unmapV4 } from '../../address/index.js';
import { TransportError } from './errors.js';

const MAX_PORT = 0xffff;

/** An address and port as we report them: IPv4 peers never appear as ::ffff:a.b.c.d. */
export interface Endpoint {
  readonly address: string;
  readonly port: number;
}

/** From node's remoteAddress/remotePort (or local*); undefined once the socket is gone. */
export function endpointOf(address: string | undefined, port: number | undefined): Endpoint | undefined {
  const ip = address === undefined ? undefined : tryParseIp(address);
  return ip && port !== undefined ? { address: formatIp(unmapV4(ip)), port } : undefined;
}

/** A TCP port in 0..65535 (0: the kernel picks one), or a TransportError naming `what`. */
export function checkPort(port: number, what: string): void {
  if (!Number.isInteger(port) || port < 0 || port > MAX_PORT) {
    throw new TransportError('invalid-option', `${what} ${port} is not in 0..${MAX_PORT}`);
  }
}
