import { tryParseIp } from '../../address/index.js';
import type { UpdateContext } from '../wire/index.js';
import type { ConnectionInfo } from './peer-events.js';

/**
 * What the UPDATE decoder's semantic NEXT_HOP checks (RFC 4271 section 6.3) need from the
 * connection: our own address, and whether the session runs over IPv6 link-local addresses.
 */
export function nextHopFacts(c: ConnectionInfo): Pick<UpdateContext, 'localAddress' | 'linkLocalSession'> {
  const local = tryParseIp(c.local.address);
  const remote = tryParseIp(c.remote.address.split('%')[0]);
  return {
    localAddress: local?.bytes,
    linkLocalSession: remote?.family === 6 && remote.bytes[0] === 0xfe && (remote.bytes[1] & 0xc0) === 0x80,
  };
}
