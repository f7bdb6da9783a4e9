// Over 400 lines on purpose: the UPDATE decoder is the receive path's hottest loop (framing
// done, every attribute checked once, interning in place); its helpers stay in one module so
// the checks of RFC 7606 read in order next to the code they guard.
import { hasConfedSegmentRaw } from './attributes/as-path.js';
import { ByteArena } from './attributes/byte-arena.js';
import { type AttrInterner, hashKey } from './attributes/interner.js';
import { ATTR_BY_CODE } from './attributes/table.js';
import type { Mutable, PathAttributes, UpdateAction, UpdateIssue } from './attributes/types.js';
import { MP_REACH_DECODED, MP_UNREACH_DECODED, WireAttributes } from './attributes/wire-attributes.js';
import {
  Afi,
  type AfiCode,
  AttrFlag,
  AttrType,
  attrTypeName,
  ErrorCode,
  Safi,
  UpdateSubcode,
} from './constants.js';
import { BgpError, type BgpErrorKind } from './errors.js';
import { nextHopProblem } from './next-hop-checks.js';
import { decodeNlri } from './nlri.js';
import { PrefixList } from './prefix-list.js';
import { attributeEnd, type MpUnreach, type UpdateMessage } from './update.js';
import { DEFAULT_UPDATE_CONTEXT, type UpdateContext } from './update-context.js';

const MAX_ATTRS = 256;
const MP_MIN_REACH = 5; // AFI(2) SAFI(1) next-hop length(1) reserved(1)
const MP_MIN_UNREACH = 3;
const SEVERITY: Record<UpdateAction, number> = { ok: 0, 'attribute-discard': 1, 'treat-as-withdraw': 2 };

export interface UpdateDecoderOptions {
  /** Share decoded attribute sets between UPDATEs (hash-consing). */
  interner?: AttrInterner;
  /**
   * Decode prefixes into lists owned by the decoder and reused by the next call, and return
   * the same message object each time: nothing is allocated per prefix or per UPDATE, but the
   * caller must consume (or clone) the message before decoding again.
   */
  reuseLists?: boolean;
}

/**
 * Decodes UPDATE bodies (RFC 4271 section 4.3) with RFC 7606 error handling: the result
 * carries the routes and the worst outcome (ok, attribute-discard, treat-as-withdraw);
 * errors that reset the session are thrown as BgpError.
 */
export class UpdateDecoder {
  readonly ctx: UpdateContext;
  private readonly interner: AttrInterner | undefined;
  private readonly reuse: boolean;
  // Pass-1 scratch: one slot per attribute, reused across calls.
  private readonly slotType = new Uint8Array(MAX_ATTRS);
  private readonly slotFlags = new Uint8Array(MAX_ATTRS);
  private readonly slotStart = new Uint32Array(MAX_ATTRS); // value start
  private readonly slotEnd = new Uint32Array(MAX_ATTRS);
  private readonly slotDup = new Uint8Array(MAX_ATTRS);
  private readonly seen = new Uint32Array(256);
  private generation = 0;
  private readonly arena = new ByteArena();
  private readonly lists: PrefixList[];
  private readonly result: Mutable<UpdateMessage>;
  private readonly checkedFor: number;

  constructor(ctx: UpdateContext = DEFAULT_UPDATE_CONTEXT, options: UpdateDecoderOptions = {}) {
    this.ctx = ctx;
    this.interner = options.interner;
    this.reuse = options.reuseLists ?? false;
    this.checkedFor = WireAttributes.checkedFor(ctx);
    this.lists = [
      new PrefixList(Afi.IPV4, ctx.addPathIpv4, 64),
      new PrefixList(Afi.IPV4, ctx.addPathIpv4, 64),
      new PrefixList(Afi.IPV6, ctx.addPathIpv6, 64),
      new PrefixList(Afi.IPV6, ctx.addPathIpv6, 64),
    ];
    const l = this.lists;
    this.result = {
      type: 'update',
      withdrawn: l[0],
      attrs: null,
      nlri: l[1],
      mpNlri: null,
      mpUnreach: null,
      action: 'ok',
      issues: NO_ISSUES,
    };
  }

  private list(index: number, afi: AfiCode): PrefixList {
    const addPath = afi === Afi.IPV4 ? this.ctx.addPathIpv4 : this.ctx.addPathIpv6;
    if (!this.reuse) return new PrefixList(afi, addPath);
    return this.lists[index].reset(afi, addPath);
  }

  /** Decodes the body buf[start, end) of an UPDATE (after the 19-byte header). */
  decode(buf: Uint8Array, start: number, end: number): UpdateMessage {
    const ctx = this.ctx;
    // RFC 4271 section 6.3: lengths that exceed the message are a Malformed Attribute List.
    if (end - start < 4) throw malformedList('update-too-short');
    const withdrawnLen = (buf[start] << 8) | buf[start + 1];
    const withdrawnEnd = start + 2 + withdrawnLen;
    if (withdrawnEnd + 2 > end) throw malformedList('withdrawn-length-overrun');
    const attrLen = (buf[withdrawnEnd] << 8) | buf[withdrawnEnd + 1];
    const attrStart = withdrawnEnd + 2;
    const attrEnd = attrStart + attrLen;
    if (attrEnd > end) throw malformedList('attribute-length-overrun');

    const withdrawn = this.list(0, Afi.IPV4);
    if (!decodeNlri(buf, start + 2, withdrawnEnd, withdrawn)) throw invalidNetwork('withdrawn-malformed');
    const nlri = this.list(1, Afi.IPV4);
    // RFC 7606 section 5.3: an NLRI field that does not parse resets the session.
    if (!decodeNlri(buf, attrEnd, end, nlri)) throw invalidNetwork('nlri-malformed');

    // Pass 1: walk the attribute headers; find duplicates and the MP attributes.
    const gen = ++this.generation;
    let n = 0;
    let pos = attrStart;
    let overrun = false;
    let mpReachSlot = -1;
    let mpUnreachSlot = -1;
    while (pos < attrEnd) {
      // RFC 7606 section 4: an attribute header or value that overruns the attribute field
      // is treat-as-withdraw; Total Attribute Length still locates the NLRI.
      if (attrEnd - pos < 3) {
        overrun = true;
        break;
      }
      const flags = buf[pos];
      const type = buf[pos + 1];
      const ext = (flags & AttrFlag.EXTENDED_LENGTH) !== 0;
      if (ext && attrEnd - pos < 4) {
        overrun = true;
        break;
      }
      const len = ext ? (buf[pos + 2] << 8) | buf[pos + 3] : buf[pos + 2];
      const valueStart = pos + (ext ? 4 : 3);
      if (valueStart + len > attrEnd) {
        overrun = true;
        break;
      }
      if (n === MAX_ATTRS) throw malformedList('too-many-attributes');
      this.slotType[n] = type;
      this.slotFlags[n] = flags;
      this.slotStart[n] = valueStart;
      this.slotEnd[n] = valueStart + len;
      const dup = this.seen[type] === gen;
      this.slotDup[n] = dup ? 1 : 0;
      if (dup && (type === AttrType.MP_REACH_NLRI || type === AttrType.MP_UNREACH_NLRI)) {
        // RFC 7606 section 3 (g): a repeated MP attribute is a Malformed Attribute List.
        throw malformedList('mp-attribute-repeated');
      }
      this.seen[type] = gen;
      if (type === AttrType.MP_REACH_NLRI) mpReachSlot = n;
      else if (type === AttrType.MP_UNREACH_NLRI) mpUnreachSlot = n;
      n++;
      pos = valueStart + len;
    }

    // MP_UNREACH_NLRI: its own family and withdrawn prefixes, outside the interned attributes.
    let mpUnreach: MpUnreach | null = null;
    if (mpUnreachSlot >= 0) mpUnreach = this.decodeMpUnreach(buf, mpUnreachSlot);
    // An MP attribute of a family we do not decode stays in the key whole, as an unknown attribute.
    const unreachSlot = mpUnreach ? mpUnreachSlot : -1;

    // MP_REACH_NLRI's NLRI lies outside the key; its header (family, next hop) is inside.
    let mpNlriStart = -1;
    let mpReachEnd = -1;
    let mpAfi: AfiCode = Afi.IPV4;
    if (mpReachSlot >= 0 && isUnicastFamily(buf, this.slotStart[mpReachSlot], this.slotEnd[mpReachSlot])) {
      checkMpFlags(this.slotFlags[mpReachSlot], AttrType.MP_REACH_NLRI);
      const s = this.slotStart[mpReachSlot];
      mpReachEnd = this.slotEnd[mpReachSlot];
      if (mpReachEnd - s < MP_MIN_REACH) throw mpError('mp-reach-malformed');
      mpAfi = buf[s + 1] as AfiCode;
      const nhLen = buf[s + 3];
      if (s + 4 + nhLen + 1 > mpReachEnd || !validNextHopLength(mpAfi, nhLen)) {
        // RFC 7606 section 7.11: the NLRI cannot be located reliably.
        throw mpError('mp-reach-next-hop-length');
      }
      mpNlriStart = s + 4 + nhLen + 1;
    }

    let attrs: PathAttributes | null = null;
    let issues: readonly UpdateIssue[] = NO_ISSUES;
    if (n > 0 || overrun) {
      // Without MP attributes or an overrun the key is the attribute field itself: looked up
      // in place and copied only when new. Otherwise it is built straight into the arena, kept
      // if new and overwritten next time if not.
      const inPlace = mpReachSlot < 0 && mpUnreachSlot < 0 && !overrun;
      let keyAt = attrStart;
      let keyLen = attrEnd - attrStart;
      let key = buf;
      if (!inPlace) {
        keyAt = this.arena.reserve(keyLen);
        keyLen = this.buildKey(buf, n, mpReachSlot, mpNlriStart, unreachSlot, keyAt);
        key = this.arena.chunk;
      }
      const hash = hashKey(key, keyAt, keyAt + keyLen);
      let interned = this.interner?.get(hash, key, keyAt, keyLen, this.checkedFor);
      if (interned === undefined) {
        if (inPlace) {
          const at = this.arena.reserve(keyLen);
          copyBytes(buf, attrStart, keyLen, this.arena.chunk, at);
          keyAt = at;
        }
        const mp = (mpNlriStart >= 0 ? MP_REACH_DECODED : 0) | (unreachSlot >= 0 ? MP_UNREACH_DECODED : 0);
        interned = this.validate(keyAt, keyLen, mp);
        this.arena.commit(keyLen);
        this.interner?.put(hash, interned);
      }
      attrs = interned;
      issues = interned.issues;
    }

    let mpNlri: PrefixList | null = null;
    if (mpNlriStart >= 0) {
      mpNlri = this.list(2, mpAfi);
      if (!decodeNlri(buf, mpNlriStart, mpReachEnd, mpNlri)) throw mpError('mp-reach-nlri-malformed');
    }

    // Checks that depend on this UPDATE's NLRI, not only on its attribute bytes.
    let extra: UpdateIssue[] | null = null;
    if (overrun)
      extra = [issue('attribute-overrun', 'treat-as-withdraw', 0, UpdateSubcode.MALFORMED_ATTRIBUTE_LIST)];
    const reach = nlri.count > 0 || (mpNlri !== null && mpNlri.count > 0);
    if (reach && !overrun) {
      // RFC 7606 section 3 (d): a missing well-known mandatory attribute is treat-as-withdraw.
      let required = (1 << AttrType.ORIGIN) | (1 << AttrType.AS_PATH);
      if (nlri.count > 0) required |= 1 << AttrType.NEXT_HOP;
      if (!ctx.ebgp) required |= 1 << AttrType.LOCAL_PREF;
      const missing = required & ~(attrs ? (attrs as WireAttributes).sent : 0);
      if (missing !== 0) {
        extra = [];
        for (const type of MANDATORY) {
          if (missing & (1 << type)) {
            extra.push(
              issue(
                `missing-${attrTypeName[type]}`,
                'treat-as-withdraw',
                type,
                UpdateSubcode.MISSING_WELL_KNOWN_ATTRIBUTE,
              ),
            );
          }
        }
      }
    }
    if (reach && !overrun && attrs !== null) {
      const kind = nextHopProblem(
        buf,
        attrs,
        nlri.count > 0,
        mpNlri,
        mpReachSlot >= 0 ? this.slotStart[mpReachSlot] : -1,
        ctx,
      );
      if (kind !== null) {
        // RFC 4271 section 6.3 (semantic), handled as RFC 7606 section 7.3 says: treat-as-withdraw.
        extra = append(
          extra,
          issue(kind, 'treat-as-withdraw', AttrType.NEXT_HOP, UpdateSubcode.INVALID_NEXT_HOP_ATTRIBUTE),
        );
      }
    }
    if (extra) issues = issues.length ? [...issues, ...extra] : extra;

    let action: UpdateAction = 'ok';
    for (let i = 0; i < issues.length; i++)
      if (SEVERITY[issues[i].action] > SEVERITY[action]) action = issues[i].action;
    if (!this.reuse) return { type: 'update', withdrawn, attrs, nlri, mpNlri, mpUnreach, action, issues };
    // Reused like the lists it points to: valid until the next decode.
    const out = this.result;
    out.withdrawn = withdrawn;
    out.attrs = attrs;
    out.nlri = nlri;
    out.mpNlri = mpNlri;
    out.mpUnreach = mpUnreach;
    out.action = action;
    out.issues = issues;
    return out;
  }

  /**
   * The attribute set of an UPDATE body this process wrote itself from attributes that were
   * checked when they arrived (an export written from a received set's bytes,
   * rib/wire-export.ts): no NLRI, MP_REACH_NLRI at most its IPv6 unicast header, no attribute
   * twice. Copied into the arena and wrapped as `decode` would wrap it, without the RFC 7606
   * checks, the NLRI parsing and the interning hash that bytes from a peer need: making the
   * compact set of each new export that way cost a transit table's send about a twelfth of
   * its time.
   */
  trustedAttributes(buf: Uint8Array, start: number, end: number): WireAttributes {
    const attrLen = (buf[start + 2] << 8) | buf[start + 3];
    const from = start + 4;
    if (((buf[start] << 8) | buf[start + 1]) !== 0 || from + attrLen !== end)
      throw new RangeError('trusted attributes: an UPDATE body with withdrawn routes or NLRI');
    const at = this.arena.reserve(attrLen);
    const raw = this.arena.chunk;
    copyBytes(buf, from, attrLen, raw, at);
    this.arena.commit(attrLen);
    const stop = at + attrLen;
    let mp = 0;
    for (let pos = at; pos < stop; pos = attributeEnd(raw, pos))
      if (raw[pos + 1] === AttrType.MP_REACH_NLRI) mp = MP_REACH_DECODED;
    const a = new WireAttributes(raw, at, stop, this.ctx, mp);
    let present = 0;
    for (let pos = at; pos < stop; ) {
      const type = raw[pos + 1];
      const s = pos + ((raw[pos] & AttrFlag.EXTENDED_LENGTH) !== 0 ? 4 : 3);
      const e = attributeEnd(raw, pos);
      pos = e;
      if (type < 32) present |= 1 << type;
      if (type === AttrType.MP_REACH_NLRI) continue;
      const d = ATTR_BY_CODE[type];
      if (d === undefined || type === AttrType.MP_UNREACH_NLRI) a.markUndecoded();
      else if (!d.lazy) d.decode(raw, s, e, a, this.ctx);
    }
    a.setPresence(present, null, null);
    return a;
  }

  private decodeMpUnreach(buf: Uint8Array, slot: number): MpUnreach | null {
    const s = this.slotStart[slot];
    const e = this.slotEnd[slot];
    if (!isUnicastFamily(buf, s, e)) return null; // kept as an unknown attribute instead
    checkMpFlags(this.slotFlags[slot], AttrType.MP_UNREACH_NLRI);
    if (e - s < MP_MIN_UNREACH) throw mpError('mp-unreach-malformed');
    const afi = buf[s + 1] as AfiCode;
    const withdrawn = this.list(3, afi);
    if (!decodeNlri(buf, s + 3, e, withdrawn)) throw mpError('mp-unreach-nlri-malformed');
    // Where it stood among the attributes that are re-encoded (duplicates are dropped).
    let position = 0;
    for (let i = 0; i < slot; i++) if (!this.slotDup[i]) position++;
    return { afi, safi: buf[s + 2], withdrawn, flags: this.slotFlags[slot], position };
  }

  /**
   * The interning key, which is also what WireAttributes keeps: the attribute block as received,
   * except that MP_REACH_NLRI keeps only its header (its length field re-written to cover just
   * that) and MP_UNREACH_NLRI only its flags and type with length zero. Walkable like the original.
   */
  private buildKey(
    buf: Uint8Array,
    n: number,
    reachSlot: number,
    reachNlri: number,
    unreachSlot: number,
    at: number,
  ): number {
    const key = this.arena.chunk;
    let k = at;
    for (let i = 0; i < n; i++) {
      const flags = this.slotFlags[i];
      const valueStart = this.slotStart[i];
      let valueEnd = this.slotEnd[i];
      if (i === unreachSlot) valueEnd = valueStart;
      else if (i === reachSlot && reachNlri >= 0) valueEnd = reachNlri;
      const len = valueEnd - valueStart;
      key[k++] = flags;
      key[k++] = this.slotType[i];
      if ((flags & AttrFlag.EXTENDED_LENGTH) !== 0) key[k++] = len >> 8;
      key[k++] = len;
      for (let p = valueStart; p < valueEnd; p++) key[k++] = buf[p];
    }
    return k - at;
  }

  /**
   * Checks every attribute of a new attribute set through the table and decodes its scalars;
   * the rest is decoded on first read. RFC 7606 outcomes are collected, worst decided later.
   */
  private validate(start: number, keyLen: number, mp: number): WireAttributes {
    const ctx = this.ctx;
    const raw = this.arena.chunk;
    const end = start + keyLen;
    const a = new WireAttributes(raw, start, end, ctx, mp);
    let issues: UpdateIssue[] | null = null;
    let hidden: Uint8Array | null = null;
    const gen = ++this.generation;
    let present = 0;
    let pos = start;
    while (pos < end) {
      const flags = raw[pos];
      const type = raw[pos + 1];
      const header = (flags & AttrFlag.EXTENDED_LENGTH) !== 0 ? 4 : 3;
      const s = pos + header;
      const e = s + (header === 4 ? (raw[pos + 2] << 8) | raw[pos + 3] : raw[pos + 2]);
      pos = e;
      if (this.seen[type] === gen) {
        // RFC 7606 section 3 (g): keep the first, discard the rest.
        issues = append(
          issues,
          issue(
            `duplicate-${attrTypeName[type] ?? type}`,
            'attribute-discard',
            type,
            UpdateSubcode.MALFORMED_ATTRIBUTE_LIST,
          ),
        );
        continue;
      }
      this.seen[type] = gen;
      if (type < 32) present |= 1 << type;
      if (type === AttrType.MP_REACH_NLRI && mp & MP_REACH_DECODED) continue;
      if (type === AttrType.MP_UNREACH_NLRI && mp & MP_UNREACH_DECODED) continue;
      const d = ATTR_BY_CODE[type];
      if (d === undefined || type === AttrType.MP_REACH_NLRI || type === AttrType.MP_UNREACH_NLRI) {
        if ((flags & AttrFlag.OPTIONAL) === 0) {
          // RFC 4271 section 6.3, unchanged by RFC 7606: an unrecognized well-known attribute.
          throw new BgpError(
            'unrecognized-well-known-attribute',
            ErrorCode.UPDATE_MESSAGE,
            UpdateSubcode.UNRECOGNIZED_WELL_KNOWN_ATTRIBUTE,
            raw.slice(s - header, e),
          );
        }
        a.markUndecoded();
        continue;
      }
      if (ctx.ebgp && isInternalOnly(type)) {
        // RFC 7606 sections 7.5, 7.9, 7.10: from an external neighbor these are discarded
        // whatever their flags, length or content, so this comes before the checks below.
        issues = append(
          issues,
          issue(
            `${d.name.toLowerCase().replaceAll('_', '-')}-from-ebgp`,
            'attribute-discard',
            type,
            d.subcode,
          ),
        );
        hidden = hide(hidden, type);
        continue;
      }
      // RFC 7606 section 3 (c): Optional/Transitive bits in conflict make the attribute malformed;
      // RFC 4271 section 4.3: Partial is only for optional transitive attributes.
      const flagsWrong =
        (flags & (AttrFlag.OPTIONAL | AttrFlag.TRANSITIVE)) !== d.flags ||
        ((flags & AttrFlag.PARTIAL) !== 0 && d.flags !== (AttrFlag.OPTIONAL | AttrFlag.TRANSITIVE));
      if (flagsWrong || !d.check(raw, s, e, ctx)) {
        const kind = `${d.name.toLowerCase().replaceAll('_', '-')}-${flagsWrong ? 'flags' : 'malformed'}`;
        const subcode = flagsWrong ? UpdateSubcode.ATTRIBUTE_FLAGS_ERROR : d.subcode;
        issues = append(issues, issue(kind, d.onMalformed, type, subcode));
        hidden = hide(hidden, type);
        continue;
      }
      if (type === AttrType.AS_PATH && ctx.ebgp && hasConfedSegmentRaw(raw, s, e, ctx.as4 ? 4 : 2)) {
        // RFC 7606 section 7.2: confederation segments from a peer outside the confederation.
        issues = append(
          issues,
          issue('as-path-confed-from-ebgp', 'treat-as-withdraw', type, UpdateSubcode.MALFORMED_AS_PATH),
        );
      }
      if (!d.lazy) d.decode(raw, s, e, a, ctx);
    }
    a.setPresence(present, hidden, issues);
    return a;
  }
}

const NO_ISSUES: readonly UpdateIssue[] = Object.freeze([]);

/** Attributes that only make sense inside an AS (RFC 4271 section 5.1.5, RFC 4456 section 8). */
function isInternalOnly(type: number): boolean {
  return type === AttrType.LOCAL_PREF || type === AttrType.ORIGINATOR_ID || type === AttrType.CLUSTER_LIST;
}

const MANDATORY = [AttrType.ORIGIN, AttrType.AS_PATH, AttrType.NEXT_HOP, AttrType.LOCAL_PREF] as const;

function hide(hidden: Uint8Array | null, type: number): Uint8Array {
  const out = hidden ?? new Uint8Array(256);
  out[type] = 1;
  return out;
}

function append(list: UpdateIssue[] | null, x: UpdateIssue): UpdateIssue[] {
  if (list === null) return [x];
  list.push(x);
  return list;
}

function issue(
  kind: string,
  action: Exclude<UpdateAction, 'ok'>,
  attrType: number,
  subcode: number,
): UpdateIssue {
  return { kind, action, attrType, subcode };
}

/** We decode MP attributes for IPv4/IPv6 unicast and multicast; other families travel as unknown attributes. */
function isUnicastFamily(buf: Uint8Array, s: number, e: number): boolean {
  if (e - s < 3) return true; // too short to tell: let the MP checks report it
  const afi = (buf[s] << 8) | buf[s + 1];
  const safi = buf[s + 2];
  return (afi === Afi.IPV4 || afi === Afi.IPV6) && (safi === Safi.UNICAST || safi === Safi.MULTICAST);
}

/** RFC 4760 section 3 and RFC 8950: IPv4 4 (or 16/32 with extended next hop), IPv6 16 or 32. */
function validNextHopLength(afi: number, len: number): boolean {
  if (afi === Afi.IPV4) return len === 4 || len === 16 || len === 32;
  return len === 16 || len === 32;
}

/** MP attributes are optional non-transitive; wrong flags make them malformed, which resets (RFC 7606 section 7.11). */
function checkMpFlags(flags: number, type: number): void {
  if (
    (flags & (AttrFlag.OPTIONAL | AttrFlag.TRANSITIVE)) !== AttrFlag.OPTIONAL ||
    (flags & AttrFlag.PARTIAL) !== 0
  ) {
    throw new BgpError(
      type === AttrType.MP_REACH_NLRI ? 'mp-reach-flags' : 'mp-unreach-flags',
      ErrorCode.UPDATE_MESSAGE,
      UpdateSubcode.ATTRIBUTE_FLAGS_ERROR,
    );
  }
}

function malformedList(kind: BgpErrorKind): BgpError {
  return new BgpError(kind, ErrorCode.UPDATE_MESSAGE, UpdateSubcode.MALFORMED_ATTRIBUTE_LIST);
}

function invalidNetwork(kind: BgpErrorKind): BgpError {
  return new BgpError(kind, ErrorCode.UPDATE_MESSAGE, UpdateSubcode.INVALID_NETWORK_FIELD);
}

function mpError(kind: BgpErrorKind): BgpError {
  return new BgpError(kind, ErrorCode.UPDATE_MESSAGE, UpdateSubcode.OPTIONAL_ATTRIBUTE_ERROR);
}

/** A short copy (an attribute block): a loop beats making a subarray view for `set`. */
function copyBytes(from: Uint8Array, at: number, len: number, to: Uint8Array, toAt: number): void {
  for (let i = 0; i < len; i++) to[toAt + i] = from[at + i];
}
