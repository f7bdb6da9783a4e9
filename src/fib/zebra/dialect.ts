/*
 * The two ZAPI layouts this client speaks. Both say ZSERV_VERSION 6 in every header, so the
 * header cannot tell them apart: what differs is the numbering of commands and route types and
 * a few bodies. Each number below was read off a live zebra (its `debug zebra packet` log names
 * every command a client sends) and the frames of a real bgpd of that version
 * (fixtures/zapi/, made by frr-interop/capture/zapi-capture.ts).
 *
 *                      FRR 8.4                        FRR 10.3
 *   commands           zebra_message_types_t of 8.4   one inserted at 7, VRF_UNREGISTER gone:
 *                                                     7..31 one higher, VRF_ADD 33 in both,
 *                                                     ERROR 120 (118), NOTIFY_REQUEST 126 (124)
 *   route types        BGP 9                          LOCAL inserted at 3: BGP 10
 *   HELLO body         proto instance session         proto instance session synchronous
 *                      receive_notify synchronous     (ROUTE_NOTIFY_REQUEST asks for notes)
 *   CAPABILITIES       10 bytes                       12: + v6_with_v4_nexthop, graceful_restart
 *   ROUTE_NOTIFY_OWNER note family len prefix         ... prefix, src len, src prefix (full), ...
 *   ROUTE_ADD/DELETE, ROUTER_ID_*, VRF_ADD, ERROR bodies: the same
 */

/** The commands this client sends or reads, by their FRR names. */
export interface ZapiCommands {
  readonly INTERFACE_ADD: number;
  readonly ROUTE_ADD: number;
  readonly ROUTE_DELETE: number;
  readonly ROUTE_NOTIFY_OWNER: number;
  readonly ROUTER_ID_ADD: number;
  readonly ROUTER_ID_DELETE: number;
  readonly ROUTER_ID_UPDATE: number;
  readonly HELLO: number;
  readonly CAPABILITIES: number;
  readonly VRF_ADD: number;
  readonly VRF_DELETE: number;
  readonly ERROR: number;
  readonly ROUTE_NOTIFY_REQUEST: number;
}

/**
 * `ZEBRA_ROUTE_*` (lib/route_types.txt) this client uses. zebra takes a HELLO's proto as the
 * client's own only above the types it keeps itself (8.4: above CONNECT; 10.3: above LOCAL);
 * the log line "client N says hello and bids fair to announce only bgp routes" names it.
 */
export interface ZapiRouteTypes {
  readonly BGP: number;
}

export interface ZapiDialect {
  /** As logs and status() name it: the FRR release whose zebra it was taken from. */
  readonly name: string;
  readonly command: ZapiCommands;
  readonly routeType: ZapiRouteTypes;
  /**
   * HELLO carries u8 receive_notify before u8 synchronous (8.4). Without it (10.3) the client
   * asks for ROUTE_NOTIFY_OWNER with ROUTE_NOTIFY_REQUEST, as bgpd does.
   */
  readonly helloReceiveNotify: boolean;
  /** The CAPABILITIES body: the fields of 8.4, then (10.3) u8 v6_with_v4_nexthop, u8 graceful_restart. */
  readonly capabilitiesLength: number;
  /** ROUTE_NOTIFY_OWNER has a source prefix (u8 len, full address) after the prefix (10.3). */
  readonly notifySourcePrefix: boolean;
}

/** FRR 8.4 (Debian 12's 8.4.4). */
export const FRR_8_4: ZapiDialect = {
  name: 'FRR 8.4',
  command: {
    INTERFACE_ADD: 0,
    ROUTE_ADD: 8,
    ROUTE_DELETE: 9,
    ROUTE_NOTIFY_OWNER: 10,
    ROUTER_ID_ADD: 15,
    ROUTER_ID_DELETE: 16,
    ROUTER_ID_UPDATE: 17,
    HELLO: 18,
    CAPABILITIES: 19,
    VRF_ADD: 33,
    VRF_DELETE: 34,
    ERROR: 118,
    ROUTE_NOTIFY_REQUEST: 124,
  },
  routeType: { BGP: 9 },
  helloReceiveNotify: true,
  capabilitiesLength: 10,
  notifySourcePrefix: false,
};

/** FRR 10.3 (Debian 13's 10.3). */
export const FRR_10_3: ZapiDialect = {
  name: 'FRR 10.3',
  command: {
    INTERFACE_ADD: 0,
    ROUTE_ADD: 9,
    ROUTE_DELETE: 10,
    ROUTE_NOTIFY_OWNER: 11,
    ROUTER_ID_ADD: 16,
    ROUTER_ID_DELETE: 17,
    ROUTER_ID_UPDATE: 18,
    HELLO: 19,
    CAPABILITIES: 20,
    VRF_ADD: 33,
    VRF_DELETE: 34,
    ERROR: 120,
    ROUTE_NOTIFY_REQUEST: 126,
  },
  routeType: { BGP: 10 },
  helloReceiveNotify: false,
  capabilitiesLength: 12,
  notifySourcePrefix: true,
};

/**
 * The order HELLO tries them in: the newest first. A zebra of the other numbering has no
 * handler for that command and answers ZEBRA_ERROR (ZEBRA_INVALID_MSG_TYPE), whose own command
 * number says which numbering it speaks (see hello.ts).
 */
export const DIALECTS: readonly ZapiDialect[] = [FRR_10_3, FRR_8_4];

const namesOf = new WeakMap<ZapiDialect, ReadonlyMap<number, string>>();

/** "ROUTE_ADD", or "command 42" for a number this dialect has no name for here. */
export function commandName(d: ZapiDialect, code: number): string {
  let names = namesOf.get(d);
  if (names === undefined) {
    names = new Map(Object.entries(d.command).map(([k, v]) => [v, k]));
    namesOf.set(d, names);
  }
  return names.get(code) ?? `command ${code}`;
}
