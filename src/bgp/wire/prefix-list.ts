import { Afi, type AfiCode } from './constants.js';

/** A prefix as the API and tests see it; the hot path uses PrefixList's arrays instead. */
export interface Prefix {
  readonly afi: AfiCode;
  /** Dotted quad or RFC 5952 text, exactly the bits that were on the wire. */
  readonly addr: string;
  readonly len: number;
  /** RFC 7911 path identifier, when add-path is in use. */
  readonly pathId?: number;
}

/**
 * Prefixes of one address family, struct-of-arrays: an IPv4 prefix is one u32 word, an IPv6
 * prefix four (most significant first), plus its length and optional path id. Growing doubles
 * the arrays, so decoding a full table allocates nothing per prefix. Bits past the prefix
 * length are kept as received (RFC 4271 calls them irrelevant; re-encoding stays exact).
 */
export class PrefixList {
  afi: AfiCode;
  addPath: boolean;
  count = 0;
  lens: Uint8Array;
  words: Uint32Array;
  pathIds: Uint32Array;

  constructor(afi: AfiCode, addPath = false, capacity = 8) {
    this.afi = afi;
    this.addPath = addPath;
    this.lens = new Uint8Array(capacity);
    this.words = new Uint32Array(capacity * wordsPer(afi));
    this.pathIds = new Uint32Array(addPath ? capacity : 0);
  }

  /** Empties the list for reuse, possibly for another family or add-path mode. */
  reset(afi: AfiCode, addPath: boolean): this {
    this.afi = afi;
    this.addPath = addPath;
    this.count = 0;
    if (this.words.length < this.lens.length * wordsPer(afi)) {
      this.words = new Uint32Array(this.lens.length * wordsPer(afi));
    }
    if (addPath && this.pathIds.length < this.lens.length) this.pathIds = new Uint32Array(this.lens.length);
    return this;
  }

  get wordsPerPrefix(): number {
    return wordsPer(this.afi);
  }

  /** Makes room for one more prefix and returns its index; the caller fills the arrays. */
  grow(): number {
    const i = this.count;
    if (i === this.lens.length) {
      const cap = i * 2 || 8;
      const lens = new Uint8Array(cap);
      lens.set(this.lens);
      this.lens = lens;
      const words = new Uint32Array(cap * wordsPer(this.afi));
      words.set(this.words.subarray(0, i * wordsPer(this.afi)));
      this.words = words;
      if (this.addPath) {
        const ids = new Uint32Array(cap);
        ids.set(this.pathIds.subarray(0, i));
        this.pathIds = ids;
      }
    }
    this.count = i + 1;
    return i;
  }

  /** Appends a prefix given as text ("198.18.0.0", "2001:db8::"), for tests and configuration. */
  add(addr: string, len: number, pathId = 0): this {
    const i = this.grow();
    this.lens[i] = len;
    if (this.afi === Afi.IPV4) this.words[i] = parseIpv4(addr);
    else this.words.set(parseIpv6(addr), i * 4);
    if (this.addPath) this.pathIds[i] = pathId;
    return this;
  }

  get(i: number): Prefix {
    const addr =
      this.afi === Afi.IPV4
        ? formatIpv4(this.words[i])
        : formatIpv6(this.words[i * 4], this.words[i * 4 + 1], this.words[i * 4 + 2], this.words[i * 4 + 3]);
    return this.addPath
      ? { afi: this.afi, addr, len: this.lens[i], pathId: this.pathIds[i] }
      : { afi: this.afi, addr, len: this.lens[i] };
  }

  toArray(): Prefix[] {
    const out: Prefix[] = [];
    for (let i = 0; i < this.count; i++) out.push(this.get(i));
    return out;
  }

  /** An exact copy that owns its arrays (decoders may hand out reused lists). */
  clone(): PrefixList {
    const c = new PrefixList(this.afi, this.addPath, Math.max(this.count, 1));
    c.count = this.count;
    c.lens.set(this.lens.subarray(0, this.count));
    c.words.set(this.words.subarray(0, this.count * wordsPer(this.afi)));
    if (this.addPath) c.pathIds.set(this.pathIds.subarray(0, this.count));
    return c;
  }

  static from(
    afi: AfiCode,
    prefixes: readonly { addr: string; len: number; pathId?: number }[],
    addPath = false,
  ) {
    const list = new PrefixList(afi, addPath, Math.max(prefixes.length, 1));
    for (const p of prefixes) list.add(p.addr, p.len, p.pathId ?? 0);
    return list;
  }
}

function wordsPer(afi: AfiCode): number {
  return afi === Afi.IPV4 ? 1 : 4;
}

export function parseIpv4(text: string): number {
  const parts = text.split('.');
  if (parts.length !== 4) throw new Error(`not an IPv4 address: ${text}`);
  let v = 0;
  for (const p of parts) {
    const n = Number(p);
    if (!/^\d{1,3}$/.test(p) || n > 255) throw new Error(`not an IPv4 address: ${text}`);
    v = v * 256 + n;
  }
  return v >>> 0;
}

export function formatIpv4(v: number): string {
  return `${v >>> 24}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`;
}

/** Parses IPv6 text (with "::" and an optional trailing dotted quad) into four u32 words. */
export function parseIpv6(text: string): Uint32Array {
  const fail = () => new Error(`not an IPv6 address: ${text}`);
  let head = text;
  const groups: number[] = [];
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(head);
  let tailV4: number | null = null;
  if (quad) {
    tailV4 = parseIpv4(quad[1]);
    head = head.slice(0, -quad[1].length);
    if (head.endsWith(':') && !head.endsWith('::')) head = head.slice(0, -1);
  }
  const halves = head.split('::');
  if (halves.length > 2) throw fail();
  const parse = (s: string) =>
    s === '' ? [] : s.split(':').map((g) => (/^[0-9a-fA-F]{1,4}$/.test(g) ? parseInt(g, 16) : NaN));
  const left = parse(halves[0]);
  const right = halves.length === 2 ? parse(halves[1]) : [];
  const want = tailV4 === null ? 8 : 6;
  const missing = want - left.length - right.length;
  if ((halves.length === 1 && missing !== 0) || (halves.length === 2 && missing < 1)) throw fail();
  groups.push(...left, ...new Array(halves.length === 2 ? missing : 0).fill(0), ...right);
  if (groups.some((g) => Number.isNaN(g))) throw fail();
  if (tailV4 !== null) groups.push(tailV4 >>> 16, tailV4 & 0xffff);
  const w = new Uint32Array(4);
  for (let i = 0; i < 4; i++) w[i] = ((groups[2 * i] << 16) | groups[2 * i + 1]) >>> 0;
  return w;
}

/** RFC 5952 text: lowercase, the longest run (of two or more) of zero groups as "::". */
export function formatIpv6(w0: number, w1: number, w2: number, w3: number): string {
  const g = [w0 >>> 16, w0 & 0xffff, w1 >>> 16, w1 & 0xffff, w2 >>> 16, w2 & 0xffff, w3 >>> 16, w3 & 0xffff];
  let bestAt = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (g[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && g[j] === 0) j++;
    if (j - i > bestLen) {
      bestAt = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = (a: number[]) => a.map((x) => x.toString(16)).join(':');
  if (bestAt < 0) return hex(g);
  return `${hex(g.slice(0, bestAt))}::${hex(g.slice(bestAt + bestLen))}`;
}

/** Text form of 4 or 16 address bytes. */
export function formatAddress(bytes: Uint8Array): string {
  if (bytes.length === 4) return `${bytes[0]}.${bytes[1]}.${bytes[2]}.${bytes[3]}`;
  const w = (i: number) =>
    ((bytes[i] << 24) | (bytes[i + 1] << 16) | (bytes[i + 2] << 8) | bytes[i + 3]) >>> 0;
  return formatIpv6(w(0), w(4), w(8), w(12));
}

/** 4 or 16 bytes of an address given as text. */
export function addressBytes(text: string): Uint8Array {
  if (text.includes(':')) {
    const w = parseIpv6(text);
    const b = new Uint8Array(16);
    for (let i = 0; i < 4; i++) {
      b[i * 4] = w[i] >>> 24;
      b[i * 4 + 1] = w[i] >>> 16;
      b[i * 4 + 2] = w[i] >>> 8;
      b[i * 4 + 3] = w[i];
    }
    return b;
  }
  const v = parseIpv4(text);
  return new Uint8Array([v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255]);
}
