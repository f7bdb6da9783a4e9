import { TransportError } from './errors.js';

/** An IP address as the kernel sees it: 4 or 16 bytes. */
export type IpAddress =
  | { readonly family: 4; readonly bytes: Uint8Array }
  | { readonly family: 6; readonly bytes: Uint8Array };

const IPV4_LENGTH = 4;
const IPV6_LENGTH = 16;
const IPV6_GROUPS = 8;
/** RFC 4291 section 2.5.5.2: ::ffff:0:0/96 carries an IPv4 address in its last 4 bytes. */
const V4_MAPPED_PREFIX = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff] as const;

const DECIMAL_OCTET = /^(0|[1-9][0-9]{0,2})$/;
const HEX_GROUP = /^[0-9a-fA-F]{1,4}$/;

function parseIpv4Bytes(text: string): Uint8Array | undefined {
  const parts = text.split('.');
  if (parts.length !== IPV4_LENGTH) return undefined;
  const out = new Uint8Array(IPV4_LENGTH);
  for (let i = 0; i < IPV4_LENGTH; i++) {
    if (!DECIMAL_OCTET.test(parts[i])) return undefined;
    const n = Number(parts[i]);
    if (n > 255) return undefined;
    out[i] = n;
  }
  return out;
}

/** Groups of one side of '::' (or of the whole address); a trailing dotted quad counts as two. */
function parseGroups(text: string, allowDottedTail: boolean): number[] | undefined {
  if (text === '') return [];
  const parts = text.split(':');
  const groups: number[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (allowDottedTail && i === parts.length - 1 && part.includes('.')) {
      const v4 = parseIpv4Bytes(part);
      if (!v4) return undefined;
      groups.push((v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]);
    } else {
      if (!HEX_GROUP.test(part)) return undefined;
      groups.push(Number.parseInt(part, 16));
    }
  }
  return groups;
}

function parseIpv6Bytes(text: string): Uint8Array | undefined {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  let groups: number[];
  if (halves.length === 1) {
    const all = parseGroups(text, true);
    if (!all || all.length !== IPV6_GROUPS) return undefined;
    groups = all;
  } else {
    const head = parseGroups(halves[0], false);
    const tail = parseGroups(halves[1], true);
    // '::' stands for at least one zero group (RFC 4291 section 2.2).
    if (!head || !tail || head.length + tail.length > IPV6_GROUPS - 1) return undefined;
    groups = [...head, ...new Array<number>(IPV6_GROUPS - head.length - tail.length).fill(0), ...tail];
  }
  const out = new Uint8Array(IPV6_LENGTH);
  groups.forEach((g, i) => {
    out[2 * i] = g >> 8;
    out[2 * i + 1] = g & 0xff;
  });
  return out;
}

/** Parses a literal IPv4 or IPv6 address (no zone id, no prefix); undefined when it is neither. */
export function tryParseIp(text: string): IpAddress | undefined {
  const v4 = parseIpv4Bytes(text);
  if (v4) return { family: 4, bytes: v4 };
  const v6 = text.includes(':') ? parseIpv6Bytes(text) : undefined;
  return v6 ? { family: 6, bytes: v6 } : undefined;
}

/** Like tryParseIp, but a bad address is a TransportError naming it. */
export function parseIp(text: string): IpAddress {
  const ip = tryParseIp(text);
  if (!ip) {
    const why = text.includes('%') ? ' (zone ids are not supported; use ifindex)' : '';
    throw new TransportError('invalid-address', `not an IP address: '${text}'${why}`, { address: text });
  }
  return ip;
}

export function isV4Mapped(ip: IpAddress): boolean {
  return ip.family === 6 && V4_MAPPED_PREFIX.every((b, i) => ip.bytes[i] === b);
}

/** ::ffff:a.b.c.d for an IPv4 address; IPv6 addresses come back unchanged. */
export function toV4Mapped(ip: IpAddress): IpAddress {
  if (ip.family === 6) return ip;
  const bytes = new Uint8Array(IPV6_LENGTH);
  bytes.set(V4_MAPPED_PREFIX, 0);
  bytes.set(ip.bytes, V4_MAPPED_PREFIX.length);
  return { family: 6, bytes };
}

/** a.b.c.d for ::ffff:a.b.c.d; everything else unchanged. */
export function unmapV4(ip: IpAddress): IpAddress {
  return isV4Mapped(ip) ? { family: 4, bytes: ip.bytes.slice(V4_MAPPED_PREFIX.length) } : ip;
}

/**
 * Dotted quad, or the RFC 5952 canonical text: lower case, the longest run of 2+ zero groups
 * as '::' (section 4.2), and ::ffff:a.b.c.d for v4-mapped addresses (section 5).
 */
export function formatIp(ip: IpAddress): string {
  if (ip.family === 4) return ip.bytes.join('.');
  if (isV4Mapped(ip)) return `::ffff:${ip.bytes.slice(V4_MAPPED_PREFIX.length).join('.')}`;
  const groups: number[] = [];
  for (let i = 0; i < IPV6_GROUPS; i++) groups.push((ip.bytes[2 * i] << 8) | ip.bytes[2 * i + 1]);
  let bestStart = -1;
  let bestLength = 1; // RFC 5952 section 4.2.2: a single zero group is not shortened
  for (let i = 0; i < IPV6_GROUPS; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < IPV6_GROUPS && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = (gs: number[]) => gs.map((g) => g.toString(16)).join(':');
  if (bestStart < 0) return hex(groups);
  return `${hex(groups.slice(0, bestStart))}::${hex(groups.slice(bestStart + bestLength))}`;
}

/**
 * The one spelling of an address used in reports and peer tables: ::ffff:a.b.c.d becomes
 * a.b.c.d (what a dual-stack socket reports for an IPv4 peer), IPv6 becomes RFC 5952 text.
 */
export function normalizeAddress(text: string): string {
  return formatIp(unmapV4(parseIp(text)));
}
