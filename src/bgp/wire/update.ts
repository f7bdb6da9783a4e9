import { ATTR_BY_CODE, ATTRS, type AttrContext } from './attributes/table.js';
import type { PathAttributes, UpdateAction, UpdateIssue } from './attributes/types.js';
import { Afi, type AfiCode, AttrFlag, AttrType, Safi } from './constants.js';
import { encodeNlri } from './nlri.js';
import { PrefixList } from './prefix-list.js';
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

const MP_FIRST = [AttrType.MP_UNREACH_NLRI, AttrType.MP_REACH_NLRI] as const;

/** Writes an UPDATE body. Attributes follow their received layout, else canonical order. */
export function encodeUpdate(w: Writer, u: UpdateInput, ctx: AttrContext): void {
  const lenAt = w.mark();
  w.u16(0);
  if (u.withdrawn) encodeNlri(w, u.withdrawn);
  w.patch16(lenAt, w.pos - lenAt - 2);
  const attrAt = w.mark();
  w.u16(0);
  encodeAttributes(w, u, ctx);
  w.patch16(attrAt, w.pos - attrAt - 2);
  if (u.nlri) encodeNlri(w, u.nlri);
}

function encodeAttributes(w: Writer, u: UpdateInput, ctx: AttrContext): void {
  const a = u.attrs ?? null;
  const unreach = u.mpUnreach ?? null;
  const done = new Set<number>();
  let written = 0;
  const unreachAt = unreach?.position ?? 0;
  const writeUnreachIfDue = () => {
    if (unreach && !done.has(AttrType.MP_UNREACH_NLRI) && written >= unreachAt) {
      writeAttribute(w, AttrType.MP_UNREACH_NLRI, unreach.flags ?? AttrFlag.OPTIONAL, () => {
        w.u16(unreach.afi).u8(unreach.safi);
        encodeNlri(w, unreach.withdrawn);
      });
      done.add(AttrType.MP_UNREACH_NLRI);
    }
  };
  const writeOne = (type: number, flags: number | undefined) => {
    if (done.has(type) || !a) return;
    if (type === AttrType.MP_REACH_NLRI) {
      const r = a.mpReach;
      if (!r) return;
      writeAttribute(w, type, flags ?? AttrFlag.OPTIONAL, () => {
        w.u16(r.afi).u8(r.safi).u8(r.nextHop.length).bytes(r.nextHop).u8(r.reserved);
        if (u.mpNlri) encodeNlri(w, u.mpNlri);
      });
    } else {
      const d = ATTR_BY_CODE[type];
      const raw = a.unknown?.find((x) => x.type === type);
      if (raw) writeAttribute(w, type, flags ?? raw.flags, () => w.bytes(raw.value));
      else if (d?.has(a)) writeAttribute(w, type, flags ?? d.flags, () => d.encode(w, a, ctx));
      else return;
    }
    done.add(type);
    written++;
  };

  writeUnreachIfDue();
  if (a?.layout) {
    for (const slot of a.layout) {
      writeOne(slot.type, slot.flags);
      writeUnreachIfDue();
    }
  }
  // Canonical order for anything not placed by a layout: MP attributes first, then by type code.
  if (unreach && !done.has(AttrType.MP_UNREACH_NLRI)) {
    written = unreachAt;
    writeUnreachIfDue();
  }
  for (const type of MP_FIRST) writeOne(type, undefined);
  for (const d of ATTRS) writeOne(d.code, undefined);
  for (const raw of a?.unknown ?? []) writeOne(raw.type, undefined);
}

/**
 * Writes one attribute: flags, type, length (1 octet, or 2 with Extended Length), value.
 * A value that outgrows one length octet gets the Extended Length bit and a second octet.
 */
export function writeAttribute(w: Writer, type: number, flags: number, body: () => void): void {
  const flagsAt = w.mark();
  const ext = (flags & AttrFlag.EXTENDED_LENGTH) !== 0;
  w.u8(flags).u8(type);
  const lenAt = w.pos;
  if (ext) w.u16(0);
  else w.u8(0);
  const valueAt = w.pos;
  body();
  const len = w.pos - valueAt;
  if (ext) w.patch16(lenAt, len);
  else if (len <= 255) w.patch8(lenAt, len);
  else {
    w.ensure(1);
    w.buf.copyWithin(valueAt + 1, valueAt, w.pos);
    w.pos++;
    w.buf[flagsAt] = flags | AttrFlag.EXTENDED_LENGTH;
    w.patch16(lenAt, len);
  }
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
  return Object.entries(a).every(
    ([k, v]) => v === undefined || (k === 'layout' && (v as unknown[]).length === 0),
  );
}

/** The End-of-RIB marker for a family. */
export function endOfRibInput(afi: AfiCode, safi: number = Safi.UNICAST): UpdateInput {
  if (afi === Afi.IPV4 && safi === Safi.UNICAST) return {};
  return { mpUnreach: { afi, safi, withdrawn: new PrefixList(afi) } };
}
