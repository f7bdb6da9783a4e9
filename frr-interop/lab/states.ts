import type { BgpState } from './spec.js';

const BY_WORD: Readonly<Record<string, BgpState>> = {
  idle: 'Idle',
  connect: 'Connect',
  active: 'Active',
  opensent: 'OpenSent',
  openconfirm: 'OpenConfirm',
  established: 'Established',
};

/** gobgp's apipb.PeerState.SessionState enum (0 is UNKNOWN). */
const GOBGP_SESSION_STATES: readonly BgpState[] = [
  'Idle',
  'Idle',
  'Connect',
  'Active',
  'OpenSent',
  'OpenConfirm',
  'Established',
];

/**
 * Maps a daemon's state word onto the RFC 4271 §8.2.2 states: FRR "Idle (Admin)" and "Clearing",
 * BIRD "Down" and "Close", gobgp "BGP_FSM_ESTABLISHED", "ESTABLISHED" or 6. Anything else is Idle:
 * a session that is not in a known state is not up.
 */
export function normaliseState(raw: string | number | undefined): BgpState {
  if (typeof raw === 'number') return GOBGP_SESSION_STATES[raw] ?? 'Idle';
  if (raw === undefined) return 'Idle';
  const word = raw
    .trim()
    .split(/\s+/)[0]
    ?.replace(/^BGP_FSM_/i, '')
    .toLowerCase();
  return BY_WORD[word ?? ''] ?? 'Idle';
}
