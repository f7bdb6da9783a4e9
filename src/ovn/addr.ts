import {
  addressBits,
  formatIp,
  formatIpPrefix,
  type IpAddress,
  type IpPrefix,
  networkOf,
  type PrefixRules,
  tryParseIp,
  tryParseIpPrefix,
} from '../address/index.js';

/*
 * Addresses as OVN writes them, read through src/address: octets may carry leading zeros
 * (ovn-northd reads them with ovs_scan "%d"), an IPv6 address may stand in brackets (a VIP
 * key), and a router port's network keeps its host bits (198.18.64.1/24 is the port's address).
 */

/** Host bits as written, an address alone as its host prefix, leading zeros read as decimal. */
const OVN_PREFIX: PrefixRules = { hostBits: 'keep', bareAddress: true, leadingZeros: true };

/** An IPv4 or IPv6 address as OVN writes it (`[2001:db8::1]` too), or null. */
export function ovnIp(text: string): IpAddress | null {
  const t = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  return tryParseIp(t, true) ?? null;
}

/** `addr/len` with host bits as written (an LRP network such as `198.18.64.1/24`), or null. */
export function ovnPrefix(text: string): IpPrefix | null {
  return tryParseIpPrefix(text, OVN_PREFIX) ?? null;
}

/** The host route of an address: `198.18.64.100/32`, `2001:db8::5/128`. */
export function hostPrefix(ip: IpAddress): string {
  return `${formatIp(ip)}/${addressBits(ip.family)}`;
}

/** `198.18.64.200:80`, `[2001:db8::1]:80` or a bare address (a VIP key): the address. */
export function vipAddress(key: string): string {
  if (key.startsWith('[')) return key.slice(0, key.indexOf(']') + 1);
  const colons = key.split(':').length - 1;
  return colons === 1 ? key.slice(0, key.indexOf(':')) : key;
}

/** The host route of an address as OVN writes it, or null. */
export function hostRouteOf(text: string): string | null {
  const ip = ovnIp(text);
  return ip ? hostPrefix(ip) : null;
}

/**
 * An SB Advertised_Route ip_prefix as the RIB keys it: a host route comes without a length
 * (`"198.18.171.10"`, OVN 25.03) and becomes /32 or /128; host bits are cleared. null: not a prefix.
 */
export function advertisedPrefix(text: string): string | null {
  const p = ovnPrefix(text);
  return p ? formatIpPrefix(networkOf(p)) : null;
}
