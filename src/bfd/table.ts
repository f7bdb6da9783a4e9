import { BfdDiag, type BfdStateName } from './constants.js';

/**
 * RFC 5880 section 6.8.6, the state changes a received packet makes, as one constant table:
 * RECEIVE[our state][the packet's state] = where we go, and the diagnostic we set when we go
 * Down. AdminDown on our side takes nothing from the wire ("Discard the packet").
 *
 *                        +--+
 *                        |  | UP, ADMIN DOWN, TIMER
 *                        |  V
 *                DOWN  +------+  INIT
 *         +------------|      |------------+
 *         |            | DOWN |            |
 *         |  +-------->|      |<--------+  |
 *         |  |         +------+         |  |
 *         |  |                          |  |
 *         |  |               ADMIN DOWN,|  |
 *         |  |ADMIN DOWN,          DOWN,|  |
 *         |  |TIMER                TIMER|  |
 *         V  |                          |  V
 *       +------+                      +------+
 *  +----|      |                      |      |----+
 *  DOWN |      | INIT--------------------->|      | INIT, UP
 *  +--->| INIT |--------------------->|  UP  |<---+
 *       +------+         INIT, UP     +------+
 */
export interface ReceiveCell {
  readonly next: BfdStateName;
  /** Set as bfd.LocalDiag when the cell takes the session Down. */
  readonly diag?: number;
}

const stay = (next: BfdStateName): ReceiveCell => ({ next });
const down: ReceiveCell = { next: 'Down', diag: BfdDiag.NEIGHBOR_SIGNALED_SESSION_DOWN };

export const RECEIVE: Readonly<Record<BfdStateName, Readonly<Record<BfdStateName, ReceiveCell>>>> = {
  AdminDown: {
    AdminDown: stay('AdminDown'),
    Down: stay('AdminDown'),
    Init: stay('AdminDown'),
    Up: stay('AdminDown'),
  },
  Down: {
    // "If received state is AdminDown: if bfd.SessionState is not Down ...": already Down.
    AdminDown: stay('Down'),
    Down: stay('Init'),
    Init: stay('Up'),
    // The peer still thinks we are Up (we restarted, or it missed our Down): wait for its Down.
    Up: stay('Down'),
  },
  Init: {
    AdminDown: down,
    Down: stay('Init'),
    Init: stay('Up'),
    Up: stay('Up'),
  },
  Up: {
    AdminDown: down,
    Down: down,
    Init: stay('Up'),
    Up: stay('Up'),
  },
};
