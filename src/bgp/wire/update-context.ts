/*
 * What decoding and encoding an UPDATE need to know about the session. Types and one constant
 * only, importing nothing else from the codec: the attribute table, the next-hop checks and the
 * decoder all read them, and none of them may import another to get them.
 */

/** What decoding an attribute needs to know about the session. */
export interface AttrContext {
  /** RFC 6793: both sides sent the 4-octet AS capability, so AS_PATH/AGGREGATOR use 4-octet ASNs. */
  readonly as4: boolean;
  /** The peer is external: some attributes are discarded or malformed (RFC 7606 section 7). */
  readonly ebgp?: boolean;
}

/** What decoding an UPDATE needs from the session (see negotiate). */
export interface UpdateContext extends AttrContext {
  /** RFC 7911: we negotiated to receive path identifiers for IPv4 / IPv6 unicast. */
  readonly addPathIpv4: boolean;
  readonly addPathIpv6: boolean;
  /**
   * eBGP: LOCAL_PREF, ORIGINATOR_ID and CLUSTER_LIST are discarded (RFC 7606 sections 7.5, 7.9,
   * 7.10), confederation segments are malformed (7.2).
   */
  readonly ebgp: boolean;
  /**
   * The session's own address (4 or 16 bytes): a next hop equal to it is not accepted
   * (RFC 4271 section 6.3). Unknown before a connection exists.
   */
  readonly localAddress?: Uint8Array;
  /**
   * The session runs between IPv6 link-local addresses (an unnumbered link): only then is a
   * next hop with no global address usable, since the link names the interface.
   */
  readonly linkLocalSession?: boolean;
}

export const DEFAULT_UPDATE_CONTEXT: UpdateContext = {
  as4: true,
  addPathIpv4: false,
  addPathIpv6: false,
  ebgp: true,
};
