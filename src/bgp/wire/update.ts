import { as4PathFor } from './attributes/as-path.js';
import { ATTR_BY_CODE, ATTRS } from './attributes/table.js';
import {
  type AttrSlot,
  type MpReach,
  makeAttributes,
  type PathAttributes,
  type UpdateAction,
  type UpdateIssue,
} from './attributes/types.js';
import { Afi, type AfiCode, AttrFlag, AttrType, Safi } from './constants.js';
import { encodeNlri } from './nlri.js';
import { PrefixList } from './prefix-list.js';
import type { AttrContext } from './update-context.js';
import type { Writer } from './writer.js';

/** MP_UNREACH_NLRI: withdrawals of one family (RFC 4760 section 4). */
export interface MpUnreach {
  readonly afi: AfiCode;
  readonly safi: number;
  readonly withdrawn: PrefixList;
  /** As received, for exact re-encoding; defaults to Optional (+ Extended Length if needed). */
  readonly flags?: number;
  /** Index among the re-encoded attributes where it stood; defaults to first (RFC 7606 section 5.1). */
  readonly position?: number;
}

/**
 *   +-----------------------------------------------------+
 *   |   Withdrawn Routes Length (2 octets)                |
 *   |   Withdrawn Routes (variable)                       |
 *   |   Total Path Attribute Length (2 octets)            |
 *   |   Path Attributes (variable)                        |
 *   |   Network Layer Reachability Information (variable) |
 *   +-----------------------------------------------------+
 */
export interface UpdateMessage {
  readonly type: 'update';
  /** IPv4 unicast withdrawals (the Withdrawn Routes field). */
  readonly withdrawn: PrefixList;
  /** Null when the UPDATE carries no path attributes at all. */
  readonly attrs: PathAttributes | null;
  /** IPv4 unicast NLRI (the NLRI field). */
  readonly nlri: PrefixList;
  /** The NLRI inside MP_REACH_NLRI; its family and next hop are `attrs.mpReach`. */
  readonly mpNlri: PrefixList | null;
  readonly mpUnreach: MpUnreach | null;
  /** RFC 7606: the worst outcome found; with treat-as-withdraw every prefix is a withdrawal. */
  readonly action: UpdateAction;
  readonly issues: readonly UpdateIssue[];
}

/** What encodeUpdate needs; an UpdateMessage is one. */
export interface UpdateInput {
  readonly withdrawn?: PrefixList;
  readonly attrs?: PathAttributes | null;
  readonly nlri?: PrefixList;
  readonly mpNlri?: PrefixList | null;
  readonly mpUnreach?: MpUnreach | null;
}

/** Writes an UPDATE body. Attributes follow their received layout, else canonical order. */
export function encodeUpdate(w: Writer, u: UpdateInput, ctx: AttrContext): void {
  const lenAt = w.mark();
  w.u16(0);
  if (u.withdrawn) encodeNlri(w, u.withdrawn);
  w.patch16(lenAt, w.pos - lenAt - 2);
  const attrAt = w.mark();
  w.u16(0);
  let a = u.attrs ?? null;
  if (a && !ctx.as4) a = withAs4Attributes(a);
  if (a?.layout) encodeInLayout(w, u, a, a.layout, ctx);
  else encodeCanonical(w, u, a, ctx);
  w.patch16(attrAt, w.pos - attrAt - 2);
  if (u.nlri) encodeNlri(w, u.nlri);
}

/** MP attributes first (RFC 7606 section 5.1), then the rest by type code, unknown ones last. */
export function encodeCanonical(
  w: Writer,
  u: UpdateInput,
  a: PathAttributes | null,
  ctx: AttrContext,
  withMpReach = true,
): void {
  if (u.mpUnreach) writeMpUnreach(w, u.mpUnreach, u.mpUnreach.flags ?? AttrFlag.OPTIONAL);
  if (!a) return;
  if (!ctx.as4) a = withAs4Attributes(a);
  if (withMpReach && a.mpReach) writeMpReach(w, a.mpReach, u.mpNlri ?? null, AttrFlag.OPTIONAL);
  const present = presentFields(a);
  for (let i = 0; i < ATTRS.length; i++) {
    if ((present & (1 << i)) === 0) continue;
    const d = ATTRS[i];
    const at = beginAttribute(w, d.code, d.flags);
    d.encode(w, a, ctx);
    endAttribute(w, at);
  }
  for (const raw of a.unknown ?? []) writeRaw(w, raw.type, raw.flags, raw.value);
}

/**
 * RFC 6793 section 4.2.2: towards a 2-octet speaker, 4-octet ASes in AS_PATH and AGGREGATOR
 * travel as AS_TRANS, and AS4_PATH / AS4_AGGREGATOR carry the real values.
 */
function withAs4Attributes(a: PathAttributes): PathAttributes {
  const as4Path = a.as4Path ?? as4PathFor(a.asPath);
  const bigAggregator = a.aggregator && a.aggregator.as > 0xffff;
  const as4Aggregator = a.as4Aggregator ?? (bigAggregator ? a.aggregator : undefined);
  if (as4Path === a.as4Path && as4Aggregator === a.as4Aggregator) return a;
  // makeAttributes first: a spread alone would drop a wire-backed set's lazily decoded fields.
  return makeAttributes({ ...makeAttributes(a), as4Path, as4Aggregator });
}

/**
 * Bit i set when ATTRS[i] has a value in `a`. Written out field by field on purpose: one
 * function reading named fields stays fast whatever shapes the objects come in, where asking
 * each descriptor (or reading a[field] with a computed key) costs a megamorphic lookup per
 * attribute. A unit test keeps this in step with the table.
 */
export function presentFields(a: PathAttributes): number {
  let m = 0;
  if (a.origin !== undefined) m |= 1 << 0;
  if (a.asPath !== undefined) m |= 1 << 1;
  if (a.nextHop !== undefined) m |= 1 << 2;
  if (a.med !== undefined) m |= 1 << 3;
  if (a.localPref !== undefined) m |= 1 << 4;
  if (a.atomicAggregate === true) m |= 1 << 5;
  if (a.aggregator !== undefined) m |= 1 << 6;
  if (a.communities !== undefined) m |= 1 << 7;
  if (a.originatorId !== undefined) m |= 1 << 8;
  if (a.clusterList !== undefined) m |= 1 << 9;
  if (a.extCommunities !== undefined) m |= 1 << 10;
  if (a.as4Path !== undefined) m |= 1 << 11;
  if (a.as4Aggregator !== undefined) m |= 1 << 12;
  if (a.ipv6ExtCommunities !== undefined) m |= 1 << 13;
  if (a.largeCommunities !== undefined) m |= 1 << 14;
  return m;
}

/** The sender's order and flags; attributes added since go after, canonically. */
function encodeInLayout(
  w: Writer,
  u: UpdateInput,
  a: PathAttributes,
  layout: readonly AttrSlot[],
  ctx: AttrContext,
) {
  const unreach = u.mpUnreach ?? null;
  const unreachAt = unreach ? (unreach.position ?? 0) : -1;
  const placed = new Uint8Array(256);
  let written = 0;
  for (let k = 0; k <= layout.length; k++) {
    if (written === unreachAt && unreach && !placed[AttrType.MP_UNREACH_NLRI]) {
      writeMpUnreach(w, unreach, unreach.flags ?? AttrFlag.OPTIONAL);
      placed[AttrType.MP_UNREACH_NLRI] = 1;
    }
    if (k === layout.length) break;
    const { type, flags } = layout[k];
    if (placed[type]) continue;
    if (writeField(w, u, a, type, flags, ctx)) {
      placed[type] = 1;
      written++;
    }
  }
  if (unreach && !placed[AttrType.MP_UNREACH_NLRI])
    writeMpUnreach(w, unreach, unreach.flags ?? AttrFlag.OPTIONAL);
  if (a.mpReach && !placed[AttrType.MP_REACH_NLRI])
    writeMpReach(w, a.mpReach, u.mpNlri ?? null, AttrFlag.OPTIONAL);
  for (const d of ATTRS) if (!placed[d.code]) writeField(w, u, a, d.code, undefined, ctx);
  for (const raw of a.unknown ?? []) if (!placed[raw.type]) writeRaw(w, raw.type, raw.flags, raw.value);
}

/** Writes attribute `type` if `a` has it; false if it has not. */
function writeField(
  w: Writer,
  u: UpdateInput,
  a: PathAttributes,
  type: number,
  flags: number | undefined,
  ctx: AttrContext,
) {
  if (type === AttrType.MP_REACH_NLRI && a.mpReach) {
    writeMpReach(w, a.mpReach, u.mpNlri ?? null, flags ?? AttrFlag.OPTIONAL);
    return true;
  }
  const raw = a.unknown?.find((x) => x.type === type);
  if (raw) {
    writeRaw(w, type, flags ?? raw.flags, raw.value);
    return true;
  }
  const d = ATTR_BY_CODE[type];
  if (!d?.has(a)) return false;
  const at = beginAttribute(w, type, flags ?? d.flags);
  d.encode(w, a, ctx);
  endAttribute(w, at);
  return true;
}

/** MP_REACH_NLRI: the family, next hop and reserved octet, then NLRI when given. */
export function writeMpReach(w: Writer, r: MpReach, nlri: PrefixList | null, flags: number): void {
  const at = beginAttribute(w, AttrType.MP_REACH_NLRI, flags);
  w.u16(r.afi).u8(r.safi).u8(r.nextHop.length).bytes(r.nextHop).u8(r.reserved);
  if (nlri) encodeNlri(w, nlri);
  endAttribute(w, at);
}

function writeMpUnreach(w: Writer, m: MpUnreach, flags: number): void {
  const at = beginAttribute(w, AttrType.MP_UNREACH_NLRI, flags);
  w.u16(m.afi).u8(m.safi);
  encodeNlri(w, m.withdrawn);
  endAttribute(w, at);
}

function writeRaw(w: Writer, type: number, flags: number, value: Uint8Array): void {
  const at = beginAttribute(w, type, flags);
  w.bytes(value);
  endAttribute(w, at);
}

/**
 * Writes an attribute's flags, type and a placeholder length (1 octet, or 2 with Extended
 * Length); `endAttribute` fills it in. A value that outgrows one octet gets the Extended
 * Length bit and a second octet.
 */
export function beginAttribute(w: Writer, type: number, flags: number): number {
  const at = w.mark();
  w.u8(flags).u8(type);
  if (flags & AttrFlag.EXTENDED_LENGTH) w.u16(0);
  else w.u8(0);
  return at;
}

/** Where the attribute whose header starts at raw[at] ends (its value's end). */
export function attributeEnd(raw: Uint8Array, at: number): number {
  return (raw[at] & AttrFlag.EXTENDED_LENGTH) !== 0
    ? at + 4 + ((raw[at + 2] << 8) | raw[at + 3])
    : at + 3 + raw[at + 2];
}

export function endAttribute(w: Writer, at: number): void {
  const flags = w.buf[at];
  if (flags & AttrFlag.EXTENDED_LENGTH) {
    w.patch16(at + 2, w.pos - at - 4);
    return;
  }
  const len = w.pos - at - 3;
  if (len <= 255) {
    w.patch8(at + 2, len);
    return;
  }
  w.ensure(1);
  w.buf.copyWithin(at + 4, at + 3, w.pos);
  w.pos++;
  w.buf[at] = flags | AttrFlag.EXTENDED_LENGTH;
  w.patch16(at + 2, len);
}

/** RFC 4724 section 2: End-of-RIB is an empty UPDATE (IPv4) or an empty MP_UNREACH_NLRI. */
export function endOfRib(u: UpdateMessage): { afi: AfiCode; safi: number } | null {
  if (u.withdrawn.count || u.nlri.count || u.mpNlri) return null;
  if (u.attrs === null && u.mpUnreach === null) return { afi: Afi.IPV4, safi: Safi.UNICAST };
  if (u.mpUnreach && u.mpUnreach.withdrawn.count === 0 && (!u.attrs || isEmptyAttributes(u.attrs))) {
    return { afi: u.mpUnreach.afi, safi: u.mpUnreach.safi };
  }
  return null;
}

function isEmptyAttributes(a: PathAttributes): boolean {
  return !a.mpReach && !a.unknown?.length && ATTRS.every((d) => !d.has(a));
}

/** The End-of-RIB marker for a family. */
export function endOfRibInput(afi: AfiCode, safi: number = Safi.UNICAST): UpdateInput {
  if (afi === Afi.IPV4 && safi === Safi.UNICAST) return {};
  return { mpUnreach: { afi, safi, withdrawn: new PrefixList(afi) } };
}
