/**
 * Defaults of the session shell. Protocol timers (hold 90 s, keepalive 30 s, connect retry
 * 120 s, idle hold) live with the FSM (`FsmDefaults`); these are the shell's own limits.
 */
export const SessionDefaults = {
  /**
   * Bytes the socket may hold unsent before `send`/`sendRaw` refuse more: a peer that stops
   * reading must not make us buffer a full table. 32 MiB is about a full IPv4 table packed.
   */
  MAX_WRITE_QUEUE_BYTES: 32 * 1024 * 1024,
  /** Below this many queued bytes, `drain()` resolves and `send` says "go on". */
  WRITE_LOW_WATER_BYTES: 1024 * 1024,
  /**
   * Received bytes one connection may hold unframed. Reading pauses while we are behind, so
   * the framer holds at most one message (65535 octets) and one socket read (64 KiB); more
   * means the reads did not stop, and the connection is closed (Cease, Out of Resources)
   * rather than let a peer grow our memory.
   */
  MAX_READ_BUFFER_BYTES: 1024 * 1024,
  /** Messages handled per event-loop turn before yielding (so timers and other peers run). */
  MESSAGES_PER_TURN: 512,
  /** Milliseconds of message handling per event-loop turn before yielding. */
  TURN_BUDGET_MS: 8,
  /** How long a closing socket may take to flush its last NOTIFICATION before it is destroyed. */
  CLOSE_LINGER_MS: 2_000,
} as const;

/** Family names as operators write them (GoBGP's spelling), with their RFC 4760 numbers. */
export const FAMILY = {
  'ipv4-unicast': { afi: 1, safi: 1 },
  'ipv6-unicast': { afi: 2, safi: 1 },
} as const;
export type FamilyName = keyof typeof FAMILY;
export const FAMILY_NAMES = Object.keys(FAMILY) as readonly FamilyName[];

/** The family name of an AFI/SAFI pair, or `afi/safi` for one we have no name for. */
export function familyName(afi: number, safi: number): string {
  for (const name of FAMILY_NAMES) {
    if (FAMILY[name].afi === afi && FAMILY[name].safi === safi) return name;
  }
  return `${afi}/${safi}`;
}
