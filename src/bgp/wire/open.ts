import {
  type Capability,
  decodeCapabilities,
  encodeCapabilities,
  type FourOctetAsCapability,
} from './capabilities.js';
import {
  AS_TRANS,
  BGP_VERSION,
  ErrorCode,
  HEADER_LENGTH,
  HeaderSubcode,
  MIN_HOLD_TIME,
  NON_EXT_OP_LEN_EXTENDED,
  OPEN_FIXED_LENGTH,
  OpenSubcode,
  OptParamType,
  UNSPECIFIC_SUBCODE,
} from './constants.js';
import { BgpError, type BgpErrorKind } from './errors.js';
import type { Reader } from './reader.js';
import { Writer } from './writer.js';

/*
 * RFC 4271 section 4.2, with the RFC 9072 extended form of the Optional Parameters:
 *
 *   | Version (1) | My Autonomous System (2) | Hold Time (2) | BGP Identifier (4) |
 *   | Opt Parm Len (1) | Optional Parameters: { Parm. Type (1), Parm. Length (1), Value }* |
 * or
 *   | Non-Ext OP Len = 255 (1) | Non-Ext OP Type = 255 (1) | Extended Opt. Parm. Length (2) |
 *   | Optional Parameters: { Parm. Type (1), Parm. Length (2), Value }* |
 */

/** RFC 5492: the only optional parameter BGP-4 still defines. */
export interface CapabilitiesParameter {
  readonly type: 'capabilities';
  readonly capabilities: readonly Capability[];
}

export type OptionalParameter = CapabilitiesParameter;

/**
 * An OPEN message body. `params` keeps the peer's grouping (FRR sends one capability per
 * parameter, GoBGP and BIRD one parameter for all) and `extendedLength` the RFC 9072 form, so
 * that a decoded OPEN re-encodes byte for byte.
 */
export interface OpenMessage {
  readonly type: 'open';
  readonly version: number;
  /** The 2-octet My Autonomous System field as sent (AS_TRANS for a 4-octet AS). */
  readonly myAs: number;
  readonly holdTime: number;
  /** The BGP Identifier as an unsigned 32-bit number. */
  readonly bgpId: number;
  /** True when the Optional Parameters use the RFC 9072 extended length encoding. */
  readonly extendedLength: boolean;
  readonly params: readonly OptionalParameter[];
}

const U8_MAX = 0xff;
const U16_MAX = 0xffff;
const U32_MAX = 0xffffffff;
/** Parm. Type(1) + Parm. Length(1), or (RFC 9072) Parm. Type(1) + Parm. Length(2). */
const PARAM_HEADER_LENGTH = 2;
const EXTENDED_PARAM_HEADER_LENGTH = 3;
/** Non-Ext OP Type(1) + Extended Opt. Parm. Length(2), after the Non-Ext OP Len octet. */
const EXTENDED_PREFIX_LENGTH = 3;

function openError(kind: BgpErrorKind, subcode: number, detail: string, data?: Uint8Array): BgpError {
  return new BgpError(kind, ErrorCode.OPEN_MESSAGE, subcode, data, detail);
}

/** RFC 4271 section 6.2: unspecific (0) is the subcode for a malformed, recognized parameter. */
function malformedParams(detail: string): BgpError {
  return openError('open-malformed-optional-parameters', UNSPECIFIC_SUBCODE, detail);
}

/**
 * Decodes an OPEN body (after the 19-octet header). Throws BgpError with the NOTIFICATION
 * RFC 4271 section 6.2 asks for; never anything else.
 */
export function decodeOpen(r: Reader): OpenMessage {
  const bodyLength = r.remaining;
  // RFC 4271 section 6.1: an OPEN shorter than its minimum is Bad Message Length, and the Data
  // field carries the erroneous Length field. The header check normally catches this first.
  if (bodyLength < OPEN_FIXED_LENGTH) {
    const data = new Writer(2).u16(HEADER_LENGTH + bodyLength).finish();
    throw new BgpError(
      'open-too-short',
      ErrorCode.MESSAGE_HEADER,
      HeaderSubcode.BAD_MESSAGE_LENGTH,
      data,
      `OPEN body is ${bodyLength} octets, at least ${OPEN_FIXED_LENGTH} needed`,
    );
  }
  const version = r.u8();
  // RFC 4271 section 6.2: Unsupported Version Number; the Data field is a 2-octet unsigned
  // integer naming the largest supported version below the bid, or else the smallest
  // supported one. Both are 4: it is the only version.
  if (version !== BGP_VERSION) {
    const data = new Writer(2).u16(BGP_VERSION).finish();
    throw openError(
      'open-unsupported-version',
      OpenSubcode.UNSUPPORTED_VERSION_NUMBER,
      `version ${version}`,
      data,
    );
  }
  const myAs = r.u16();
  const holdTime = r.u16();
  // RFC 4271 section 6.2: "An implementation MUST reject Hold Time values of one or two seconds."
  if (holdTime !== 0 && holdTime < MIN_HOLD_TIME) {
    throw openError(
      'open-unacceptable-hold-time',
      OpenSubcode.UNACCEPTABLE_HOLD_TIME,
      `hold time ${holdTime}`,
    );
  }
  const bgpId = r.u32();
  // RFC 6286 section 2.2: the BGP Identifier is any non-zero 32-bit value, so zero is the only
  // syntactic error. The iBGP "same as ours" check needs the local identifier: see negotiate().
  if (bgpId === 0) {
    throw openError('open-bad-bgp-identifier', OpenSubcode.BAD_BGP_IDENTIFIER, 'BGP Identifier is 0');
  }
  const optLength = r.u8();
  // RFC 9072 section 2: a non-zero Non-Ext OP Len followed by a Non-Ext OP Type of 255 means
  // the extended format, whatever the Non-Ext OP Len says.
  const extendedLength = optLength !== 0 && r.remaining > 0 && r.buf[r.pos] === OptParamType.EXTENDED_LENGTH;
  let paramsLength = optLength;
  if (extendedLength) {
    if (r.remaining < EXTENDED_PREFIX_LENGTH) {
      throw malformedParams('RFC 9072 Extended Opt. Parm. Length is truncated');
    }
    r.skip(1);
    paramsLength = r.u16();
  }
  // RFC 4271 section 4.2: the Optional Parameters Length is the total length of the Optional
  // Parameters field, which fills the rest of the message. A mismatch either way is a
  // malformed parameter list (2/0, section 6.2).
  if (paramsLength !== r.remaining) {
    throw malformedParams(`Optional Parameters Length ${paramsLength}, but ${r.remaining} octet(s) follow`);
  }
  const params = decodeParams(r, extendedLength);
  return { type: 'open', version, myAs, holdTime, bgpId, extendedLength, params };
}

function decodeParams(r: Reader, extendedLength: boolean): OptionalParameter[] {
  const headerLength = extendedLength ? EXTENDED_PARAM_HEADER_LENGTH : PARAM_HEADER_LENGTH;
  const params: OptionalParameter[] = [];
  while (r.remaining > 0) {
    if (r.remaining < headerLength) {
      throw malformedParams(`${r.remaining} octet(s) left, too short for a parameter header`);
    }
    const type = r.u8();
    const length = extendedLength ? r.u16() : r.u8();
    if (length > r.remaining) {
      throw malformedParams(`parameter ${type} length ${length} overruns the message (${r.remaining} left)`);
    }
    // RFC 4271 section 6.2: an unrecognized Optional Parameter is Unsupported Optional
    // Parameters (2/4). Type 1 (Authentication) was deprecated by RFC 5492 and is one of them.
    if (type !== OptParamType.CAPABILITIES) {
      throw openError(
        'open-unsupported-optional-parameter',
        OpenSubcode.UNSUPPORTED_OPTIONAL_PARAMETER,
        `optional parameter type ${type}`,
      );
    }
    params.push({ type: 'capabilities', capabilities: decodeCapabilities(r.sub(length)) });
  }
  return params;
}

/**
 * Writes an OPEN body. Throws RangeError when the parameters do not fit the chosen layout
 * (over 255 octets without `extendedLength`).
 */
export function encodeOpen(w: Writer, m: OpenMessage): void {
  w.u8(m.version).u16(m.myAs).u16(m.holdTime).u32(m.bgpId);
  if (m.extendedLength) {
    w.u8(NON_EXT_OP_LEN_EXTENDED).u8(OptParamType.EXTENDED_LENGTH);
    const at = w.mark();
    w.u16(0);
    for (const p of m.params) writeParam(w, p, true);
    w.patch16(at, checkedLength(w.pos - at - 2, U16_MAX, 'Extended Opt. Parm. Length'));
    return;
  }
  const at = w.mark();
  w.u8(0);
  for (const p of m.params) writeParam(w, p, false);
  w.patch8(at, checkedLength(w.pos - at - 1, U8_MAX, 'Optional Parameters Length'));
}

function writeParam(w: Writer, p: OptionalParameter, extendedLength: boolean): void {
  w.u8(OptParamType.CAPABILITIES);
  const at = w.mark();
  if (extendedLength) w.u16(0);
  else w.u8(0);
  const start = w.pos;
  encodeCapabilities(w, p.capabilities);
  if (extendedLength) w.patch16(at, checkedLength(w.pos - start, U16_MAX, 'Parameter Length'));
  else w.patch8(at, checkedLength(w.pos - start, U8_MAX, 'Parameter Length'));
}

function checkedLength(length: number, max: number, field: string): number {
  if (length > max) throw new RangeError(`${field} ${length} exceeds ${max}; use the RFC 9072 encoding`);
  return length;
}

/** All capabilities of an OPEN, in order, across its optional parameters. */
export function capabilitiesOf(open: OpenMessage): Capability[] {
  return open.params.flatMap((p) => p.capabilities);
}

/** The last capability of a kind: RFC 4724 section 3 asks for "all but the last" to be ignored. */
export function lastCapability<N extends Capability['name']>(
  caps: readonly Capability[],
  name: N,
): Extract<Capability, { name: N }> | undefined {
  for (let i = caps.length - 1; i >= 0; i--) {
    if (caps[i].name === name) return caps[i] as Extract<Capability, { name: N }>;
  }
  return undefined;
}

/** The speaker's real AS: the RFC 6793 4-octet AS capability if present, else My AS. */
export function fourOctetAs(open: OpenMessage): number {
  const cap: FourOctetAsCapability | undefined = lastCapability(capabilitiesOf(open), 'four-octet-as');
  return cap ? cap.as : open.myAs;
}

export interface BuildOpenInit {
  readonly as: number;
  readonly bgpId: number;
  readonly holdTime: number;
  readonly capabilities: readonly Capability[];
}

/**
 * Builds our OPEN: all capabilities in one parameter (as GoBGP and BIRD send them), AS_TRANS in
 * My AS for a 4-octet AS (RFC 6793 section 3), and the RFC 9072 encoding only when the
 * parameters exceed 255 octets (RFC 9072 section 2: "SHOULD be used without alteration"
 * otherwise). Throws RangeError for values no OPEN can carry.
 */
export function buildOpen(init: BuildOpenInit): OpenMessage {
  const { as, bgpId, holdTime, capabilities } = init;
  if (!Number.isInteger(as) || as < 1 || as > U32_MAX)
    throw new RangeError(`AS ${as} is not a valid AS number`);
  if (!Number.isInteger(bgpId) || bgpId < 1 || bgpId > U32_MAX) {
    throw new RangeError(`BGP Identifier ${bgpId} must be a non-zero 32-bit value (RFC 6286)`);
  }
  if (!Number.isInteger(holdTime) || holdTime > U16_MAX || (holdTime !== 0 && holdTime < MIN_HOLD_TIME)) {
    throw new RangeError(`hold time ${holdTime} must be 0 or 3..65535 seconds (RFC 4271 section 4.2)`);
  }
  const as4 = lastCapability(capabilities, 'four-octet-as');
  if (as > U16_MAX && !as4) throw new RangeError(`AS ${as} needs the four-octet-as capability (RFC 6793)`);
  if (as4 && as4.as !== as) throw new RangeError(`four-octet-as capability says ${as4.as}, but AS is ${as}`);
  const params: OptionalParameter[] = capabilities.length > 0 ? [{ type: 'capabilities', capabilities }] : [];
  const probe = new Writer();
  encodeCapabilities(probe, capabilities);
  const paramsLength = params.length > 0 ? PARAM_HEADER_LENGTH + probe.pos : 0;
  return {
    type: 'open',
    version: BGP_VERSION,
    myAs: as > U16_MAX ? AS_TRANS : as,
    holdTime,
    bgpId,
    extendedLength: paramsLength > U8_MAX,
    params,
  };
}
