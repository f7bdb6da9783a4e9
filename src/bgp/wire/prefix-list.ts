import { formatIpv4, formatIpv6, parseIpv4, parseIpv6 } from '../../address/index.js';
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

  /** Prefixes [from, to) as objects. */
  toArray(from = 0, to = this.count): Prefix[] {
    const out: Prefix[] = [];
    for (let i = from; i < to; i++) out.push(this.get(i));
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
