import type { Clock } from '../components/index.js';
import { BfdDefaults, BfdDiag, diagText, US_PER_MS } from './constants.js';
import { type ControlPacket, decodeControl, encodeControl } from './packet.js';
import {
  adminDown,
  type BfdAction,
  type BfdSession,
  controlPacket,
  createSession,
  detectionTimeUs,
  expire,
  jitteredIntervalUs,
  receive,
  type SessionTimers,
  type Step,
  setTimers,
  transmitting,
  txIntervalUs,
} from './session.js';
import type { BfdSessionSpec, BfdStatus, BfdTimersSpec, BfdTransition, FromWorker } from './types.js';

/** How the engine reaches the network: one sending socket per session, receive sockets shared. */
export interface BfdTransport {
  open(id: number, spec: BfdSessionSpec): void;
  send(id: number, bytes: Uint8Array): void;
  close(id: number): void;
}

export interface BfdEngineComponents {
  /** Monotonic ms for the protocol timers. */
  readonly clock: Clock;
  /** Wall-clock ms for the times an operator reads. */
  readonly wallClock: () => number;
  readonly random: () => number;
  readonly transport: BfdTransport;
  readonly report: (message: FromWorker) => void;
}

/** Where a packet came from and on which port kind it arrived. */
export interface Arrival {
  readonly address: string;
  readonly multihop: boolean;
}

interface Entry {
  readonly id: number;
  readonly spec: BfdSessionSpec;
  session: BfdSession;
  txTimer: unknown;
  txDue: number;
  detectTimer: unknown;
  detectDue: number;
  lastRxAt: number;
  transitions: number;
  lastChangeAt: number;
  lastDownReason: string | null;
  reported: BfdStatus | null;
  /** Removed: AdminDown packets still to send before it goes. */
  farewell: number;
}

const U32 = 0x1_0000_0000;

function timersOf(t: BfdTimersSpec): SessionTimers {
  return { minTxUs: t.minTxMs * US_PER_MS, minRxUs: t.minRxMs * US_PER_MS, multiplier: t.multiplier };
}

function sameStatus(a: BfdStatus, b: BfdStatus): boolean {
  for (const k of Object.keys(a) as (keyof BfdStatus)[]) if (a[k] !== b[k]) return false;
  return true;
}

/**
 * The BFD shell without its sockets: every session's state (the pure core in session.ts), its
 * transmit and detection timers, demultiplexing of received packets (RFC 5880 6.8.6: by Your
 * Discriminator, else by the peer's address), and reports of state changes. The worker gives
 * it real sockets and timers; tests give it fakes.
 */
export class BfdEngine {
  readonly #c: BfdEngineComponents;
  readonly #byId = new Map<number, Entry>();
  readonly #byDiscr = new Map<number, Entry>();
  readonly #buffer = new Uint8Array(24);

  constructor(components: BfdEngineComponents) {
    this.#c = components;
  }

  get size(): number {
    return this.#byId.size;
  }

  add(id: number, spec: BfdSessionSpec): void {
    if (this.#byId.has(id)) this.#drop(this.#byId.get(id)!);
    const entry: Entry = {
      id,
      spec,
      session: createSession(this.#discriminator(), timersOf(spec)),
      txTimer: undefined,
      txDue: 0,
      detectTimer: undefined,
      detectDue: 0,
      lastRxAt: 0,
      transitions: 0,
      lastChangeAt: this.#c.wallClock(),
      lastDownReason: null,
      reported: null,
      farewell: 0,
    };
    this.#byId.set(id, entry);
    this.#byDiscr.set(entry.session.localDiscr, entry);
    this.#c.transport.open(id, spec);
    // The first packet soon, jittered, so sessions configured together do not send in step.
    this.#armTx(entry, this.#c.random() * (jitteredIntervalUs(entry.session, this.#c.random()) / US_PER_MS));
    this.#reportStatus(entry);
  }

  update(id: number, timers: BfdTimersSpec): void {
    const entry = this.#byId.get(id);
    if (!entry || entry.farewell > 0) return;
    this.#apply(entry, setTimers(entry.session, timersOf(timers)));
  }

  /**
   * The session goes: AdminDown (RFC 5880 6.8.16) for a few packets, so the peer takes it as
   * an administrative change and not as a failure of the path (RFC 5882 3.2), then it is gone.
   */
  remove(id: number): void {
    const entry = this.#byId.get(id);
    if (!entry || entry.farewell > 0) return;
    this.#apply(entry, adminDown(entry.session));
    if (entry.session.remoteDiscr === 0) {
      this.#drop(entry);
      return;
    }
    entry.farewell = BfdDefaults.ADMIN_DOWN_PACKETS;
    this.#clearTimer(entry, 'detect');
    this.#armTx(entry, 0);
  }

  /**
   * Stops every timer and forgets every session at once (the speaker stops). Each session the
   * peer knows sends one AdminDown first, so the peer's clients see no failure (RFC 5882 3.2):
   * a peer helping our graceful restart keeps our routes.
   */
  closeAll(): void {
    for (const entry of [...this.#byId.values()]) {
      if (entry.session.remoteDiscr !== 0) {
        entry.session = adminDown(entry.session).session;
        this.#send(entry, controlPacket(entry.session));
      }
      this.#drop(entry);
    }
  }

  /** A datagram from a receive socket. */
  receive(bytes: Uint8Array, from: Arrival): void {
    const decoded = decodeControl(bytes);
    if (!decoded.ok) {
      this.#c.report({
        type: 'log',
        level: 'debug',
        message: 'BFD packet discarded',
        fields: { from: from.address, kind: decoded.kind, reason: decoded.reason },
      });
      return;
    }
    const p = decoded.packet;
    const entry = this.#demultiplex(p, from);
    if (!entry || entry.farewell > 0) return;
    entry.lastRxAt = this.#c.clock.now();
    this.#apply(entry, receive(entry.session, p));
    this.#armDetect(entry);
  }

  /**
   * RFC 5880 6.8.6: a non-zero Your Discriminator selects the session; zero selects it by the
   * peer's address and the port it came to (RFC 5881 3: single hop; RFC 5883 3: multihop). A
   * session found by discriminator must still be the one with this peer on this port kind.
   */
  #demultiplex(p: ControlPacket, from: Arrival): Entry | undefined {
    if (p.yourDiscr !== 0) {
      const entry = this.#byDiscr.get(p.yourDiscr);
      if (entry && entry.spec.peer === from.address && entry.spec.multihop === from.multihop) return entry;
      return undefined;
    }
    for (const entry of this.#byId.values()) {
      if (entry.spec.peer === from.address && entry.spec.multihop === from.multihop) return entry;
    }
    return undefined;
  }

  #discriminator(): number {
    for (;;) {
      const d = Math.floor(this.#c.random() * (U32 - 1)) + 1;
      if (!this.#byDiscr.has(d)) return d;
    }
  }

  #apply(entry: Entry, step: Step): void {
    const before = entry.session;
    entry.session = step.session;
    for (const a of step.actions) this.#act(entry, a);
    // A shorter interval (Up, or a Poll Sequence that speeds us up) need not wait out a long wait.
    if (txIntervalUs(entry.session) !== txIntervalUs(before)) {
      const due = this.#c.clock.now() + jitteredIntervalUs(entry.session, this.#c.random()) / US_PER_MS;
      if (due < entry.txDue) this.#armTx(entry, due - this.#c.clock.now());
    }
    if (detectionTimeUs(entry.session) === 0) this.#clearTimer(entry, 'detect');
    this.#reportStatus(entry);
  }

  #act(entry: Entry, a: BfdAction): void {
    if (a.type === 'send-final') {
      this.#send(entry, controlPacket(entry.session, true));
      return;
    }
    entry.transitions++;
    entry.lastChangeAt = this.#c.wallClock();
    if (a.to === 'Down' && (a.from === 'Up' || a.from === 'Init')) {
      const remote = entry.session.remoteDiag;
      entry.lastDownReason =
        a.diag === BfdDiag.NEIGHBOR_SIGNALED_SESSION_DOWN && remote !== BfdDiag.NO_DIAGNOSTIC
          ? `${diagText(a.diag)} (${diagText(remote)})`
          : diagText(a.diag);
    }
    const transition: BfdTransition = {
      from: a.from,
      to: a.to,
      diag: a.diag,
      remoteAdminDown: a.remoteAdminDown,
      at: entry.lastChangeAt,
    };
    const status = this.#status(entry);
    entry.reported = status;
    this.#c.report({ type: 'transition', id: entry.id, transition, status });
  }

  #send(entry: Entry, p: ControlPacket): void {
    this.#c.transport.send(entry.id, encodeControl(p, this.#buffer));
  }

  #armTx(entry: Entry, ms: number): void {
    this.#clearTimer(entry, 'tx');
    entry.txDue = this.#c.clock.now() + ms;
    entry.txTimer = this.#c.clock.setTimeout(() => this.#txFired(entry), ms);
  }

  #txFired(entry: Entry): void {
    entry.txTimer = undefined;
    if (this.#byId.get(entry.id) !== entry) return;
    if (entry.farewell > 0) {
      this.#send(entry, controlPacket(entry.session));
      entry.farewell--;
      if (entry.farewell === 0) this.#drop(entry);
      else this.#armTx(entry, jitteredIntervalUs(entry.session, this.#c.random()) / US_PER_MS);
      return;
    }
    if (transmitting(entry.session)) this.#send(entry, controlPacket(entry.session));
    this.#armTx(entry, jitteredIntervalUs(entry.session, this.#c.random()) / US_PER_MS);
  }

  /**
   * One timer per session; a packet only moves the deadline the timer checks when it fires,
   * unless the Detection Time shrank below what the timer waits for (the peer went fast).
   */
  #armDetect(entry: Entry): void {
    const detectMs = detectionTimeUs(entry.session) / US_PER_MS;
    if (detectMs === 0) return;
    const due = entry.lastRxAt + detectMs;
    if (entry.detectTimer !== undefined && entry.detectDue <= due) return;
    this.#clearTimer(entry, 'detect');
    entry.detectDue = due;
    entry.detectTimer = this.#c.clock.setTimeout(() => this.#detectFired(entry), detectMs);
  }

  #detectFired(entry: Entry): void {
    entry.detectTimer = undefined;
    if (this.#byId.get(entry.id) !== entry || entry.farewell > 0) return;
    const detectMs = detectionTimeUs(entry.session) / US_PER_MS;
    if (detectMs === 0) return;
    const left = entry.lastRxAt + detectMs - this.#c.clock.now();
    if (left > 0) {
      entry.detectDue = this.#c.clock.now() + left;
      entry.detectTimer = this.#c.clock.setTimeout(() => this.#detectFired(entry), left);
      return;
    }
    this.#apply(entry, expire(entry.session));
  }

  #clearTimer(entry: Entry, which: 'tx' | 'detect'): void {
    const handle = which === 'tx' ? entry.txTimer : entry.detectTimer;
    if (handle !== undefined) this.#c.clock.clearTimeout(handle);
    if (which === 'tx') entry.txTimer = undefined;
    else entry.detectTimer = undefined;
  }

  #drop(entry: Entry): void {
    this.#clearTimer(entry, 'tx');
    this.#clearTimer(entry, 'detect');
    this.#byId.delete(entry.id);
    this.#byDiscr.delete(entry.session.localDiscr);
    this.#c.transport.close(entry.id);
  }

  #status(entry: Entry): BfdStatus {
    const s = entry.session;
    return {
      state: s.state,
      remoteState: s.remoteState,
      localDiscr: s.localDiscr,
      remoteDiscr: s.remoteDiscr,
      localDiag: s.localDiag,
      remoteDiag: s.remoteDiag,
      multihop: entry.spec.multihop,
      txIntervalMs: txIntervalUs(s) / US_PER_MS,
      detectionTimeMs: detectionTimeUs(s) / US_PER_MS,
      remoteMinRxMs: s.remoteDetectMult === 0 ? 0 : s.remoteMinRxUs / US_PER_MS,
      remoteMinTxMs: s.remoteDesiredMinTxUs / US_PER_MS,
      remoteMultiplier: s.remoteDetectMult,
      remoteControlPlaneIndependent: s.remoteControlPlaneIndependent,
      polling: s.poll !== null,
      transitions: entry.transitions,
      lastChangeAt: entry.lastChangeAt,
      lastDownReason: entry.lastDownReason,
    };
  }

  #reportStatus(entry: Entry): void {
    const status = this.#status(entry);
    if (entry.reported && sameStatus(entry.reported, status)) return;
    entry.reported = status;
    this.#c.report({ type: 'status', id: entry.id, status });
  }
}
