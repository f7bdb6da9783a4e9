/**
 * IPv6 neighbour discovery on an unnumbered link (RFC 4861 router advertisements over a raw
 * ICMPv6 socket): how a peer configured by interface finds its neighbour's link-local address.
 */
export { LinkDefaults, NdType } from './constants.js';
export {
  LinkNeighbor,
  type LinkNeighborComponents,
  type LinkNeighborInit,
  type NdSocket,
} from './discovery.js';
export { LinkError, type LinkErrorKind } from './errors.js';
export { IcmpSocket, icmp6Filter, type Received, sockaddrIn6 } from './icmp-socket.js';
export { isInterfaceName, type LinkInfo, readLinkInfo } from './link-info.js';
export {
  decodeNdMessage,
  encodeRouterAdvertisement,
  isLinkLocal,
  type NdMessage,
  type NdVerdict,
  parseMac,
  type RouterAdvertisement,
  type RouterAdvertisementInit,
  type RouterSolicitation,
} from './nd-message.js';
