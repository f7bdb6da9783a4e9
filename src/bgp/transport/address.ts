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
    const why = text.includes('%') ? ' (zone ids are not supported; use ifindex)' : '';
    throw new TransportError('invalid-address', `not an IP address: '${text}'${why}`, { address: text });
  }
  return ip;
}
