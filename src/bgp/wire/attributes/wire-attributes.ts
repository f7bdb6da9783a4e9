import { AttrFlag, AttrType } from '../constants.js';
import type { AttrContext } from '../update-context.js';
import { asPathFactsRaw } from './as-path.js';
import { ATTR_BY_CODE } from './table.js';
import type {
  Aggregator,
  AsPathSegment,
  AttrSlot,
  MpReach,
  MutableAttributes,
  PathAttributes,
  RawAttribute,
  UpdateIssue,
} from './types.js';

const NO_ISSUES: readonly UpdateIssue[] = Object.freeze([]);
const NO_HIDDEN = new Uint8Array(256);

/** Which MP attributes in `raw` are decoded ones (not unknown families). */
export const MP_REACH_DECODED = 1;
export const MP_UNREACH_DECODED = 2;

/**
 * Path attributes backed by their received bytes: the scalars the decision process reads
 * first are decoded when the set is first seen; paths, lists and the layout are decoded on
 * first read and remembered. `raw` is a walkable attribute block — the received one, except
 * that MP_REACH_NLRI holds only its header (family, next hop, reserved) and MP_UNREACH_NLRI
 * only its flags and type — so it doubles as the interning key.
 */
/** Scratch of walkKept: SEEN[type] === the walk's generation once the type was met. */
const SEEN = new Float64Array(256);
let seenGeneration = 0;

/** What validation found wrong with a set: rare, so kept out of line. */
interface Findings {
  /** Types whose value must not be seen: discarded or malformed (RFC 7606). */
  readonly hidden: Uint8Array;
  readonly issues: readonly UpdateIssue[];
  /** Types below 32 in the UPDATE at all, kept or not. */
  readonly sent: number;
}

/**
 * `bits`: which MP attributes are decoded (above), an undecoded attribute, 4-octet ASNs, eBGP's
 * checks, whether `nh` holds a NEXT_HOP; from LENGTH_SHIFT up, the block's length.
 */
const UNDECODED = 4;
const AS4 = 8;
/** Checked with eBGP's rules (RFC 7606 sections 7.2, 7.5, 7.9, 7.10): not shareable with iBGP. */
const EBGP = 16;
const HAS_NEXT_HOP = 32;
const LENGTH_SHIFT = 8;
/** Keeps `bits` a positive int32 (an attribute block is at most 65535 bytes anyway). */
const MAX_LENGTH = (1 << (31 - LENGTH_SHIFT)) - 1;

/** What is rare beside a set: RFC 7606 findings, and what was decoded on a read. */
interface Side {
  findings: Findings | null;
  memo: MutableAttributes | null;
}
const AS4_CONTEXT: AttrContext = Object.freeze({ as4: true });
const AS2_CONTEXT: AttrContext = Object.freeze({ as4: false });

// One of these lives for every distinct attribute set held, and each field costs 8 bytes, so
// its fields are few: the rare and the derivable ones are getters over `bits`, `present`, the
// bytes and `side`. ORIGIN, MULTI_EXIT_DISC and LOCAL_PREF are read from the bytes when asked:
// the RIB reads them once, as it numbers the set.
export class WireAttributes implements PathAttributes {
  /** The block lives in raw[rawStart, rawEnd) (a shared arena chunk). */
  readonly raw: Uint8Array;
  readonly rawStart: number;
  /** Bit t set when attribute type t (< 32) is present and kept: presence without decoding. */
  present = 0;
  /**
   * The number an intern table (a RIB's) gave this set, -1 when none: spares that table a Map.
   * Which table it is, the table tells by holding this set under that number.
   */
  internId = -1;
  private bits: number;
  /** NEXT_HOP as an int32 (a small integer for V8, where a u32 above 2^31 would be a boxed number). */
  private nh = 0;
  private side: Side | null = null;

  constructor(raw: Uint8Array, rawStart: number, rawEnd: number, ctx: AttrContext, mp: number) {
    const length = rawEnd - rawStart;
    if (!(length >= 0 && length <= MAX_LENGTH)) throw new RangeError(`attribute block of ${length} bytes`);
    this.raw = raw;
    this.rawStart = rawStart;
    this.bits = mp | (ctx.as4 ? AS4 : 0) | (ctx.ebgp ? EBGP : 0) | (length << LENGTH_SHIFT);
  }

  /** Where the block ends in `raw` (its length is kept in `bits`). */
  get rawEnd(): number {
    return this.rawStart + (this.bits >>> LENGTH_SHIFT);
  }

  /** The session facts its checks depended on: a set is shared only between equal ones. */
  get checkedFor(): number {
    return this.bits & (AS4 | EBGP);
  }

  /** checkedFor's value for a context, to compare without building a set. */
  static checkedFor(ctx: AttrContext): number {
    return (ctx.as4 ? AS4 : 0) | (ctx.ebgp ? EBGP : 0);
  }

  /** Whether its AS numbers are 4 octets (a session with RFC 6793). */
  get as4(): boolean {
    return (this.bits & AS4) !== 0;
  }

  private get ctx(): AttrContext {
    return this.bits & AS4 ? AS4_CONTEXT : AS2_CONTEXT;
  }

  private get mp(): number {
    return this.bits & (MP_REACH_DECODED | MP_UNREACH_DECODED);
  }

  /** Whether the block holds an attribute the table does not decode (`unknown` is then worth a walk). */
  get hasUndecoded(): boolean {
    return (this.bits & UNDECODED) !== 0;
  }

  /** Called while validating: the block holds an attribute the table does not decode. */
  markUndecoded(): void {
    this.bits |= UNDECODED;
  }

  /** RFC 7606 findings about these bytes (empty when clean); the same for every UPDATE carrying them. */
  get issues(): readonly UpdateIssue[] {
    const f = this.findings;
    return f === null ? NO_ISSUES : f.issues;
  }

  /** Bit t set when type t (< 32) was in the UPDATE at all, kept or not. */
  get sent(): number {
    const f = this.findings;
    return f === null ? this.present : f.sent;
  }

  /**
   * Called once, after validating: the types in the UPDATE (bits below 32), which of them must
   * not be seen (discarded or malformed, RFC 7606) and what was found.
   */
  setPresence(sent: number, hidden: Uint8Array | null, issues: readonly UpdateIssue[] | null): void {
    let hiddenMask = 0;
    if (hidden) for (let t = 0; t < 32; t++) if (hidden[t]) hiddenMask |= 1 << t;
    this.present = sent & ~hiddenMask;
    if (hidden || issues)
      this.sideOf().findings = { hidden: hidden ?? NO_HIDDEN, issues: issues ?? NO_ISSUES, sent };
  }

  private get findings(): Findings | null {
    return this.side === null ? null : this.side.findings;
  }

  private get hidden(): Uint8Array | null {
    const f = this.findings;
    return f === null ? null : f.hidden;
  }

  private sideOf(): Side {
    if (this.side === null) this.side = { findings: null, memo: null };
    return this.side;
  }

  get origin(): number | undefined {
    return this.absent(AttrType.ORIGIN) ? undefined : this.raw[this.valueAt(AttrType.ORIGIN)];
  }

  get nextHop(): number | undefined {
    return this.bits & HAS_NEXT_HOP ? this.nh >>> 0 : undefined;
  }

  /** Set while validating (NEXT_HOP is decoded as the set is first seen). */
  set nextHop(v: number | undefined) {
    if (v === undefined) {
      this.bits &= ~HAS_NEXT_HOP;
      this.nh = 0;
    } else {
      this.bits |= HAS_NEXT_HOP;
      this.nh = v | 0;
    }
  }

  get med(): number | undefined {
    return this.absent(AttrType.MULTI_EXIT_DISC)
      ? undefined
      : this.u32At(this.valueAt(AttrType.MULTI_EXIT_DISC));
  }

  get localPref(): number | undefined {
    return this.absent(AttrType.LOCAL_PREF) ? undefined : this.u32At(this.valueAt(AttrType.LOCAL_PREF));
  }

  get atomicAggregate(): boolean | undefined {
    return (this.present & (1 << AttrType.ATOMIC_AGGREGATE)) !== 0 ? true : undefined;
  }

  get originatorId(): number | undefined {
    if ((this.present & (1 << AttrType.ORIGINATOR_ID)) === 0) return undefined;
    return this.load(AttrType.ORIGINATOR_ID).originatorId;
  }

  /** Whether the attribute is there and kept, without decoding it. */
  has(type: number): boolean {
    if (type < 32) return (this.present & (1 << type)) !== 0;
    let found = false;
    this.walk((t) => {
      found = t === type && !this.hidden?.[type];
      return !found && t !== type;
    });
    return found;
  }

  /**
   * AS_PATH's decision facts read from the bytes (see asPathFactsRaw), sparing the decoded
   * path's objects for a set that is never exported. False when AS4_PATH is there too: the
   * merged path has to be decoded.
   */
  asPathFacts(localAs: number, out: Float64Array): boolean {
    if (this.has(AttrType.AS4_PATH)) return false;
    out[0] = 0;
    out[1] = localAs;
    out[2] = 0;
    if (!this.has(AttrType.AS_PATH)) return true;
    // The walk inline: this runs once per new attribute set, and a visitor closure would be
    // one more object each time.
    const raw = this.raw;
    const end = this.rawEnd;
    for (let pos = this.rawStart; pos < end; ) {
      const ext = (raw[pos] & AttrFlag.EXTENDED_LENGTH) !== 0;
      const s = pos + (ext ? 4 : 3);
      const e = s + (ext ? (raw[pos + 2] << 8) | raw[pos + 3] : raw[pos + 2]);
      if (raw[pos + 1] === AttrType.AS_PATH) {
        asPathFactsRaw(raw, s, e, this.bits & AS4 ? 4 : 2, localAs, out);
        break;
      }
      pos = e;
    }
    return true;
  }

  /** The attribute block, as a view. */
  bytes(): Uint8Array {
    return this.raw.subarray(this.rawStart, this.rawEnd);
  }

  get asPath(): readonly AsPathSegment[] | undefined {
    return this.absent(AttrType.AS_PATH) ? undefined : this.load(AttrType.AS_PATH).asPath;
  }
  get aggregator(): Aggregator | undefined {
    return this.absent(AttrType.AGGREGATOR) ? undefined : this.load(AttrType.AGGREGATOR).aggregator;
  }
  get communities(): readonly number[] | undefined {
    return this.absent(AttrType.COMMUNITIES) ? undefined : this.load(AttrType.COMMUNITIES).communities;
  }
  get clusterList(): readonly number[] | undefined {
    return this.absent(AttrType.CLUSTER_LIST) ? undefined : this.load(AttrType.CLUSTER_LIST).clusterList;
  }
  get extCommunities(): Uint8Array | undefined {
    return this.absent(AttrType.EXTENDED_COMMUNITIES)
      ? undefined
      : this.load(AttrType.EXTENDED_COMMUNITIES).extCommunities;
  }
  get as4Path(): readonly AsPathSegment[] | undefined {
    return this.absent(AttrType.AS4_PATH) ? undefined : this.load(AttrType.AS4_PATH).as4Path;
  }
  get as4Aggregator(): Aggregator | undefined {
    return this.absent(AttrType.AS4_AGGREGATOR)
      ? undefined
      : this.load(AttrType.AS4_AGGREGATOR).as4Aggregator;
  }
  get ipv6ExtCommunities(): Uint8Array | undefined {
    return this.absent(AttrType.IPV6_EXTENDED_COMMUNITIES)
      ? undefined
      : this.load(AttrType.IPV6_EXTENDED_COMMUNITIES).ipv6ExtCommunities;
  }
  get largeCommunities(): readonly number[] | undefined {
    return this.absent(AttrType.LARGE_COMMUNITY)
      ? undefined
      : this.load(AttrType.LARGE_COMMUNITY).largeCommunities;
  }

  get mpReach(): MpReach | undefined {
    if ((this.mp & MP_REACH_DECODED) === 0) return undefined;
    const memo = this.memoized();
    if (!('mpReach' in memo)) {
      let value: MpReach | undefined;
      this.walk((type, _flags, s) => {
        if (type !== AttrType.MP_REACH_NLRI) return true;
        const raw = this.raw;
        const nhLen = raw[s + 3];
        value = {
          afi: (raw[s] << 8) | raw[s + 1],
          safi: raw[s + 2],
          nextHop: raw.slice(s + 4, s + 4 + nhLen),
          reserved: raw[s + 4 + nhLen],
        };
        return false;
      });
      memo.mpReach = value;
    }
    return memo.mpReach;
  }

  get unknown(): readonly RawAttribute[] | undefined {
    if (!this.hasUndecoded) return undefined;
    const memo = this.memoized();
    if (!('unknown' in memo)) {
      const out: RawAttribute[] = [];
      this.walkKept((type, flags, s, e) => {
        if (!this.isDecoded(type)) out.push({ type, flags, value: this.raw.slice(s, e) });
      });
      memo.unknown = out.length ? out : undefined;
    }
    return memo.unknown;
  }

  get layout(): readonly AttrSlot[] {
    const memo = this.memoized();
    if (!memo.layout) {
      const out: AttrSlot[] = [];
      this.walkKept((type, flags) => {
        if (!(type === AttrType.MP_UNREACH_NLRI && this.mp & MP_UNREACH_DECODED)) out.push({ type, flags });
      });
      memo.layout = out;
    }
    return memo.layout;
  }

  /** Whether anything was decoded and remembered beyond the scalars. */
  get hasDecoded(): boolean {
    return this.side !== null && this.side.memo !== null;
  }

  /**
   * Drops what was decoded and remembered (it is decoded again when read): for a reader that
   * needed it once, such as an export whose result is kept in bytes of its own.
   */
  forgetDecoded(): void {
    const side = this.side;
    if (side === null) return;
    side.memo = null;
    if (side.findings === null) this.side = null;
  }

  private memoized(): MutableAttributes {
    const side = this.sideOf();
    if (side.memo === null) side.memo = {};
    return side.memo;
  }

  /** Where the value of the first `type` attribute starts (its presence bit checked by the caller). */
  private valueAt(type: number): number {
    const raw = this.raw;
    const end = this.rawEnd;
    for (let pos = this.rawStart; pos < end; ) {
      const ext = (raw[pos] & AttrFlag.EXTENDED_LENGTH) !== 0;
      const s = pos + (ext ? 4 : 3);
      if (raw[pos + 1] === type) return s;
      pos = s + (ext ? (raw[pos + 2] << 8) | raw[pos + 3] : raw[pos + 2]);
    }
    throw new Error(`attribute ${type} is marked present but not in the block`);
  }

  private u32At(s: number): number {
    const raw = this.raw;
    return ((raw[s] << 24) | (raw[s + 1] << 16) | (raw[s + 2] << 8) | raw[s + 3]) >>> 0;
  }

  private isDecoded(type: number): boolean {
    if (type === AttrType.MP_REACH_NLRI) return (this.mp & MP_REACH_DECODED) !== 0;
    if (type === AttrType.MP_UNREACH_NLRI) return (this.mp & MP_UNREACH_DECODED) !== 0;
    return ATTR_BY_CODE[type] !== undefined;
  }

  /** Known absent from the presence bits (types below 32): no need to look, nor to make a memo. */
  private absent(type: number): boolean {
    return type < 32 && (this.present & (1 << type)) === 0;
  }

  /** Decodes the first instance of a lazy attribute into the memo. */
  private load(type: number): MutableAttributes {
    const memo = this.memoized();
    const d = ATTR_BY_CODE[type]!;
    if (d.field in memo) return memo;
    (memo as Record<string, unknown>)[d.field] = undefined;
    if (this.hidden?.[type]) return memo;
    this.walk((t, _flags, s, e) => {
      if (t !== type) return true;
      d.decode(this.raw, s, e, memo, this.ctx);
      return false;
    });
    return memo;
  }

  /** Visits each attribute header in order until `visit` returns false. */
  walk(visit: (type: number, flags: number, start: number, end: number) => boolean): void {
    const raw = this.raw;
    const end = this.rawEnd;
    let pos = this.rawStart;
    while (pos < end) {
      const flags = raw[pos];
      const type = raw[pos + 1];
      const ext = (flags & AttrFlag.EXTENDED_LENGTH) !== 0;
      const len = ext ? (raw[pos + 2] << 8) | raw[pos + 3] : raw[pos + 2];
      const s = pos + (ext ? 4 : 3);
      if (!visit(type, flags, s, s + len)) return;
      pos = s + len;
    }
  }

  /** Visits the attributes that count: first instances only, hidden ones left out. */
  private walkKept(visit: (type: number, flags: number, start: number, end: number) => void): void {
    // A generation per walk marks the types seen (visitors never start another walk).
    const gen = ++seenGeneration;
    this.walk((type, flags, s, e) => {
      if (SEEN[type] !== gen && !this.hidden?.[type]) visit(type, flags, s, e);
      SEEN[type] = gen;
      return true;
    });
  }
}
