import { BfdState, type BfdStateCode, Flag, PacketLayout } from './constants.js';

/** A BFD Control packet (RFC 5880 section 4.1); intervals in microseconds. */
export interface ControlPacket {
  readonly diag: number;
  readonly state: BfdStateCode;
  readonly poll: boolean;
  readonly final: boolean;
  /** C: the sender's BFD does not share fate with its control plane. */
  readonly controlPlaneIndependent: boolean;
  readonly authPresent: boolean;
  readonly demand: boolean;
  readonly multipoint: boolean;
  readonly detectMult: number;
  readonly myDiscr: number;
  readonly yourDiscr: number;
  readonly desiredMinTxUs: number;
  readonly requiredMinRxUs: number;
  readonly requiredMinEchoRxUs: number;
}

/** Why a received packet was dropped before any session saw it (RFC 5880 section 6.8.6). */
export type DiscardKind =
  | 'too-short'
  | 'bad-version'
  | 'bad-length'
  | 'zero-detect-mult'
  | 'multipoint'
  | 'zero-my-discriminator'
  | 'zero-your-discriminator'
  | 'authentication';

export type Decoded =
  | { readonly ok: true; readonly packet: ControlPacket }
  | { readonly ok: false; readonly kind: DiscardKind; readonly reason: string };

const discard = (kind: DiscardKind, reason: string): Decoded => ({ ok: false, kind, reason });

/**
 * Decodes a received Control packet and makes the checks of RFC 5880 section 6.8.6 that need
 * no session. Authentication is not supported, so a packet with the A bit is dropped (as the
 * section says for a session without bfd.AuthType).
 */
export function decodeControl(bytes: Uint8Array): Decoded {
  if (bytes.length < PacketLayout.LENGTH) return discard('too-short', `${bytes.length} bytes`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = bytes[PacketLayout.VERS_DIAG]! >> 5;
  // 6.8.6: "If the version number is not correct (1), the packet MUST be discarded."
  if (version !== PacketLayout.VERSION) return discard('bad-version', `version ${version}`);
  const flags = bytes[PacketLayout.FLAGS]!;
  const length = bytes[PacketLayout.LEN]!;
  const auth = (flags & Flag.AUTH_PRESENT) !== 0;
  // 6.8.6: Length less than 24 (26 with the A bit), or more than the payload: discard.
  if (length < (auth ? PacketLayout.MIN_LENGTH_AUTH : PacketLayout.LENGTH) || length > bytes.length) {
    return discard('bad-length', `Length ${length} in ${bytes.length} bytes`);
  }
  const packet: ControlPacket = {
    diag: bytes[PacketLayout.VERS_DIAG]! & 0x1f,
    state: (flags >> 6) as BfdStateCode,
    poll: (flags & Flag.POLL) !== 0,
    final: (flags & Flag.FINAL) !== 0,
    controlPlaneIndependent: (flags & Flag.CONTROL_PLANE_INDEPENDENT) !== 0,
    authPresent: auth,
    demand: (flags & Flag.DEMAND) !== 0,
    multipoint: (flags & Flag.MULTIPOINT) !== 0,
    detectMult: bytes[PacketLayout.DETECT_MULT]!,
    myDiscr: view.getUint32(PacketLayout.MY_DISCR),
    yourDiscr: view.getUint32(PacketLayout.YOUR_DISCR),
    desiredMinTxUs: view.getUint32(PacketLayout.DESIRED_MIN_TX),
    requiredMinRxUs: view.getUint32(PacketLayout.REQUIRED_MIN_RX),
    requiredMinEchoRxUs: view.getUint32(PacketLayout.REQUIRED_MIN_ECHO_RX),
  };
  if (packet.detectMult === 0) return discard('zero-detect-mult', 'Detect Mult 0');
  if (packet.multipoint) return discard('multipoint', 'M bit set');
  if (packet.myDiscr === 0) return discard('zero-my-discriminator', 'My Discriminator 0');
  // 6.8.6: Your Discriminator 0 is only valid while the sender is Down or AdminDown.
  if (packet.yourDiscr === 0 && packet.state !== BfdState.Down && packet.state !== BfdState.AdminDown) {
    return discard('zero-your-discriminator', `Your Discriminator 0 in state ${packet.state}`);
  }
  if (auth) return discard('authentication', 'A bit set: authentication is not configured');
  return { ok: true, packet };
}

/** Encodes a Control packet without authentication (24 bytes) into `out` (or a new buffer). */
export function encodeControl(
  p: ControlPacket,
  out: Uint8Array = new Uint8Array(PacketLayout.LENGTH),
): Uint8Array {
  const view = new DataView(out.buffer, out.byteOffset, PacketLayout.LENGTH);
  out[PacketLayout.VERS_DIAG] = (PacketLayout.VERSION << 5) | (p.diag & 0x1f);
  out[PacketLayout.FLAGS] =
    (p.state << 6) |
    (p.poll ? Flag.POLL : 0) |
    (p.final ? Flag.FINAL : 0) |
    (p.controlPlaneIndependent ? Flag.CONTROL_PLANE_INDEPENDENT : 0) |
    (p.authPresent ? Flag.AUTH_PRESENT : 0) |
    (p.demand ? Flag.DEMAND : 0) |
    (p.multipoint ? Flag.MULTIPOINT : 0);
  out[PacketLayout.DETECT_MULT] = p.detectMult;
  out[PacketLayout.LEN] = PacketLayout.LENGTH;
  view.setUint32(PacketLayout.MY_DISCR, p.myDiscr);
  view.setUint32(PacketLayout.YOUR_DISCR, p.yourDiscr);
  view.setUint32(PacketLayout.DESIRED_MIN_TX, p.desiredMinTxUs);
  view.setUint32(PacketLayout.REQUIRED_MIN_RX, p.requiredMinRxUs);
  view.setUint32(PacketLayout.REQUIRED_MIN_ECHO_RX, p.requiredMinEchoRxUs);
  return out;
}
