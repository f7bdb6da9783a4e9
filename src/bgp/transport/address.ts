import { type IpAddress, tryParseIp } from '../../address/index.js';
import { TransportError } from './errors.js';

/**
 * An address a socket call was given, as 4 or 16 bytes; anything else is a TransportError
 * ('invalid-address') naming it, so a bad peer or listen address fails like any other socket
 * setup.
 */
export function parseTransportAddress(text: string): IpAddress {
  const ip = tryParseIp(text);
  if (!ip) {
    const why = text.includes('%') ? ' (a zone id goes with an IPv6 link-local peer only)' : '';
    throw new TransportError('invalid-address', `not an IP address: '${text}'${why}`, { address: text });
  }
  return ip;
}

/** An address with the interface it is reached over: fe80::1%eth1 (RFC 4007 11.2). */
export interface ScopedAddress {
  readonly ip: IpAddress;
  /** The interface name of a link-local address; undefined for every other address. */
  readonly zone: string | undefined;
}

/** fe80::/10: an address that means something only together with an interface (RFC 4291 2.5.6). */
export function isLinkLocalIp(ip: IpAddress): boolean {
  return ip.family === 6 && ip.bytes[0] === 0xfe && (ip.bytes[1] & 0xc0) === 0x80;
}

/**
 * A peer address as a socket takes it: a plain address, or a link-local one with its
 * interface after '%' (as node reports and takes them). A zone on any other address, or an
 * empty one, is an 'invalid-address' error.
 */
export function parseScopedAddress(text: string): ScopedAddress {
  const at = text.indexOf('%');
  if (at < 0) return { ip: parseTransportAddress(text), zone: undefined };
  const ip = parseTransportAddress(text.slice(0, at));
  const zone = text.slice(at + 1);
  if (!isLinkLocalIp(ip) || zone === '') {
    throw new TransportError(
      'invalid-address',
      `'${text}': a zone id goes with an IPv6 link-local address only, and names an interface`,
      { address: text },
    );
  }
  return { ip, zone };
}
