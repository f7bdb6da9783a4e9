/*
 * The little address arithmetic derivation needs: parse, canonical text (RFC 5952 for IPv6),
 * network of a CIDR, containment. BigInt keeps it short; none of it is on a per-packet path.
 */

export type Family = 4 | 6;

export interface Ip {
  readonly family: Family;
  readonly value: bigint;
}

export interface Cidr extends Ip {
  readonly len: number;
}

const bits = (f: Family): number => (f === 4 ? 32 : 128);

/**
 * A dotted quad (1 to 3 digits per octet, each at most 255) as a number, or null. By hand
 * and in plain numbers: every floating IP of a load is parsed, and split + a regex per octet
 * + BigInt steps cost several times this.
 */
function v4Number(text: string): number | null {
  let value = 0;
  let octet = 0;
  let digits = 0;
  let dots = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === DOT) {
      if (digits === 0 || ++dots > 3) return null;
      value = value * 256 + octet;
      octet = 0;
      digits = 0;
    } else if (c >= DIGIT_0 && c <= DIGIT_9) {
      octet = octet * 10 + (c - DIGIT_0);
      if (++digits > 3 || octet > 255) return null;
    } else return null;
  }
  return dots === 3 && digits > 0 ? value * 256 + octet : null;
}

const DOT = 0x2e;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;

function parseV4(text: string): bigint | null {
  const v = v4Number(text);
  return v === null ? null : BigInt(v);
}

function parseV6(text: string): bigint | null {
  let head = text;
  let tail: bigint | null = null;
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(head);
  if (quad) {
    tail = parseV4(quad[1]);
    if (tail === null) return null;
    head = head.slice(0, -quad[1].length);
    if (head.endsWith(':') && !head.endsWith('::')) head = head.slice(0, -1);
  }
  const halves = head.split('::');
  if (halves.length > 2) return null;
  const groups = (s: string) => (s === '' ? [] : s.split(':'));
  const left = groups(halves[0]);
  const right = halves.length === 2 ? groups(halves[1]) : [];
  const want = tail === null ? 8 : 6;
  const missing = want - left.length - right.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const all = [...left, ...new Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...right];
  let v = 0n;
  for (const g of all) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return null;
    v = (v << 16n) | BigInt(`0x${g}`);
  }
  if (tail !== null) v = (v << 32n) | tail;
  return v;
}

/** An IPv4 or IPv6 address, or null. Brackets (`[2001:db8::1]`) are accepted. */
export function parseIp(text: string): Ip | null {
  const t = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (t.includes(':')) {
    const value = parseV6(t);
    return value === null ? null : { family: 6, value };
  }
  const value = parseV4(t);
  return value === null ? null : { family: 4, value };
}

export function formatIp(ip: Ip): string {
  if (ip.family === 4) {
    const v = Number(ip.value);
    return `${v >>> 24}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`;
  }
  const g: number[] = [];
  for (let i = 7; i >= 0; i--) g.push(Number((ip.value >> BigInt(i * 16)) & 0xffffn));
  // RFC 5952 4.2: the longest run of two or more zero groups becomes "::" (the first on a tie).
  let at = -1;
  let len = 1;
  for (let i = 0; i < 8; ) {
    if (g[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && g[j] === 0) j++;
    if (j - i > len) {
      at = i;
      len = j - i;
    }
    i = j;
  }
  const hex = (a: number[]) => a.map((x) => x.toString(16)).join(':');
  return at < 0 ? hex(g) : `${hex(g.slice(0, at))}::${hex(g.slice(at + len))}`;
}

/** `addr/len` with host bits as written (an LRP network such as `198.18.64.1/24`), or null. */
export function parseCidr(text: string): Cidr | null {
  const slash = text.indexOf('/');
  const ip = parseIp(slash < 0 ? text : text.slice(0, slash));
  if (!ip) return null;
  if (slash < 0) return { ...ip, len: bits(ip.family) };
  const lenText = text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(lenText)) return null;
  const len = Number(lenText);
  return len > bits(ip.family) ? null : { ...ip, len };
}

function mask(c: Cidr): bigint {
  const total = BigInt(bits(c.family));
  return ((1n << BigInt(c.len)) - 1n) << (total - BigInt(c.len));
}

/** The network of a CIDR: host bits cleared. */
export function networkOf(c: Cidr): Cidr {
  return { family: c.family, value: c.value & mask(c), len: c.len };
}

export function formatCidr(c: Cidr): string {
  return `${formatIp(c)}/${c.len}`;
}

/** The host route of an address: `198.18.64.100/32`, `2001:db8::5/128`. */
export function hostPrefix(ip: Ip): string {
  return `${formatIp(ip)}/${bits(ip.family)}`;
}

/** True when `inner` lies inside `outer` (same family, not shorter). */
export function covers(outer: Cidr, inner: Cidr): boolean {
  return (
    outer.family === inner.family &&
    inner.len >= outer.len &&
    (inner.value & mask(outer)) === networkOf(outer).value
  );
}
