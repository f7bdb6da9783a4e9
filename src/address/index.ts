/**
 * IP addresses and prefixes, once for every layer: strict parsing with errors that say what is
 * wrong, RFC 5952 text, the byte form (sockets, next hops) and the u32-word form (PrefixList,
 * RibPrefix, policy lists), and prefix masking. It imports nothing else from src/.
 */
export {
  IPV4_BITS,
  IPV4_BYTES,
  IPV6_BITS,
  IPV6_BYTES,
  IPV6_WORDS,
  type IpFamily,
  WORD_BITS,
} from './constants.js';
export { AddressError, type AddressErrorKind } from './errors.js';
export {
  addressBytes,
  bytesToWords,
  bytesWord,
  formatAddress,
  formatIp,
  type IpAddress,
  ipProblem,
  isV4Mapped,
  normalizeAddress,
  parseIp,
  toV4Mapped,
  tryParseIp,
  unmapV4,
  wordsToBytes,
} from './ip.js';
export {
  addressBits,
  formatIpPrefix,
  type HostBits,
  type IpPrefix,
  maskIpv4,
  maskIpv6,
  maskWord,
  networkOf,
  type PrefixRules,
  parseIpPrefix,
  prefixContains,
  tryParseIpPrefix,
  wordMask,
} from './prefix.js';
export {
  formatIpv4,
  formatIpv6,
  formatWords,
  parseIpv4,
  parseIpv6,
  tryParseIpv4,
} from './words.js';
