/** Sizes of the two IP families (RFC 791, RFC 4291) in the units this module works in. */

/** The IP version, as node:net and the kernel's AF_INET / AF_INET6 choice see it. */
export type IpFamily = 4 | 6;

export const IPV4_BITS = 32;
export const IPV6_BITS = 128;
export const IPV4_BYTES = 4;
export const IPV6_BYTES = 16;
/** An IPv6 address as u32 words, most significant first (the PrefixList and RibPrefix form). */
export const IPV6_WORDS = 4;
/** RFC 4291 section 2.2: eight 16-bit pieces. */
export const IPV6_GROUPS = 8;
export const WORD_BITS = 32;
export const U32_MAX = 0xffffffff;
export const MAX_OCTET = 255;
/** RFC 4291 section 2.5.5.2: ::ffff:0:0/96 carries an IPv4 address; its third word is 0x0000ffff. */
export const V4_MAPPED_WORD2 = 0x0000ffff;
/** The first 12 bytes of every IPv4-mapped IPv6 address. */
export const V4_MAPPED_PREFIX = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff] as const;
