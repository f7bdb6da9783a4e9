import {
  IPV4_LINK_PREFIX_LEN,
  IPV6_LINK_PREFIX_LEN,
  MAX_PEER_LINKS,
  MAX_PEERS,
  PEER_LINK_OCTET_BASE,
} from './constants.js';
import { invalid } from './errors.js';
import type { Family } from './spec.js';

/** Host addresses (no prefix length) of one end of a link, per family. */
export type Addresses = Readonly<Record<Family, string>>;

export interface LinkEnd {
  readonly node: string;
  readonly ns: string;
  readonly ifname: string;
  readonly address: Addresses;
}

/** A veth between two lab nodes: end `a` holds .1 / ::1, end `b` holds .2 / ::2. */
export interface LabLink {
  readonly a: LinkEnd;
  readonly b: LinkEnd;
  /** The link's subnets in CIDR form. */
  readonly subnet: Addresses;
}

interface LinkNumbers {
  readonly v4Octet: number;
  readonly v6Group: string;
}

/** Speaker link of the i-th peer (1-based): 198.18.<i>.0/24 and 2001:db8:<i>::/64. */
export function speakerLinkNumbers(i: number): LinkNumbers {
  if (!Number.isInteger(i) || i < 1 || i > MAX_PEERS) throw invalid(`peer index out of range: ${i}`);
  return { v4Octet: i, v6Group: String(i) };
}

/** j-th peer-to-peer link (0-based): 198.18.<100+j>.0/24 and 2001:db8:ff<jj>::/64. */
export function peerLinkNumbers(j: number): LinkNumbers {
  if (!Number.isInteger(j) || j < 0 || j >= MAX_PEER_LINKS)
    throw invalid(`peer link index out of range: ${j}`);
  return { v4Octet: PEER_LINK_OCTET_BASE + j, v6Group: `ff${String(j).padStart(2, '0')}` };
}

export interface LinkEndName {
  readonly node: string;
  readonly ns: string;
  readonly ifname: string;
}

export function planLink(n: LinkNumbers, a: LinkEndName, b: LinkEndName): LabLink {
  const host = (h: number): Addresses => ({
    ipv4: `198.18.${n.v4Octet}.${h}`,
    ipv6: `2001:db8:${n.v6Group}::${h}`,
  });
  return {
    a: { ...a, address: host(1) },
    b: { ...b, address: host(2) },
    subnet: {
      ipv4: `198.18.${n.v4Octet}.0/${IPV4_LINK_PREFIX_LEN}`,
      ipv6: `2001:db8:${n.v6Group}::/${IPV6_LINK_PREFIX_LEN}`,
    },
  };
}

/** CIDR form of a link end's address, as the interface carries it. */
export function withPrefixLen(address: string, family: Family): string {
  return `${address}/${family === 'ipv4' ? IPV4_LINK_PREFIX_LEN : IPV6_LINK_PREFIX_LEN}`;
}
