import { Reader, type Writer } from '../../bgp/wire/index.js';
import {
  addressLength,
  addressText,
  checkFamily,
  readFullPrefix,
  writeFullPrefix,
  type ZapiPrefix,
} from './address.js';
import { NOTIFY_OWNER_NAMES, type NotifyOwnerCode, ZapiCommand } from './constants.js';
import { ZapiError } from './errors.js';
import type { ZapiFrame } from './framer.js';
import { writeFrame } from './header.js';
import { asMalformed, decodeRoute, readHostU32, type ZapiRoute } from './route-message.js';

/* The small ZAPI messages of a route-owning client (zebra/zapi_msg.c, FRR 8.4). */

export interface ZapiHello {
  /** ZEBRA_ROUTE_* the client owns; zebra accepts CONNECT < proto < MAX. */
  readonly proto: number;
  readonly instance: number;
  readonly sessionId: number;
  /** 1 = zebra sends ROUTE_NOTIFY_OWNER for this client's routes. */
  readonly receiveNotify: boolean;
  /** 1 = a synchronous client: zebra sends nothing unsolicited (not even CAPABILITIES). */
  readonly synchronous: boolean;
}

/** HELLO body: u8 proto | u16 instance | u32 session_id | u8 receive_notify | u8 synchronous. */
export function writeHello(w: Writer, h: ZapiHello): void {
  writeFrame(w, ZapiCommand.HELLO, (b) =>
    b
      .u8(h.proto)
      .u16(h.instance)
      .u32(h.sessionId)
      .u8(h.receiveNotify ? 1 : 0)
      .u8(h.synchronous ? 1 : 0),
  );
}

/** ROUTER_ID_ADD body: u16 afi. zebra answers with ROUTER_ID_UPDATE once it has a router-id. */
export function writeRouterIdAdd(w: Writer, afi: number): void {
  writeFrame(w, ZapiCommand.ROUTER_ID_ADD, (b) => b.u16(afi));
}

export interface ZapiCapabilities {
  readonly vrfBackend: number;
  readonly mplsEnabled: boolean;
  /** The most next hops zebra installs per route (configure-time MULTIPATH_NUM, or -e). */
  readonly multipathNum: number;
  readonly mlagRole: number;
}

export interface ZapiVrfAdd {
  /** struct vrf_data.l.table_id, copied raw: host byte order. */
  readonly tableId: number;
  readonly name: string;
}

export interface ZapiNotifyOwner {
  readonly note: NotifyOwnerCode;
  readonly prefix: ZapiPrefix;
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
  | { readonly kind: 'other'; readonly command: number };

/** CAPABILITIES: u32 vrf_backend | u8 mpls_enabled | u32 multipath_num | u8 mlag_role. */
export function decodeCapabilities(r: Reader): ZapiCapabilities {
  return { vrfBackend: r.u32(), mplsEnabled: r.u8() !== 0, multipathNum: r.u32(), mlagRole: r.u8() };
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
 * u8 family | u8 len | FULL address | u32 table_id | u8 afi | u8 safi.
 */
export function decodeNotifyOwner(r: Reader): ZapiNotifyOwner {
  const note = readHostU32(r);
  if (!NOTIFY_OWNER_NAMES.has(note))
    throw new ZapiError('malformed', `route notify-owner note ${note} unknown`);
  const prefix = readFullPrefix(r);
  return { note: note as NotifyOwnerCode, prefix, tableId: r.u32(), afi: r.u8(), safi: r.u8() };
}

/** The inverse of decodeNotifyOwner, for tests and fixtures (only zebra sends this). */
export function writeNotifyOwner(w: Writer, n: ZapiNotifyOwner): void {
  writeFrame(w, ZapiCommand.ROUTE_NOTIFY_OWNER, (b) => {
    const le = new Uint8Array(Uint32Array.of(n.note).buffer);
    b.bytes(le);
    writeFullPrefix(b, n.prefix);
    b.u32(n.tableId).u8(n.afi).u8(n.safi);
  });
}

/** ROUTER_ID_UPDATE: u8 family | address (4|16) | u8 prefixlen -- the length comes after. */
export function decodeRouterIdUpdate(r: Reader): ZapiRouterId {
  const family = checkFamily(r.u8());
  const addr = addressText(r.copy(addressLength(family)));
  return { prefix: { family, addr, len: r.u8() } };
}

/** Decodes one frame from zebra. Throws ZapiError('malformed') when a known body is short or bad. */
export function decodeMessage(frame: ZapiFrame): ZapiMessage {
  const r = new Reader(frame.body);
  try {
    switch (frame.command) {
      case ZapiCommand.CAPABILITIES:
        return { kind: 'capabilities', value: decodeCapabilities(r) };
      case ZapiCommand.VRF_ADD:
        return { kind: 'vrf-add', vrfId: frame.vrfId, value: decodeVrfAdd(r) };
      case ZapiCommand.ROUTE_NOTIFY_OWNER:
        return { kind: 'notify-owner', value: decodeNotifyOwner(r) };
      case ZapiCommand.ROUTER_ID_UPDATE:
        return { kind: 'router-id-update', value: decodeRouterIdUpdate(r) };
      case ZapiCommand.ROUTE_ADD:
      case ZapiCommand.ROUTE_DELETE:
        return { kind: 'route', command: frame.command, value: decodeRoute(frame.body) };
      default:
        return { kind: 'other', command: frame.command };
    }
  } catch (err) {
    throw asMalformed(err, `command ${frame.command}`);
  }
}
