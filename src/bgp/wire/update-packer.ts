import type { PathAttributes } from './attributes/types.js';
import { Afi, AttrFlag, AttrType, HEADER_LENGTH, MAX_MESSAGE_LENGTH, MessageType } from './constants.js';
import { finishHeader, startHeader } from './header.js';
import { encodeNlriAt, nlriSize } from './nlri.js';
import type { PrefixList } from './prefix-list.js';
import { encodeCanonical, type UpdateInput } from './update.js';
import type { AttrContext } from './update-context.js';
import { Writer } from './writer.js';

/**
 * An attribute set encoded once, ready to be stamped into every UPDATE that carries it
 * (all peers of an update group share it). For IPv6 the MP_REACH_NLRI header (family,
 * next hop, reserved) is kept apart because the NLRI goes inside that attribute.
 */
export interface PreparedAttributes {
  readonly afi: number;
  /**
   * Every attribute except MP_REACH_NLRI: rest[restStart, restEnd) (a range, so a set kept in
   * a shared arena needs no view of its own).
   */
  readonly rest: Uint8Array;
  readonly restStart: number;
  readonly restEnd: number;
  /** AFI, SAFI, next-hop length, next hop, reserved: the start of MP_REACH_NLRI's value. */
  readonly mpHeader: Uint8Array | null;
}

const NO_NLRI: UpdateInput = {};

/** Bytes of the attributes other than MP_REACH_NLRI. */
function restLength(p: PreparedAttributes): number {
  return p.restEnd - p.restStart;
}

/** The attributes other than MP_REACH_NLRI, as a view. */
export function restBytes(p: PreparedAttributes): Uint8Array {
  return p.restStart === 0 && p.restEnd === p.rest.length ? p.rest : p.rest.subarray(p.restStart, p.restEnd);
}

/**
 * Packs prefixes into as few UPDATEs as fit the size limit (4096, or 65535 with RFC 8654),
 * writing whole messages (header included) into one Writer: the socket gets one buffer
 * for many messages. Nothing is allocated per prefix.
 */
export class UpdatePacker {
  readonly ctx: AttrContext;
  maxLength: number;
  private readonly scratch = new Writer(512);

  constructor(ctx: AttrContext, maxLength = MAX_MESSAGE_LENGTH) {
    this.ctx = ctx;
    this.maxLength = maxLength;
  }

  prepare(attrs: PathAttributes): PreparedAttributes {
    const reach = attrs.mpReach;
    const w = this.scratch.reset();
    encodeCanonical(w, NO_NLRI, attrs, this.ctx, false);
    const rest = w.buf.slice(0, w.pos);
    const restEnd = rest.length;
    if (!reach) return { afi: Afi.IPV4, rest, restStart: 0, restEnd, mpHeader: null };
    w.reset().u16(reach.afi).u8(reach.safi).u8(reach.nextHop.length).bytes(reach.nextHop).u8(reach.reserved);
    return { afi: reach.afi, rest, restStart: 0, restEnd, mpHeader: w.buf.slice(0, w.pos) };
  }

  /** Appends UPDATEs announcing prefixes [from, to) of `list`; returns how many messages. */
  announce(w: Writer, attrs: PreparedAttributes, list: PrefixList, from = 0, to = list.count): number {
    return attrs.mpHeader
      ? this.announceMp(w, attrs, attrs.mpHeader, list, from, to)
      : this.announceIpv4(w, attrs, list, from, to);
  }

  private announceIpv4(
    w: Writer,
    attrs: PreparedAttributes,
    list: PrefixList,
    from: number,
    to: number,
  ): number {
    let messages = 0;
    let i = from;
    const fixed = HEADER_LENGTH + 4 + restLength(attrs);
    if (fixed >= this.maxLength)
      throw new Error(`attributes of ${restLength(attrs)} bytes leave no room for NLRI`);
    while (i < to) {
      w.ensure(this.maxLength);
      const at = startHeader(w, MessageType.UPDATE);
      w.u16(0).u16(restLength(attrs)).range(attrs.rest, attrs.restStart, attrs.restEnd);
      const limit = at + this.maxLength;
      for (; i < to; i++) {
        if (w.pos + nlriSize(list, i) > limit) break;
        encodeNlriAt(w, list, i);
      }
      finishHeader(w, at);
      messages++;
    }
    return messages;
  }

  private announceMp(
    w: Writer,
    attrs: PreparedAttributes,
    mpHeader: Uint8Array,
    list: PrefixList,
    from: number,
    to: number,
  ): number {
    let messages = 0;
    let i = from;
    // MP_REACH_NLRI first (RFC 7606 section 5.1), always with a 2-octet length.
    const fixed = HEADER_LENGTH + 4 + 4 + mpHeader.length + restLength(attrs);
    if (fixed >= this.maxLength)
      throw new Error(`attributes of ${restLength(attrs)} bytes leave no room for NLRI`);
    while (i < to) {
      w.ensure(this.maxLength);
      const at = startHeader(w, MessageType.UPDATE);
      w.u16(0);
      const attrLenAt = w.mark();
      w.u16(0);
      w.u8(AttrFlag.OPTIONAL | AttrFlag.EXTENDED_LENGTH).u8(AttrType.MP_REACH_NLRI);
      const mpLenAt = w.mark();
      w.u16(0).bytes(mpHeader);
      const limit = at + this.maxLength - restLength(attrs);
      for (; i < to; i++) {
        if (w.pos + nlriSize(list, i) > limit) break;
        encodeNlriAt(w, list, i);
      }
      w.patch16(mpLenAt, w.pos - mpLenAt - 2);
      w.range(attrs.rest, attrs.restStart, attrs.restEnd);
      w.patch16(attrLenAt, w.pos - attrLenAt - 2);
      finishHeader(w, at);
      messages++;
    }
    return messages;
  }

  /** Appends UPDATEs withdrawing prefixes [from, to) of `list` (Withdrawn Routes or MP_UNREACH_NLRI). */
  withdraw(w: Writer, list: PrefixList, safi = 1, from = 0, to = list.count): number {
    let messages = 0;
    let i = from;
    const ipv4 = list.afi === Afi.IPV4 && safi === 1;
    while (i < to) {
      w.ensure(this.maxLength);
      const at = startHeader(w, MessageType.UPDATE);
      const limit = at + this.maxLength;
      if (ipv4) {
        const lenAt = w.mark();
        w.u16(0);
        for (; i < to && w.pos + nlriSize(list, i) + 2 <= limit; i++) encodeNlriAt(w, list, i);
        w.patch16(lenAt, w.pos - lenAt - 2);
        w.u16(0);
      } else {
        w.u16(0);
        const attrLenAt = w.mark();
        w.u16(0);
        w.u8(AttrFlag.OPTIONAL | AttrFlag.EXTENDED_LENGTH).u8(AttrType.MP_UNREACH_NLRI);
        const mpLenAt = w.mark();
        w.u16(0).u16(list.afi).u8(safi);
        for (; i < to && w.pos + nlriSize(list, i) <= limit; i++) encodeNlriAt(w, list, i);
        w.patch16(mpLenAt, w.pos - mpLenAt - 2);
        w.patch16(attrLenAt, w.pos - attrLenAt - 2);
      }
      finishHeader(w, at);
      messages++;
    }
    return messages;
  }
}
