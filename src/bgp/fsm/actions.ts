/**
 * What the FSM asks its shell to do. Plain readonly objects, carried out in order by
 * `session.ts`; the FSM itself never touches a socket or a clock.
 */

/** Every timer the FSM runs. The shell owns the real timers and feeds back `*_Expires` events. */
export const TIMERS = [
  'connect-retry',
  'hold',
  'keepalive',
  'delay-open',
  'idle-hold',
  'damp-reset',
] as const;
export type Timer = (typeof TIMERS)[number];

export type FsmAction =
  /** Allocate per-peer BGP resources (RFC 4271 8.2.2 "initializes all BGP resources"); first action of every start from Idle. */
  | { readonly type: 'initialize-resources' }
  /** Free per-peer BGP resources (RFC 4271 8.2.2 "releases all BGP resources"); emitted on every entry to Idle. */
  | { readonly type: 'release-resources' }
  /** Open a TCP connection to the peer; keep accepting its incoming connections too. */
  | { readonly type: 'connect' }
  /** Close the current TCP connection after flushing queued messages (a pending NOTIFICATION); no-op when there is none. */
  | { readonly type: 'drop-connection' }
  /** Send our OPEN (the shell builds it from configuration and capabilities). */
  | { readonly type: 'send-open' }
  /** Send a KEEPALIVE. */
  | { readonly type: 'send-keepalive' }
  /**
   * Send a NOTIFICATION. Always followed by `drop-connection` in the same step.
   * `message` is the RFC 9003 Shutdown Communication, present only with Cease subcodes 2 and 4;
   * the encoder owns its length rule.
   */
  | {
      readonly type: 'send-notification';
      readonly code: number;
      readonly subcode: number;
      readonly data?: Uint8Array;
      readonly message?: string;
    }
  /**
   * (Re)start a timer for `seconds`. When `jitter` is true the shell applies RFC 4271
   * section 10 jitter (see `timerDurationMs`); the base value stays here so tests stay exact.
   */
  | {
      readonly type: 'start-timer';
      readonly timer: Timer;
      readonly seconds: number;
      readonly jitter: boolean;
    }
  /** Stop a running timer. Only emitted for a timer the FSM started and has not seen expire. */
  | { readonly type: 'stop-timer'; readonly timer: Timer }
  /** Hand the received UPDATE to the RIB (RFC 4271 section 9). */
  | { readonly type: 'process-update' }
  /** Answer the received ROUTE-REFRESH (RFC 2918 / RFC 7313). */
  | { readonly type: 'process-route-refresh' }
  /** The session reached Established: start advertising (emitted last in its step). */
  | { readonly type: 'established' }
  /** The session left Established: delete every route learned over it (RFC 4271 8.2.2). */
  | { readonly type: 'left-established' };

export type FsmActionType = FsmAction['type'];
export type StartTimerAction = Extract<FsmAction, { type: 'start-timer' }>;
export type SendNotificationAction = Extract<FsmAction, { type: 'send-notification' }>;
