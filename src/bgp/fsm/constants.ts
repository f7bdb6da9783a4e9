/**
 * Timer values for the session FSM, in seconds. RFC 4271 section 10 suggests most of them;
 * where the RFC leaves a value open the comment says whose default we follow.
 */
export const FsmDefaults = {
  /** RFC 4271 section 10: suggested ConnectRetryTime. */
  connectRetryTime: 120,
  /** RFC 4271 section 10: suggested HoldTime. KeepaliveTime defaults to a third of it. */
  holdTime: 90,
  /** No RFC default; FRR's `timers delayopen` default. Used only when delayOpen is on. */
  delayOpenTime: 120,
  /** Wait in Idle before an automatic restart, before any back-off. */
  idleHoldTime: 5,
  /** Back-off cap for flapping peers; FRR caps its start timer at the same 120 s. */
  maxIdleHoldTime: 120,
  /**
   * How long a session must stay Established before its flaps are forgiven: the 5 minute
   * window of the RFC 4271 section 8.1.1 DampPeerOscillations example.
   */
  dampResetTime: 300,
  delayOpen: false,
  dampPeerOscillations: true,
  passive: false,
  allowAutomaticStart: true,
  /** RFC 4271 8.1.1 SendNOTIFICATIONwithoutOPEN: tell a peer why, even before our OPEN. */
  sendNotificationWithoutOpen: true,
} as const;

/** RFC 4271 section 8.2.2 / 10: the "large value" the HoldTimer gets while waiting for OPEN. */
export const LARGE_HOLD_TIME = 240;

/** RFC 4271 section 10: jitter multiplies a timer by a factor uniform in [0.75, 1.0]. */
export const JITTER_MIN_FACTOR = 0.75;
export const JITTER_MAX_FACTOR = 1;

/** RFC 4271 section 10: suggested MinASOriginationIntervalTimer. */
export const MIN_AS_ORIGINATION_INTERVAL = 15;
/** RFC 4271 section 10: suggested MinRouteAdvertisementIntervalTimer per peer kind. */
export const MIN_ROUTE_ADVERTISEMENT_INTERVAL = { EBGP: 30, IBGP: 5 } as const;

/** The damping level stops growing once the idle hold time has reached its cap. */
export const MAX_DAMPING_LEVEL = 16;
