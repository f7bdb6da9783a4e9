/** The BGP-4 message codec: the public surface of src/bgp/wire. */
export * from './attributes/as-path.js';
export * from './attributes/community-text.js';
export { AttrInterner, hashKey } from './attributes/interner.js';
export {
  ATTR_BY_CODE,
  ATTRS,
  type AttrDescriptor,
  type AttrExportContext,
  attributesLeavingAs,
  exportUnknown,
  formatAttribute,
  type OriginText,
  originText,
} from './attributes/table.js';
export * from './attributes/types.js';
export { WireAttributes } from './attributes/wire-attributes.js';
export * from './capabilities.js';
export * from './constants.js';
export * from './errors.js';
export { Framer } from './framer.js';
export * from './graceful-restart.js';
export { checkHeader } from './header.js';
export * from './keepalive.js';
export * from './message.js';
export * from './negotiate.js';
export * from './notification.js';
export * from './open.js';
export * from './prefix-list.js';
export { Reader } from './reader.js';
export * from './route-refresh.js';
export * from './update.js';
export { type AttrContext, DEFAULT_UPDATE_CONTEXT, type UpdateContext } from './update-context.js';
export { UpdateDecoder } from './update-decode.js';
export { type PreparedAttributes, restBytes, UpdatePacker } from './update-packer.js';
export { Writer } from './writer.js';
