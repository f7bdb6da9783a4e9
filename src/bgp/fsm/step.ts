import type { FsmAction } from './actions.js';
import type { FsmEvent } from './events.js';
import { EXPIRED_TIMER } from './events.js';
import { Draft, HANDLERS } from './handlers.js';
import type { FsmState } from './states.js';
import { FSM, resolveCell } from './table.js';

export interface StepResult {
  readonly state: FsmState;
  /** To be carried out in order. */
  readonly actions: readonly FsmAction[];
}

/**
 * One RFC 4271 section 8 transition: looks the cell up in the table, runs its handler, and
 * returns the next state with the actions for the shell. Pure and total: it never throws and
 * never reads a clock; an event it does not know (from an untyped caller) changes nothing.
 */
export function step(s: FsmState, e: FsmEvent): StepResult {
  const row = s !== null && typeof s === 'object' && Object.hasOwn(FSM, s.state) ? FSM[s.state] : undefined;
  const cell =
    row !== undefined && e !== null && typeof e === 'object' && Object.hasOwn(row, e.type)
      ? row[e.type]
      : undefined;
  if (cell === undefined) return { state: s, actions: [] };
  const transition = resolveCell(cell, s, e);
  const draft = new Draft(s);
  // A timer that fired is no longer running, whatever the cell does next.
  const expired = EXPIRED_TIMER[e.type];
  if (expired !== undefined) draft.timers[expired] = false;
  HANDLERS[transition.do](draft, e);
  return { state: draft.finish(transition.next), actions: draft.actions };
}

/** Feeds several events in turn; handy for the shell's tests and for replaying a log. */
export function run(s: FsmState, events: readonly FsmEvent[]): StepResult {
  const actions: FsmAction[] = [];
  let state = s;
  for (const e of events) {
    const r = step(state, e);
    state = r.state;
    actions.push(...r.actions);
  }
  return { state, actions };
}
