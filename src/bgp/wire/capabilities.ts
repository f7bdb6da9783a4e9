// Over 400 lines on purpose: one decode/encode pair per capability of the IANA registry, side
// by side, as the attribute table does for attributes; splitting them would scatter one table.
import {
  AddPathMode,
  CapabilityCode,
  ErrorCode,
  GRACEFUL_RESTART_TIME_BITS,
  GRACEFUL_RESTART_TIME_MAX,
  LONG_LIVED_STALE_TIME_MAX,
  UNSPECIFIC_SUBCODE,
} from './constants.js';
import { BgpError, IncompleteError } from './errors.js';
import type { Reader } from './reader.js';
import type { Writer } from './writer.js';

/*
 * RFC 5492 section 4: a capabilities optional parameter holds a list of
 *
 *   +------------------------------+
 *   | Capability Code (1 octet)    |
 *   | Capability Length (1 octet)  |
 *   | Capability Value (variable)  |
 *   +------------------------------+
 *
 * Every capability we speak has a codec in CAPABILITIES; anything else stays a raw
 * {code, value} so that the OPEN re-encodes byte for byte.
 */

export type AddPathModeCode = (typeof AddPathMode)[keyof typeof AddPathMode];

export interface AfiSafi {
  readonly afi: number;
  readonly safi: number;
}

/** RFC 4760 section 8. `reserved` is kept so the capability re-encodes unchanged. */
export interface MultiprotocolCapability {
  readonly name: 'multiprotocol';
  readonly afi: number;
  readonly reserved: number;
  readonly safi: number;
}

/** RFC 2918. */
export interface RouteRefreshCapability {
  readonly name: 'route-refresh';
}

/** RFC 7313. */
export interface EnhancedRouteRefreshCapability {
  readonly name: 'enhanced-route-refresh';
}

/** RFC 6793. */
export interface FourOctetAsCapability {
  readonly name: 'four-octet-as';
  readonly as: number;
}

export interface GracefulRestartFamily extends AfiSafi {
  /** "Flags for Address Family": see GracefulRestartAfFlag. */
  readonly flags: number;
}

/** RFC 4724; `flags` is the 4-bit Restart Flags field (GracefulRestartFlag, RFC 8538 N bit). */
export interface GracefulRestartCapability {
  readonly name: 'graceful-restart';
  readonly flags: number;
  readonly restartTime: number;
  readonly families: readonly GracefulRestartFamily[];
}

export interface LongLivedGracefulRestartFamily extends AfiSafi {
  /** "Flags for Address Family": the F bit as in GracefulRestartAfFlag. */
  readonly flags: number;
  /** Seconds the peer may keep routes of this family once its Restart Time is over (24 bits). */
  readonly staleTime: number;
}

/** RFC 9494 long-lived graceful restart. */
export interface LongLivedGracefulRestartCapability {
  readonly name: 'long-lived-graceful-restart';
  readonly families: readonly LongLivedGracefulRestartFamily[];
}

export interface AddPathFamily extends AfiSafi {
  readonly mode: AddPathModeCode;
}

/** RFC 7911. */
export interface AddPathCapability {
  readonly name: 'add-path';
  readonly families: readonly AddPathFamily[];
}

export interface ExtendedNextHopFamily extends AfiSafi {
  readonly nextHopAfi: number;
}

/** RFC 8950. */
export interface ExtendedNextHopCapability {
  readonly name: 'extended-next-hop';
  readonly families: readonly ExtendedNextHopFamily[];
}

/** RFC 8654. */
export interface ExtendedMessageCapability {
  readonly name: 'extended-message';
}

/** draft-walton-bgp-hostname-capability, as FRR's bgpd sends it. */
export interface FqdnCapability {
  readonly name: 'fqdn';
  readonly hostname: string;
  readonly domain: string;
}

/** A capability we do not speak, or one whose content we must treat as not understood. */
export interface RawCapability {
  readonly name: 'raw';
  readonly code: number;
  readonly value: Uint8Array;
}

export type Capability =
  | MultiprotocolCapability
  | RouteRefreshCapability
  | EnhancedRouteRefreshCapability
  | FourOctetAsCapability
  | GracefulRestartCapability
  | LongLivedGracefulRestartCapability
  | AddPathCapability
  | ExtendedNextHopCapability
  | ExtendedMessageCapability
  | FqdnCapability
  | RawCapability;

export type KnownCapabilityName = Exclude<Capability['name'], 'raw'>;

type CapabilityOf<N extends Capability['name']> = Extract<Capability, { name: N }>;

export interface CapabilityCodec {
  readonly code: number;
  readonly name: KnownCapabilityName;
  /** Reads the whole value from `r` (a reader over exactly the value); throws BgpError if malformed. */
  readonly decode: (r: Reader) => Capability;
  readonly encode: (w: Writer, c: Capability) => void;
}

/** Capability Code(1) + Capability Length(1). */
const CAPABILITY_HEADER_LENGTH = 2;
const CAPABILITY_LENGTH_MAX = 0xff;
/** RFC 4760 section 8: AFI(2) Reserved(1) SAFI(1). */
const MULTIPROTOCOL_LENGTH = 4;
/** RFC 6793 section 9 (the capability carries the 4-octet AS). */
const FOUR_OCTET_AS_LENGTH = 4;
/** RFC 4724 section 3: Restart Flags + Restart Time, then AFI(2) SAFI(1) Flags(1) per family. */
const GRACEFUL_RESTART_HEADER_LENGTH = 2;
const GRACEFUL_RESTART_FAMILY_LENGTH = 4;
/** RFC 9494 section 3: AFI(2) SAFI(1) Flags(1) Long-lived Stale Time(3). */
const LONG_LIVED_FAMILY_LENGTH = 7;
/** The 24-bit stale time as a high octet and a low 16-bit word. */
const STALE_TIME_HIGH_SHIFT = 16;
const STALE_TIME_LOW_MASK = 0xffff;
/** RFC 7911 section 4: AFI(2) SAFI(1) Send/Receive(1). */
const ADD_PATH_FAMILY_LENGTH = 4;
/** RFC 8950 section 3: NLRI AFI(2) NLRI SAFI(2) Nexthop AFI(2). */
const EXTENDED_NEXT_HOP_FAMILY_LENGTH = 6;

/** The Restart Flags field is 4 bits wide. */
const GR_FLAGS_MASK = 0xf;

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const utf8Encoder = new TextEncoder();

/**
 * RFC 4271 section 6.2: "If one of the Optional Parameters in the OPEN message is recognized,
 * but is malformed, then the Error Subcode MUST be set to 0 (Unspecific)." A capability we
 * recognize but cannot parse is exactly that. 2/7 (Unsupported Capability, RFC 5492 section 3)
 * is for a capability the receiver requires and the peer lacks, never for a malformed one, so
 * no decoder here raises it.
 */
export function malformedCapability(detail: string): BgpError {
  return new BgpError(
    'open-malformed-capability',
    ErrorCode.OPEN_MESSAGE,
    UNSPECIFIC_SUBCODE,
    undefined,
    detail,
  );
}

function exactLength(r: Reader, length: number, what: string): void {
  if (r.remaining !== length) throw malformedCapability(`${what}: length ${r.remaining}, expected ${length}`);
}

function multipleOf(r: Reader, unit: number, what: string): void {
  if (r.remaining % unit !== 0) {
    throw malformedCapability(`${what}: length ${r.remaining} is not a multiple of ${unit}`);
  }
}

function codec<N extends KnownCapabilityName>(
  code: number,
  name: N,
  decode: (r: Reader) => Capability,
  encode: (w: Writer, c: CapabilityOf<N>) => void,
): CapabilityCodec {
  return { code, name, decode, encode: encode as (w: Writer, c: Capability) => void };
}

function noValue<N extends KnownCapabilityName>(code: number, name: N, rfc: string): CapabilityCodec {
  const value = { name } as CapabilityOf<N>;
  return codec(
    code,
    name,
    (r) => {
      exactLength(r, 0, `${name} (${rfc})`);
      return value;
    },
    () => {},
  );
}

const multiprotocol = codec(
  CapabilityCode.MULTIPROTOCOL,
  'multiprotocol',
  (r) => {
    exactLength(r, MULTIPROTOCOL_LENGTH, 'multiprotocol (RFC 4760 section 8)');
    return { name: 'multiprotocol', afi: r.u16(), reserved: r.u8(), safi: r.u8() };
  },
  (w, c) => {
    w.u16(c.afi).u8(c.reserved).u8(c.safi);
  },
);

const fourOctetAs = codec(
  CapabilityCode.FOUR_OCTET_AS,
  'four-octet-as',
  (r) => {
    exactLength(r, FOUR_OCTET_AS_LENGTH, 'four-octet-as (RFC 6793)');
    return { name: 'four-octet-as', as: r.u32() };
  },
  (w, c) => {
    w.u32(c.as);
  },
);

/*
 * RFC 4724 section 3:
 *   +--------------------------------------------------+
 *   | Restart Flags (4 bits) | Restart Time (12 bits)  |
 *   +--------------------------------------------------+
 *   | AFI (16 bits) | SAFI (8 bits) | AF Flags (8 bits)|  repeated
 *   +--------------------------------------------------+
 */
const gracefulRestart = codec(
  CapabilityCode.GRACEFUL_RESTART,
  'graceful-restart',
  (r) => {
    const what = 'graceful-restart (RFC 4724 section 3)';
    if (r.remaining < GRACEFUL_RESTART_HEADER_LENGTH) {
      throw malformedCapability(`${what}: length ${r.remaining} is shorter than the restart header`);
    }
    const flagsAndTime = r.u16();
    multipleOf(r, GRACEFUL_RESTART_FAMILY_LENGTH, what);
    const families: GracefulRestartFamily[] = [];
    while (r.remaining > 0) families.push({ afi: r.u16(), safi: r.u8(), flags: r.u8() });
    return {
      name: 'graceful-restart',
      flags: (flagsAndTime >>> GRACEFUL_RESTART_TIME_BITS) & GR_FLAGS_MASK,
      restartTime: flagsAndTime & GRACEFUL_RESTART_TIME_MAX,
      families,
    };
  },
  (w, c) => {
    w.u16(
      ((c.flags & GR_FLAGS_MASK) << GRACEFUL_RESTART_TIME_BITS) | (c.restartTime & GRACEFUL_RESTART_TIME_MAX),
    );
    for (const f of c.families) w.u16(f.afi).u8(f.safi).u8(f.flags);
  },
);

/*
 * RFC 9494 section 3, repeated per family:
 *   | AFI (16 bits) | SAFI (8 bits) | Flags (8 bits) | Long-lived Stale Time (24 bits) |
 */
const longLivedGracefulRestart = codec(
  CapabilityCode.LONG_LIVED_GRACEFUL_RESTART,
  'long-lived-graceful-restart',
  (r) => {
    multipleOf(r, LONG_LIVED_FAMILY_LENGTH, 'long-lived-graceful-restart (RFC 9494 section 3)');
    const families: LongLivedGracefulRestartFamily[] = [];
    while (r.remaining > 0) {
      const afi = r.u16();
      const safi = r.u8();
      const flags = r.u8();
      const staleTime = (r.u8() << STALE_TIME_HIGH_SHIFT) | r.u16();
      families.push({ afi, safi, flags, staleTime });
    }
    return { name: 'long-lived-graceful-restart', families };
  },
  (w, c) => {
    for (const f of c.families) {
      const t = f.staleTime & LONG_LIVED_STALE_TIME_MAX;
      w.u16(f.afi)
        .u8(f.safi)
        .u8(f.flags)
        .u8(t >>> STALE_TIME_HIGH_SHIFT)
        .u16(t & STALE_TIME_LOW_MASK);
    }
  },
);

function isAddPathMode(v: number): v is AddPathModeCode {
  return v === AddPathMode.RECEIVE || v === AddPathMode.SEND || v === AddPathMode.BOTH;
}

const addPath = codec(
  CapabilityCode.ADD_PATH,
  'add-path',
  (r) => {
    const start = r.pos;
    multipleOf(r, ADD_PATH_FAMILY_LENGTH, 'add-path (RFC 7911 section 4)');
    const families: AddPathFamily[] = [];
    while (r.remaining > 0) {
      const afi = r.u16();
      const safi = r.u8();
      const mode = r.u8();
      // RFC 7911 section 4: "If any other value is received, then the capability SHOULD be
      // treated as not understood and ignored." Kept raw, so negotiation never sees it.
      if (!isAddPathMode(mode)) {
        r.skip(r.remaining);
        return { name: 'raw', code: CapabilityCode.ADD_PATH, value: r.buf.slice(start, r.end) };
      }
      families.push({ afi, safi, mode });
    }
    return { name: 'add-path', families };
  },
  (w, c) => {
    for (const f of c.families) w.u16(f.afi).u8(f.safi).u8(f.mode);
  },
);

const extendedNextHop = codec(
  CapabilityCode.EXTENDED_NEXT_HOP,
  'extended-next-hop',
  (r) => {
    multipleOf(r, EXTENDED_NEXT_HOP_FAMILY_LENGTH, 'extended-next-hop (RFC 8950 section 3)');
    const families: ExtendedNextHopFamily[] = [];
    while (r.remaining > 0) families.push({ afi: r.u16(), safi: r.u16(), nextHopAfi: r.u16() });
    return { name: 'extended-next-hop', families };
  },
  (w, c) => {
    for (const f of c.families) w.u16(f.afi).u16(f.safi).u16(f.nextHopAfi);
  },
);

/*
 * FQDN, as FRR's bgp_open.c writes and parses it:
 *   | Hostname Length (1) | Hostname (variable) | Domain Length (1) | Domain (variable) |
 * FRR rejects a value whose lengths overrun it, or that lacks the domain length octet;
 * so do we. Names are UTF-8 (FRR sends ASCII); a name that is not UTF-8 cannot be shown
 * faithfully, so that capability is kept raw instead of being altered.
 */
const fqdn = codec(
  CapabilityCode.FQDN,
  'fqdn',
  (r) => {
    const start = r.pos;
    const hostname = r.bytes(r.u8());
    const domain = r.bytes(r.u8());
    if (r.remaining !== 0) throw malformedCapability(`fqdn: ${r.remaining} octet(s) after the domain name`);
    try {
      return { name: 'fqdn', hostname: utf8.decode(hostname), domain: utf8.decode(domain) };
    } catch {
      return { name: 'raw', code: CapabilityCode.FQDN, value: r.buf.slice(start, r.end) };
    }
  },
  (w, c) => {
    const hostname = utf8Encoder.encode(c.hostname);
    const domain = utf8Encoder.encode(c.domain);
    w.u8(hostname.length).bytes(hostname).u8(domain.length).bytes(domain);
  },
);

/** The capabilities we speak, keyed by IANA capability code. */
export const CAPABILITIES: Readonly<Record<number, CapabilityCodec>> = Object.fromEntries(
  [
    multiprotocol,
    noValue(CapabilityCode.ROUTE_REFRESH, 'route-refresh', 'RFC 2918 section 2'),
    extendedNextHop,
    noValue(CapabilityCode.EXTENDED_MESSAGE, 'extended-message', 'RFC 8654 section 3'),
    gracefulRestart,
    longLivedGracefulRestart,
    fourOctetAs,
    addPath,
    noValue(CapabilityCode.ENHANCED_ROUTE_REFRESH, 'enhanced-route-refresh', 'RFC 7313 section 3'),
    fqdn,
  ].map((c) => [c.code, c]),
);

const CODEC_BY_NAME: Readonly<Record<KnownCapabilityName, CapabilityCodec>> = Object.fromEntries(
  Object.values(CAPABILITIES).map((c) => [c.name, c]),
) as Record<KnownCapabilityName, CapabilityCodec>;

/** The IANA code of a capability value. */
export function capabilityCode(c: Capability): number {
  return c.name === 'raw' ? c.code : CODEC_BY_NAME[c.name].code;
}

/** Decodes one capability value; `r` covers exactly the Capability Value field. */
export function decodeCapability(code: number, r: Reader): Capability {
  const known = CAPABILITIES[code];
  if (!known) return { name: 'raw', code, value: r.copy(r.remaining) };
  try {
    const c = known.decode(r);
    if (r.remaining !== 0) throw malformedCapability(`${known.name}: ${r.remaining} trailing octet(s)`);
    return c;
  } catch (e) {
    if (e instanceof IncompleteError) throw malformedCapability(`${known.name}: value ends early`);
    throw e;
  }
}

/**
 * Decodes the value of a capabilities optional parameter (RFC 5492 section 4). A capability
 * header or length that runs past the parameter is a malformed parameter: 2/0 (RFC 4271
 * section 6.2).
 */
export function decodeCapabilities(r: Reader): Capability[] {
  const caps: Capability[] = [];
  while (r.remaining > 0) {
    if (r.remaining < CAPABILITY_HEADER_LENGTH) {
      throw malformedCapability(`${r.remaining} octet(s) left, too short for a capability header`);
    }
    const code = r.u8();
    const length = r.u8();
    if (length > r.remaining) {
      throw malformedCapability(
        `capability ${code} length ${length} overruns the parameter (${r.remaining})`,
      );
    }
    caps.push(decodeCapability(code, r.sub(length)));
  }
  return caps;
}

/** Writes one capability TLV. Throws RangeError if its value does not fit the 1-octet length. */
export function encodeCapability(w: Writer, c: Capability): void {
  const code = capabilityCode(c);
  w.u8(code);
  const at = w.mark();
  w.u8(0);
  if (c.name === 'raw') w.bytes(c.value);
  else CODEC_BY_NAME[c.name].encode(w, c);
  const length = w.pos - at - 1;
  if (length > CAPABILITY_LENGTH_MAX) {
    throw new RangeError(
      `capability ${code} value is ${length} octets; at most ${CAPABILITY_LENGTH_MAX} fit`,
    );
  }
  w.patch8(at, length);
}

export function encodeCapabilities(w: Writer, caps: readonly Capability[]): void {
  for (const c of caps) encodeCapability(w, c);
}
