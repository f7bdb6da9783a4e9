import { hex } from '../../support/hex.js';

/*
 * ZAPI 6 frames captured from FRR 8.4.4: a stdlib client talking to zebra in a lab namespace,
 * and a unix-socket relay placed between a real bgpd and its zebra (the bgpd frames). Each is
 * one whole frame, header included, annotated per field.
 */

export const PROBE_HELLO = hex`
  00 13 fe 06 00 00 00 00 00 12   # len 19, marker, version 6, vrf 0, HELLO
  09 | 00 00 | 00 00 00 00 | 01 | 00   # proto BGP, instance 0, session 0, notify 1, sync 0`;

export const BGPD_HELLO = hex`
  00 13 fe 06 00 00 00 00 00 12
  09 | 00 00 | 00 00 00 00 | 00 | 00   # bgpd asks for no notifications`;

export const ROUTER_ID_ADD_IPV4 = hex`00 0c fe 06 00 00 00 00 00 0f | 00 01   # afi 1`;

export const CAPABILITIES = hex`
  00 14 fe 06 00 00 00 00 00 13
  00 00 00 00 | 00 | 00 00 01 00 | 00   # vrf_backend 0, mpls 0, multipath 256, mlag role 0`;

export const VRF_ADD_DEFAULT = hex`
  00 56 fe 06 00 00 00 00 00 21
  fe 00 00 00                                        # table_id 254, HOST order
  00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00   # netns_name[36]
  64 65 66 61 75 6c 74 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00   # "default"`;

/** The probe's ROUTE_ADD 203.0.113.0/24 via 198.18.1.1 ifindex 2, distance 20, metric 0. */
export const PROBE_ROUTE_ADD_V4 = hex`
  00 30 fe 06 00 00 00 00 00 08
  09 | 00 00 | 00 00 00 00 | 00 00 00 07 | 01     # BGP, inst 0, flags 0, NEXTHOP|DISTANCE|METRIC, safi 1
  02 | 18 | cb 00 71                             # AF_INET /24 203.0.113 (PSIZE bytes)
  00 01                                          # one next hop
  00 00 00 00 | 03 | 00 | c6 12 01 01 | 00 00 00 02   # vrf 0, IPV4_IFINDEX, flags 0, 198.18.1.1, ifindex 2
  14 | 00 00 00 00                               # distance 20, metric 0`;

/** The probe's ROUTE_ADD 2001:db8:300::/48 via 2001:db8:1::1 ifindex 2. */
export const PROBE_ROUTE_ADD_V6 = hex`
  00 3f fe 06 00 00 00 00 00 08
  09 00 00 00 00 00 00 00 00 00 07 01
  0a | 30 | 20 01 0d b8 03 00                    # AF_INET6 /48
  00 01
  00 00 00 00 | 05 | 00 | 20 01 0d b8 00 01 00 00 00 00 00 00 00 00 00 01 | 00 00 00 02
  14 | 00 00 00 00`;

export const PROBE_ROUTE_DELETE_V4 = hex`
  00 1b fe 06 00 00 00 00 00 09
  09 | 00 00 | 00 00 00 00 | 00 00 00 00 | 01 | 02 | 18 | cb 00 71   # message 0: no next hops`;

export const PROBE_ROUTE_DELETE_V6 = hex`
  00 1e fe 06 00 00 00 00 00 09
  09 00 00 00 00 00 00 00 00 00 00 01 | 0a | 30 | 20 01 0d b8 03 00`;

/** The real bgpd's ROUTE_ADD 192.0.2.0/24 learned over single-hop eBGP: type IPV4, ifindex 0. */
export const BGPD_ROUTE_ADD = hex`
  00 30 fe 06 00 00 00 00 00 08
  09 | 00 00 | 00 00 00 00 | 00 00 00 07 | 01
  02 | 18 | c0 00 02
  00 01
  00 00 00 00 | 02 | 00 | c6 12 03 03 | 00 00 00 00   # IPV4 198.18.3.3, ifindex 0
  14 | 00 00 00 00`;

export const NOTIFY_INSTALLED_V4 = hex`
  00 1a fe 06 00 00 00 00 00 0a
  02 00 00 00                 # INSTALLED (2), little-endian
  02 | 18 | cb 00 71 00        # AF_INET /24, FULL 4 bytes
  00 00 00 fe | 01 | 01        # table 254, afi 1, safi 1`;

export const NOTIFY_REMOVED_V4 = hex`
  00 1a fe 06 00 00 00 00 00 0a 03 00 00 00 02 18 cb 00 71 00 00 00 00 fe 01 01`;

export const NOTIFY_INSTALLED_V6 = hex`
  00 26 fe 06 00 00 00 00 00 0a
  02 00 00 00 | 0a | 30 | 20 01 0d b8 03 00 00 00 00 00 00 00 00 00 00 00
  00 00 00 fe | 02 | 01`;

export const ROUTER_ID_UPDATE = hex`
  00 10 fe 06 00 00 00 00 00 11
  02 | c6 12 02 02 | 20          # AF_INET, 198.18.2.2, then prefixlen 32`;

/** zebra's answer to INTERFACE_ADD for lo: a command this client ignores. */
export const INTERFACE_ADD_LO = hex`
  00 4a fe 06 00 00 00 00 00 00 6c 6f 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 01 05 00 00 00
  00 00 01 00 49 00 02 00 00 00 00 00 00 00 00 00 01 00 00 00 01 00 00 00 00 00 00 00 00 00 00 00 00
  00 1e 00 00 00 00 00`;

/** Everything zebra sent the probe after HELLO, in order: CAPABILITIES then VRF_ADD. */
export const HELLO_REPLY_STREAM = new Uint8Array([...CAPABILITIES, ...VRF_ADD_DEFAULT]);
