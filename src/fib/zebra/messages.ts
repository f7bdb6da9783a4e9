import { Reader, type Writer } from '../../bgp/wire/index.js';
import {
  addressLength,
  addressText,
  checkFamily,
  readFullPrefix,
  readSourcePrefix,
  writeFullPrefix,
  writeSourcePrefix,
  type ZapiPrefix,
} from './address.js';
import { NOTIFY_OWNER_NAMES, type NotifyOwnerCode } from './constants.js';
import type { ZapiDialect } from './dialect.js';
import { ZapiError } from './errors.js';
import type { ZapiFrame } from './framer.js';
import { writeFrame } from './header.js';
import { asMalformed, decodeRoute, hostU32Bytes, readHostU32, type ZapiRoute } from './route-message.js';

/*
 * The small ZAPI messages of a route-owning client (zebra/zapi_msg.c), in either dialect:
 * the command numbers and the layouts that differ come from the ZapiDialect.
 */

export interface ZapiHello {
  /** ZEBRA_ROUTE_* the client owns; zebra accepts CONNECT < proto < MAX. */
  readonly proto: number;
  readonly instance: number;
  readonly sessionId: number;
  /**
   * 1 = zebra sends ROUTE_NOTIFY_OWNER for this client's routes. Only FRR 8.4's HELLO has the
   * byte; with 10.3 it must be false (ask with ROUTE_NOTIFY_REQUEST instead).
   */
  readonly receiveNotify: boolean;
  /** 1 = a synchronous client: zebra sends nothing unsolicited (not even CAPABILITIES). */
  readonly synchronous: boolean;
}

/**
 * HELLO body: u8 proto | u16 instance | u32 session_id | [8.4: u8 receive_notify] | u8 synchronous.
 * 10.3 reads the byte after session_id as `synchronous`: an 8.4 body would make us a
 * synchronous client, to which zebra sends nothing (not even CAPABILITIES).
 */
export function writeHello(w: Writer, d: ZapiDialect, h: ZapiHello): void {
  if (h.receiveNotify && !d.helloReceiveNotify)
    throw new ZapiError('unencodable', `${d.name}'s HELLO cannot ask for notifications`);
  writeFrame(w, d.command.HELLO, (b) => {
    b.u8(h.proto).u16(h.instance).u32(h.sessionId);
    if (d.helloReceiveNotify) b.u8(h.receiveNotify ? 1 : 0);
    b.u8(h.synchronous ? 1 : 0);
  });
}

/** ROUTER_ID_ADD body: u16 afi. zebra answers with ROUTER_ID_UPDATE once it has a router-id. */
export function writeRouterIdAdd(w: Writer, d: ZapiDialect, afi: number): void {
  writeFrame(w, d.command.ROUTER_ID_ADD, (b) => b.u16(afi));
}

/**
 * ROUTE_NOTIFY_REQUEST body: u8 notify (zread_route_notify_request sets client->notify_owner).
 * Both versions have it; bgpd sends it after HELLO when it wants ROUTE_NOTIFY_OWNER.
 */
export function writeRouteNotifyRequest(w: Writer, d: ZapiDialect, notify: boolean): void {
  writeFrame(w, d.command.ROUTE_NOTIFY_REQUEST, (b) => b.u8(notify ? 1 : 0));
}

export interface ZapiCapabilities {
  readonly vrfBackend: number;
  readonly mplsEnabled: boolean;
  /** The most next hops zebra installs per route (configure-time MULTIPATH_NUM, or -e). */
  readonly multipathNum: number;
  readonly mlagRole: number;
  /** 10.3 only: zebra can install IPv6 routes over IPv4 next hops. */
  readonly v6WithV4Nexthop?: boolean;
  /** 10.3 only: zebra runs with graceful restart. */
  readonly gracefulRestart?: boolean;
}

export interface ZapiVrfAdd {
  /** struct vrf_data.l.table_id, copied raw: host byte order. */
  readonly tableId: number;
  readonly name: string;
}

export interface ZapiNotifyOwner {
  readonly note: NotifyOwnerCode;
  readonly prefix: ZapiPrefix;
  /** 10.3 only, and only for a source-specific route (its length is not 0). */
  readonly sourcePrefix?: ZapiPrefix;
  readonly tableId: number;
  readonly afi: number;
  readonly safi: number;
}

export interface ZapiRouterId {
  readonly prefix: ZapiPrefix;
}

/** What this client understands of a frame from zebra; everything else is `other` and ignored. */
export type ZapiMessage =
  | { readonly kind: 'capabilities'; readonly value: ZapiCapabilities }
  | { readonly kind: 'vrf-add'; readonly vrfId: number; readonly value: ZapiVrfAdd }
  | { readonly kind: 'notify-owner'; readonly value: ZapiNotifyOwner }
  | { readonly kind: 'router-id-update'; readonly value: ZapiRouterId }
  | { readonly kind: 'route'; readonly command: number; readonly value: ZapiRoute }
  | { readonly kind: 'error'; readonly value: number }
  | { readonly kind: 'other'; readonly command: number };

/**
 * CAPABILITIES: u32 vrf_backend | u8 mpls_enabled | u32 multipath_num | u8 mlag_role
 * [10.3: | u8 v6_with_v4_nexthop | u8 graceful_restart]. Bytes past what the dialect defines
 * are left unread: a later zebra may append fields.
 */
export function decodeCapabilities(r: Reader, d: ZapiDialect): ZapiCapabilities {
  const caps = { vrfBackend: r.u32(), mplsEnabled: r.u8() !== 0, multipathNum: r.u32(), mlagRole: r.u8() };
  if (d.capabilitiesLength <= 10) return caps;
  return { ...caps, v6WithV4Nexthop: r.u8() !== 0, gracefulRestart: r.u8() !== 0 };
}

/** The inverse of decodeCapabilities, for tests (only zebra sends this). */
export function writeCapabilities(w: Writer, d: ZapiDialect, c: ZapiCapabilities): void {
  writeFrame(w, d.command.CAPABILITIES, (b) => {
    b.u32(c.vrfBackend)
      .u8(c.mplsEnabled ? 1 : 0)
      .u32(c.multipathNum)
      .u8(c.mlagRole);
    if (d.capabilitiesLength > 10) b.u8(c.v6WithV4Nexthop ? 1 : 0).u8(c.gracefulRestart ? 1 : 0);
  });
}

/** ZEBRA_ERROR: u32 `enum zebra_error_types` in HOST byte order. */
export function decodeError(r: Reader): number {
  return readHostU32(r);
}

/** NUL-padded fixed-size name (VRF_NAMSIZ = 36). */
function fixedString(b: Uint8Array): string {
  const end = b.indexOf(0);
  return Buffer.from(b.buffer, b.byteOffset, end < 0 ? b.length : end).toString('utf8');
}

const VRF_NAMSIZ = 36;

/** VRF_ADD: struct vrf_data (u32 table_id host order, netns_name[36]), then name[36]. */
export function decodeVrfAdd(r: Reader): ZapiVrfAdd {
  const tableId = readHostU32(r);
  r.skip(VRF_NAMSIZ);
  return { tableId, name: fixedString(r.bytes(VRF_NAMSIZ)) };
}

/**
 * ROUTE_NOTIFY_OWNER: u32 note in HOST order (zebra does stream_put(&note, sizeof(note))),
 * u8 family | u8 len | FULL address | [10.3: u8 src len | FULL src address] |
 * u32 table_id | u8 afi | u8 safi.
 */
export function decodeNotifyOwner(r: Reader, d: ZapiDialect): ZapiNotifyOwner {
  const note = readHostU32(r);
  if (!NOTIFY_OWNER_NAMES.has(note))
    throw new ZapiError('malformed', `route notify-owner note ${note} unknown`);
  const prefix = readFullPrefix(r);
  const sourcePrefix = d.notifySourcePrefix ? readSourcePrefix(r, prefix.family) : undefined;
  return {
    note: note as NotifyOwnerCode,
    prefix,
    ...(sourcePrefix !== undefined && { sourcePrefix }),
    tableId: r.u32(),
    afi: r.u8(),
    safi: r.u8(),
  };
}

/** The inverse of decodeNotifyOwner, for tests and fixtures (only zebra sends this). */
export function writeNotifyOwner(w: Writer, d: ZapiDialect, n: ZapiNotifyOwner): void {
  if (n.sourcePrefix !== undefined && !d.notifySourcePrefix)
    throw new ZapiError('unencodable', `${d.name}'s ROUTE_NOTIFY_OWNER has no source prefix`);
  writeFrame(w, d.command.ROUTE_NOTIFY_OWNER, (b) => {
    b.bytes(hostU32Bytes(n.note));
    writeFullPrefix(b, n.prefix);
    if (d.notifySourcePrefix) writeSourcePrefix(b, n.prefix.family, n.sourcePrefix);
    b.u32(n.tableId).u8(n.afi).u8(n.safi);
  });
}

/** ROUTER_ID_UPDATE: u8 family | address (4|16) | u8 prefixlen -- the length comes after. */
export function decodeRouterIdUpdate(r: Reader): ZapiRouterId {
  const family = checkFamily(r.u8());
  const addr = addressText(r.copy(addressLength(family)));
  return { prefix: { family, addr, len: r.u8() } };
}

/**
 * Decodes one frame from zebra as dialect `d` numbers and lays it out. Throws
 * ZapiError('malformed') when a known body is short or bad.
 */
export function decodeMessage(frame: ZapiFrame, d: ZapiDialect): ZapiMessage {
  const r = new Reader(frame.body);
  const c = d.command;
  try {
    switch (frame.command) {
      case c.CAPABILITIES:
        return { kind: 'capabilities', value: decodeCapabilities(r, d) };
      case c.VRF_ADD:
        return { kind: 'vrf-add', vrfId: frame.vrfId, value: decodeVrfAdd(r) };
      case c.ROUTE_NOTIFY_OWNER:
        return { kind: 'notify-owner', value: decodeNotifyOwner(r, d) };
      case c.ROUTER_ID_UPDATE:
        return { kind: 'router-id-update', value: decodeRouterIdUpdate(r) };
      case c.ROUTE_ADD:
      case c.ROUTE_DELETE:
        return { kind: 'route', command: frame.command, value: decodeRoute(frame.body) };
      case c.ERROR:
        return { kind: 'error', value: decodeError(r) };
      default:
        return { kind: 'other', command: frame.command };
    }
  } catch (err) {
    throw asMalformed(err, `command ${frame.command}`);
  }
}
