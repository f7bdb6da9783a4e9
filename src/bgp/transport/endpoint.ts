import { formatIp, tryParseIp, unmapV4 } from '../../address/index.js';
import { TransportError } from './errors.js';

const MAX_PORT = 0xffff;

/** An address and port as we report them: IPv4 peers never appear as ::ffff:a.b.c.d. */
export interface Endpoint {
  readonly address: string;
  readonly port: number;
  /** The interface of a link-local address (node reports fe80::1%eth1); absent otherwise. */
  readonly zone?: string;
}

/** From node's remoteAddress/remotePort (or local*); undefined once the socket is gone. */
export function endpointOf(address: string | undefined, port: number | undefined): Endpoint | undefined {
  if (address === undefined || port === undefined) return undefined;
  const at = address.indexOf('%');
  const ip = tryParseIp(at < 0 ? address : address.slice(0, at));
  if (!ip) return undefined;
  const zone = at < 0 ? '' : address.slice(at + 1);
  return zone === '' ? { address: formatIp(unmapV4(ip)), port } : { address: formatIp(ip), port, zone };
}

/** The endpoint's address as a socket takes it: fe80::1%eth1 for a link-local one. */
export function scopedText(e: Pick<Endpoint, 'address' | 'zone'>): string {
  return e.zone === undefined ? e.address : `${e.address}%${e.zone}`;
}

/** A TCP port in 0..65535 (0: the kernel picks one), or a TransportError naming `what`. */
export function checkPort(port: number, what: string): void {
  if (!Number.isInteger(port) || port < 0 || port > MAX_PORT) {
    throw new TransportError('invalid-option', `${what} ${port} is not in 0..${MAX_PORT}`);
  }
}
