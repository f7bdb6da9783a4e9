/*
 * RFC 7854 messages as values: what the encoder takes and the decoder gives back.
 *
 *  Common Header (section 4.1)          Per-Peer Header (section 4.2)
 *   0 Version (3)                        0 Peer Type        1 Peer Flags (V L A)
 *   1 Message Length (4, whole msg)      2 Peer Distinguisher (8)
 *   5 Message Type (1)                  10 Peer Address (16; IPv4 in the last 4)
 *                                       26 Peer AS (4)     30 Peer BGP ID (4)
 *                                       34 Timestamp seconds (4)  38 microseconds (4)
 */

/** Section 4.2. `address` is RFC 5952 text; its family sets the V flag. */
export interface PerPeerHeader {
  readonly peerType: number;
  /** L and A (and any other flag but V, which the address decides). */
  readonly flags: number;
  readonly distinguisher: bigint;
  readonly address: string;
  readonly asn: number;
  /** BGP Identifier as a u32. */
  readonly bgpId: number;
  readonly seconds: number;
  readonly micros: number;
}

/** One Information TLV (Initiation, Termination, Peer Up). */
export interface InfoTlv {
  readonly type: number;
  readonly value: Uint8Array;
}

/** One Statistics Report entry: a counter or gauge, per AFI/SAFI for types 9 and 10. */
export type Stat =
  | { readonly type: number; readonly value: number; readonly afi?: undefined; readonly safi?: undefined }
  | { readonly type: number; readonly value: number; readonly afi: number; readonly safi: number }
  | { readonly type: number; readonly raw: Uint8Array };

export interface RouteMonitoring {
  readonly type: 'route-monitoring';
  readonly peer: PerPeerHeader;
  /** One whole BGP UPDATE, its 19-octet header included. */
  readonly update: Uint8Array;
}

export interface StatisticsReport {
  readonly type: 'statistics-report';
  readonly peer: PerPeerHeader;
  readonly stats: readonly Stat[];
}

export interface PeerDown {
  readonly type: 'peer-down';
  readonly peer: PerPeerHeader;
  readonly reason: number;
  /** Reasons 1 and 3: the NOTIFICATION (a whole BGP message); reason 2: the FSM event code (2 octets). */
  readonly data: Uint8Array;
}

export interface PeerUp {
  readonly type: 'peer-up';
  readonly peer: PerPeerHeader;
  /** The session's local end; the same family as the peer address (section 4.10). */
  readonly localAddress: string;
  readonly localPort: number;
  readonly remotePort: number;
  /** Whole BGP OPEN messages, header included. */
  readonly sentOpen: Uint8Array;
  readonly receivedOpen: Uint8Array;
  readonly info: readonly InfoTlv[];
}

export interface Initiation {
  readonly type: 'initiation';
  readonly info: readonly InfoTlv[];
}

export interface Termination {
  readonly type: 'termination';
  readonly info: readonly InfoTlv[];
}

export type BmpMessage = RouteMonitoring | StatisticsReport | PeerDown | PeerUp | Initiation | Termination;
