/**
 * RFC 4360 section 2 (and RFC 5701 section 2 for the IPv6 form): the T bit (0x40 of the high
 * type octet) set marks an extended community non-transitive across ASes; such communities are
 * not sent to eBGP peers (RFC 4360 section 6: "MUST NOT be propagated" outside the AS).
 */
const NON_TRANSITIVE = 0x40;

/** Sizes of one community: 8 octets (RFC 4360), 20 (RFC 5701 IPv6 address specific). */
export type ExtCommunityUnit = 8 | 20;

/**
 * The transitive communities of a list: the same array when all are (nothing allocated),
 * undefined when none are.
 */
export function transitiveOnly(list: Uint8Array | undefined, unit: ExtCommunityUnit): Uint8Array | undefined {
  if (list === undefined) return undefined;
  let keep = 0;
  for (let at = 0; at < list.length; at += unit) if ((list[at] & NON_TRANSITIVE) === 0) keep++;
  if (keep * unit === list.length) return list;
  if (keep === 0) return undefined;
  const out = new Uint8Array(keep * unit);
  let k = 0;
  for (let at = 0; at < list.length; at += unit) {
    if ((list[at] & NON_TRANSITIVE) !== 0) continue;
    out.set(list.subarray(at, at + unit), k);
    k += unit;
  }
  return out;
}
