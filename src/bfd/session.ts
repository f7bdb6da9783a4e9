import {
  BfdDiag,
  BfdState,
  type BfdStateName,
  Jitter,
  PacketLayout,
  SLOW_TX_US,
  STATE_NAMES,
} from './constants.js';
import type { ControlPacket } from './packet.js';
import { RECEIVE } from './table.js';

/**
 * One BFD session, pure: the state variables of RFC 5880 section 6.8.1 and the functions that
 * take it from one value to the next (a received packet, the Detection Time passing, an
 * administrative change, new timers). Time-free: the shell owns the timers and asks
 * `txIntervalUs` and `detectionTimeUs` when to fire them. Intervals are in microseconds, as
 * on the wire.
 */
export interface BfdSession {
  readonly state: BfdStateName;
  readonly remoteState: BfdStateName;
  readonly localDiscr: number;
  /** 0 until the peer is heard, and again after a Detection Time without its packets. */
  readonly remoteDiscr: number;
  readonly localDiag: number;
  /** The peer's Diag in its last packet. */
  readonly remoteDiag: number;
  /** What we advertise now: SLOW_TX_US while not Up (6.8.3), the configured value when Up. */
  readonly desiredMinTxUs: number;
  readonly requiredMinRxUs: number;
  readonly detectMult: number;
  /** The operator's values, which desiredMinTxUs takes once Up. */
  readonly configuredMinTxUs: number;
  readonly remoteMinRxUs: number;
  readonly remoteDesiredMinTxUs: number;
  /** 0 until a packet came: no Detection Time runs before the peer was heard (6.8.4). */
  readonly remoteDetectMult: number;
  readonly remoteDemand: boolean;
  /** The peer's C bit: its BFD does not share fate with its control plane (RFC 5880 4.1, RFC 5882 4.3). */
  readonly remoteControlPlaneIndependent: boolean;
  /**
   * A Poll Sequence runs (6.5, 6.8.3): the intervals in use before the change, which hold until
   * the peer's Final, in the direction that keeps either side from seeing a false failure.
   */
  readonly poll: { readonly txUs: number; readonly rxUs: number } | null;
}

export interface SessionTimers {
  readonly minTxUs: number;
  readonly minRxUs: number;
  readonly multiplier: number;
}

/** What the shell carries out after a step. */
export type BfdAction =
  /** 6.8.7: the answer to a Poll, at once and whatever the timers say. */
  | { readonly type: 'send-final' }
  | {
      readonly type: 'state-change';
      readonly from: BfdStateName;
      readonly to: BfdStateName;
      readonly diag: number;
      /** The peer told us it is AdminDown: RFC 5882 3.2, not a failure of the path. */
      readonly remoteAdminDown: boolean;
    };

export interface Step {
  readonly session: BfdSession;
  readonly actions: readonly BfdAction[];
}

/** A new session, Down, on the slow timers until Up (RFC 5880 6.8.1 initial values). */
export function createSession(localDiscr: number, timers: SessionTimers): BfdSession {
  return {
    state: 'Down',
    remoteState: 'Down',
    localDiscr,
    remoteDiscr: 0,
    localDiag: BfdDiag.NO_DIAGNOSTIC,
    remoteDiag: BfdDiag.NO_DIAGNOSTIC,
    desiredMinTxUs: Math.max(SLOW_TX_US, timers.minTxUs),
    requiredMinRxUs: timers.minRxUs,
    detectMult: timers.multiplier,
    configuredMinTxUs: timers.minTxUs,
    // 6.8.1: bfd.RemoteMinRxInterval is initialized to 1.
    remoteMinRxUs: 1,
    remoteDesiredMinTxUs: 0,
    remoteDetectMult: 0,
    remoteDemand: false,
    remoteControlPlaneIndependent: false,
    poll: null,
  };
}

/** The interval we transmit at (6.8.2, 6.8.3: an increase waits for the Poll's Final). */
export function txIntervalUs(s: BfdSession): number {
  const tx = s.poll ? Math.min(s.poll.txUs, s.desiredMinTxUs) : s.desiredMinTxUs;
  return Math.max(tx, s.remoteMinRxUs);
}

/**
 * The Detection Time of the peer's packets (6.8.4, asynchronous mode): its multiplier times
 * the larger of our Required Min RX and its Desired Min TX; 0 while the peer was never heard.
 * A reduction of our Required Min RX counts only after the Poll's Final (6.8.3).
 */
export function detectionTimeUs(s: BfdSession): number {
  if (s.remoteDetectMult === 0) return 0;
  const rx = s.poll ? Math.max(s.poll.rxUs, s.requiredMinRxUs) : s.requiredMinRxUs;
  return s.remoteDetectMult * Math.max(rx, s.remoteDesiredMinTxUs);
}

/** Whether periodic packets go out (6.8.7): not to a peer that wants none, nor in its Demand mode. */
export function transmitting(s: BfdSession): boolean {
  if (s.remoteMinRxUs === 0) return false;
  return !(s.remoteDemand && s.state === 'Up' && s.remoteState === 'Up');
}

/**
 * The wait before the next periodic packet, jittered (6.8.7): 75-100% of the interval, or
 * 75-90% with a Detect Mult of 1. `random` is in [0, 1).
 */
export function jitteredIntervalUs(s: BfdSession, random: number): number {
  const top = s.detectMult === 1 ? Jitter.MAX_MULT_ONE : Jitter.MAX;
  return Math.floor(txIntervalUs(s) * (Jitter.MIN + (top - Jitter.MIN) * random));
}

/** The packet we send now (6.8.7); `final` for the answer to a Poll, which never carries P. */
export function controlPacket(s: BfdSession, final = false): ControlPacket {
  return {
    diag: s.localDiag,
    state: BfdState[s.state],
    poll: !final && s.poll !== null,
    final,
    // We run in the same process as BGP: our BFD fails with our control plane.
    controlPlaneIndependent: false,
    authPresent: false,
    demand: false,
    multipoint: false,
    detectMult: s.detectMult,
    myDiscr: s.localDiscr,
    yourDiscr: s.remoteDiscr,
    desiredMinTxUs: s.desiredMinTxUs,
    requiredMinRxUs: s.requiredMinRxUs,
    // No Echo function.
    requiredMinEchoRxUs: 0,
  };
}

/** Advertised intervals change: a Poll Sequence while Up (6.8.3), at once otherwise. */
function withIntervals(s: BfdSession, desiredMinTxUs: number, requiredMinRxUs: number): BfdSession {
  if (desiredMinTxUs === s.desiredMinTxUs && requiredMinRxUs === s.requiredMinRxUs) return s;
  const poll = s.state === 'Up' ? (s.poll ?? { txUs: s.desiredMinTxUs, rxUs: s.requiredMinRxUs }) : null;
  return { ...s, desiredMinTxUs, requiredMinRxUs, poll };
}

/** Entering a state: Up takes the configured interval, leaving Up the slow one (6.8.3). */
function enter(s: BfdSession, next: BfdStateName, diag: number | undefined): BfdSession {
  if (next === s.state) return s;
  let out: BfdSession = { ...s, state: next, localDiag: diag ?? s.localDiag };
  if (next === 'Up') {
    out = { ...out, localDiag: BfdDiag.NO_DIAGNOSTIC };
    out = withIntervals(out, out.configuredMinTxUs, out.requiredMinRxUs);
  } else if (s.state === 'Up') {
    out = { ...out, poll: null, desiredMinTxUs: Math.max(SLOW_TX_US, out.configuredMinTxUs) };
  }
  return out;
}

function changed(before: BfdSession, after: BfdSession, remoteAdminDown: boolean): BfdAction[] {
  if (before.state === after.state) return [];
  return [
    { type: 'state-change', from: before.state, to: after.state, diag: after.localDiag, remoteAdminDown },
  ];
}

/**
 * A packet for this session (decodeControl passed it, the shell matched it by discriminator or
 * address): RFC 5880 section 6.8.6 from "Set bfd.RemoteDiscr" on.
 */
export function receive(s: BfdSession, p: ControlPacket): Step {
  const remoteState = STATE_NAMES[p.state]!;
  let next: BfdSession = {
    ...s,
    remoteDiscr: p.myDiscr,
    remoteState,
    remoteDiag: p.diag,
    remoteDemand: p.demand,
    remoteMinRxUs: p.requiredMinRxUs,
    remoteDesiredMinTxUs: p.desiredMinTxUs,
    remoteDetectMult: p.detectMult,
    remoteControlPlaneIndependent: p.controlPlaneIndependent,
    // "If a Poll Sequence is being transmitted ... and the Final (F) bit ... is set, the Poll
    // Sequence MUST be terminated."
    poll: p.final ? null : s.poll,
  };
  // "If bfd.SessionState is AdminDown: Discard the packet" (after taking in the peer's values).
  if (s.state === 'AdminDown') return { session: next, actions: [] };
  const cell = RECEIVE[s.state][remoteState];
  next = enter(next, cell.next, cell.diag);
  const actions: BfdAction[] = changed(s, next, remoteState === 'AdminDown');
  // "If the Poll (P) bit is set, send a BFD Control packet ... with the Final (F) bit set."
  if (p.poll) actions.push({ type: 'send-final' });
  return { session: next, actions };
}

/**
 * A Detection Time passed without a packet (6.8.4): Init and Up go Down with diagnostic 1,
 * and the peer's discriminator is forgotten (6.8.1 bfd.RemoteDiscr) with what it told us.
 */
export function expire(s: BfdSession): Step {
  const cleared: BfdSession = {
    ...s,
    remoteDiscr: 0,
    remoteState: 'Down',
    remoteDetectMult: 0,
    remoteDemand: false,
    remoteMinRxUs: 1,
  };
  const next =
    s.state === 'Init' || s.state === 'Up'
      ? enter(cleared, 'Down', BfdDiag.CONTROL_DETECTION_TIME_EXPIRED)
      : cleared;
  return { session: next, actions: changed(s, next, false) };
}

/** Administrative Control (6.8.16): AdminDown with diagnostic 7; the peer sees AdminDown packets. */
export function adminDown(s: BfdSession): Step {
  if (s.state === 'AdminDown') return { session: s, actions: [] };
  const next = enter(s, 'AdminDown', BfdDiag.ADMINISTRATIVELY_DOWN);
  return { session: next, actions: changed(s, next, false) };
}

/** Back from AdminDown: Down, the session starts over. */
export function adminUp(s: BfdSession): Step {
  if (s.state !== 'AdminDown') return { session: s, actions: [] };
  const next: BfdSession = { ...s, state: 'Down', localDiag: BfdDiag.NO_DIAGNOSTIC };
  return { session: next, actions: changed(s, next, false) };
}

/** New configured timers (a reload): a Poll Sequence when Up (6.8.3). */
export function setTimers(s: BfdSession, timers: SessionTimers): Step {
  const base: BfdSession = { ...s, configuredMinTxUs: timers.minTxUs, detectMult: timers.multiplier };
  const tx = s.state === 'Up' ? timers.minTxUs : Math.max(SLOW_TX_US, timers.minTxUs);
  return { session: withIntervals(base, tx, timers.minRxUs), actions: [] };
}

/** Bytes of a packet as sent; for callers that size buffers. */
export const CONTROL_LENGTH = PacketLayout.LENGTH;
