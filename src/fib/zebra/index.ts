/** A ZAPI 6 client that programs our routes into FRR's zebra (8.4 or 10.3), as bgpd does. */

export { type Clock, type Logger, silentLogger, systemClock } from '../../components/index.js';
export {
  addressBytes,
  addressText,
  prefixText,
  type ZapiPrefix,
} from './address.js';
export { type BackoffOptions, backoffDelay } from './backoff.js';
export { ZapiClient, type ZapiClientHandlers, type ZapiClientInit, type ZapiClientState } from './client.js';
export type { ZebraComponents } from './components.js';
export {
  NexthopType,
  NOTIFY_OWNER_NAMES,
  NotifyOwner,
  type NotifyOwnerCode,
  RT_TABLE_MAIN,
  VRF_DEFAULT,
  ZapiAfi,
  ZapiMessage as ZapiMessageFlag,
  ZapiNexthopFlag,
  ZapiSafi,
  ZEBRA_DEFAULTS,
  ZEBRA_HEADER_MARKER,
  ZEBRA_HEADER_SIZE,
  ZEBRA_MAX_PACKET_SIZE,
  ZebraErrorType,
  ZebraFlag,
  ZSERV_VERSION,
} from './constants.js';
export { convertible, type RouteOwner, routeKey, toZapiRoute, zapiPrefix } from './convert.js';
export {
  commandName,
  DIALECTS,
  FRR_8_4,
  FRR_10_3,
  type ZapiCommands,
  type ZapiDialect,
  type ZapiRouteTypes,
} from './dialect.js';
export { ZapiError, type ZapiErrorKind } from './errors.js';
export { type ZapiFrame, ZapiFramer } from './framer.js';
export { decodeHeader, writeFrame, type ZapiHeader } from './header.js';
export { answerToHello, type HelloAnswer } from './hello.js';
export {
  decodeCapabilities,
  decodeError,
  decodeMessage,
  decodeNotifyOwner,
  decodeRouterIdUpdate,
  decodeVrfAdd,
  writeCapabilities,
  writeHello,
  writeNotifyOwner,
  writeRouteNotifyRequest,
  writeRouterIdAdd,
  type ZapiCapabilities,
  type ZapiHello,
  type ZapiMessage,
  type ZapiNotifyOwner,
  type ZapiRouterId,
  type ZapiVrfAdd,
} from './messages.js';
export {
  decodeRoute,
  type NexthopTypeCode,
  routeMessageBits,
  writeRouteAdd,
  writeRouteDelete,
  type ZapiNexthop,
  type ZapiRoute,
} from './route-message.js';
export {
  type ZebraRouteEvent,
  type ZebraRouteState,
  type ZebraStatus,
  ZebraTarget,
  type ZebraTargetInit,
} from './target.js';
