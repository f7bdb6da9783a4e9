import type { FsmAction, FsmConfig, FsmEvent, FsmState, State, Timer } from '../../../src/bgp/fsm/index.js';
import { resolveFsmConfig, TIMERS } from '../../../src/bgp/fsm/index.js';

/** Timer values picked so that every number in an expected action is distinguishable. */
export const TEST_CONFIG: Partial<FsmConfig> = {
  connectRetryTime: 120,
  holdTime: 90,
  delayOpenTime: 7,
  idleHoldTime: 5,
  maxIdleHoldTime: 40,
  dampResetTime: 300,
};

const EXPIRY: Partial<Record<FsmEvent['type'], Timer>> = {
  ConnectRetryTimer_Expires: 'connect-retry',
  HoldTimer_Expires: 'hold',
  KeepaliveTimer_Expires: 'keepalive',
  DelayOpenTimer_Expires: 'delay-open',
  IdleHoldTimer_Expires: 'idle-hold',
  DampResetTimer_Expires: 'damp-reset',
};

/** The timer an event reports as fired, written here independently of the source's map. */
export function expiredBy(e: FsmEvent): Timer | undefined {
  return EXPIRY[e.type];
}

/**
 * What a shell would have running after carrying out `actions` in response to `e`: the timer
 * that fired is gone, starts add, stops remove. Throws on a stop for a timer that is not running.
 */
export function simulateTimers(
  before: ReadonlySet<Timer>,
  e: FsmEvent,
  actions: readonly FsmAction[],
): Set<Timer> {
  const running = new Set(before);
  const fired = expiredBy(e);
  if (fired) running.delete(fired);
  for (const a of actions) {
    if (a.type === 'start-timer') running.add(a.timer);
    if (a.type === 'stop-timer') {
      if (!running.has(a.timer)) throw new Error(`stop-timer ${a.timer} while it is not running`);
      running.delete(a.timer);
    }
  }
  return running;
}

export function timerSet(s: FsmState): Set<Timer> {
  return new Set(TIMERS.filter((t) => s.timers[t]));
}

export interface Fixture {
  readonly state: State;
  readonly config?: Partial<FsmConfig>;
  readonly running?: readonly Timer[];
  readonly passive?: boolean;
  readonly connectRetryCounter?: number;
  readonly dampingLevel?: number;
  readonly negotiated?: FsmState['negotiated'];
}

/** An FSM state built directly, for cells that need a given timer or setting. */
export function fixture(f: Fixture): FsmState {
  const timers = Object.fromEntries(TIMERS.map((t) => [t, f.running?.includes(t) ?? false])) as Record<
    Timer,
    boolean
  >;
  return {
    state: f.state,
    config: resolveFsmConfig({ ...TEST_CONFIG, ...f.config }),
    connectRetryCounter: f.connectRetryCounter ?? 0,
    negotiated: f.negotiated ?? null,
    dampingLevel: f.dampingLevel ?? 0,
    passive: f.passive ?? false,
    timers,
  };
}

export const start = (timer: Timer, seconds: number, jitter = false): FsmAction => ({
  type: 'start-timer',
  timer,
  seconds,
  jitter,
});
export const stop = (timer: Timer): FsmAction => ({ type: 'stop-timer', timer });
export const types = (actions: readonly FsmAction[]) => actions.map((a) => a.type);
