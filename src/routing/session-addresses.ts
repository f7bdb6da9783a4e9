import type { NetworkInterfaceInfo } from 'node:os';
import { addressBytes, normalizeAddress, parseIpv4 } from '../address/index.js';
import { parsePrefix, RibPrefix } from '../rib/index.js';

/** What `os.networkInterfaces()` returns: the addresses of each interface. */
export type InterfaceTable = NodeJS.Dict<NetworkInterfaceInfo[]>;

/** Our addresses on one session, as export puts them in NEXT_HOP / MP_REACH_NLRI. */
export interface SessionAddresses {
  readonly ipv4: number | undefined;
  /** A global (not link-local) IPv6 address. */
  readonly ipv6: Uint8Array | undefined;
  /** The interface's link-local IPv6 address (the second half of a 32-byte next hop, RFC 2545). */
  readonly ipv6LinkLocal: Uint8Array | undefined;
  /** The subnets of the interface the session runs over (RFC 4271 5.1.3 third-party next hops). */
  readonly subnets: readonly RibPrefix[];
  /**
   * Whether an interface holding the local address was listed. Not yet, for a moment after a
   * link comes up (the kernel marks it running later; getifaddrs leaves it out until then).
   */
  readonly found: boolean;
}

const LINK_LOCAL = /^fe[89ab][0-9a-f]:/i;

/**
 * Our addresses for a session whose local end is `local`: that address for its own family,
 * and the other family's address from the same interface (as FRR takes the interface's global
 * IPv6 address for IPv6 routes over an IPv4 session), when there is one.
 */
export function sessionAddresses(local: string, interfaces: InterfaceTable): SessionAddresses {
  const address = normalizeAddress(local);
  const v6 = address.includes(':');
  const iface = Object.values(interfaces).find((list) =>
    list?.some((a) => normalizeSafe(a.address) === address),
  );
  const sibling = (family: 'IPv4' | 'IPv6') =>
    iface?.find((a) => a.family === family && !(family === 'IPv6' && LINK_LOCAL.test(a.address)))?.address;
  const ipv4 = v6 ? sibling('IPv4') : address;
  // A session between link-local addresses (BGP unnumbered): the interface's global address
  // goes first in our IPv6 next hop when it has one, else the link-local one stands alone.
  const ipv6 = v6 ? (LINK_LOCAL.test(address) ? (sibling('IPv6') ?? address) : address) : sibling('IPv6');
  const linkLocal = iface?.find((a) => a.family === 'IPv6' && LINK_LOCAL.test(a.address))?.address;
  const subnets: RibPrefix[] = [];
  for (const a of iface ?? []) {
    if (a.cidr === null || (a.family === 'IPv6' && LINK_LOCAL.test(a.address))) continue;
    try {
      subnets.push(parsePrefix(a.cidr));
    } catch {
      // A cidr the RIB cannot read (never seen on Linux) is just not a shared subnet.
    }
  }
  return {
    ipv4: ipv4 === undefined ? undefined : parseIpv4(ipv4),
    ipv6: ipv6 === undefined ? undefined : addressBytes(ipv6),
    ipv6LinkLocal: linkLocal === undefined ? undefined : addressBytes(linkLocal.replace(/%.*$/, '')),
    subnets,
    found: iface !== undefined,
  };
}

/**
 * Is the peer on the link the session runs over: its address link-local, or inside one of the
 * interface's subnets? Then our IPv6 next hop carries our link-local address too (RFC 2545
 * section 3), which is what a peer on an unnumbered link can route through.
 */
export function peerOnLink(remote: string, local: SessionAddresses): boolean {
  const address = normalizeSafe(remote.replace(/%.*$/, ''));
  if (address === undefined) return false;
  if (LINK_LOCAL.test(address)) return true;
  let peer: RibPrefix;
  try {
    peer = parsePrefix(`${address}/${address.includes(':') ? 128 : 32}`);
  } catch {
    return false;
  }
  const words = peer.words();
  return local.subnets.some(
    (s) => s.afi === peer.afi && RibPrefix.fromWords(s.afi, words, 0, s.len).equals(s),
  );
}

function normalizeSafe(text: string): string | undefined {
  try {
    return normalizeAddress(text);
  } catch {
    return undefined;
  }
}

/**
 * The networks of this host's addresses (link-local ones left out), as the RIB writes
 * prefixes: what the kernel holds as connected routes, which a routing table's route for the
 * same prefix never wins against in zebra (so FRR never redistributes it).
 */
export function connectedNetworks(interfaces: InterfaceTable): Set<string> {
  const out = new Set<string>();
  for (const list of Object.values(interfaces))
    for (const a of list ?? []) {
      if (a.cidr === null || (a.family === 'IPv6' && LINK_LOCAL.test(a.address))) continue;
      try {
        out.add(parsePrefix(a.cidr).toString());
      } catch {
        // not a prefix the RIB reads: not one a table route could name either
      }
    }
  return out;
}
