import type { RibPrefix } from '../../rib/index.js';
import type { EncodeRequest } from './client.js';
import { NlmFlag } from './constants.js';
import type { RouteOp } from './plan.js';
import { writeDelRoute, writeUnicastRoute } from './route-message.js';

export interface RouteMark {
  readonly table: number;
  readonly protocol: number;
}

/** Flags of each write: a create never overwrites, a replace only at a key we hold. */
const CREATE = NlmFlag.CREATE | NlmFlag.EXCL;
const REPLACE = NlmFlag.CREATE | NlmFlag.REPLACE;

/** The encoder RtnlClient.send calls for op `i`: one RTM_NEWROUTE or RTM_DELROUTE each. */
export function encodeOps(ops: readonly RouteOp[], mark: RouteMark): EncodeRequest {
  // One key object, refilled per op: nothing is allocated per route.
  const key: { prefix: RibPrefix | undefined; table: number; protocol: number; priority: number } = {
    prefix: undefined,
    table: mark.table,
    protocol: mark.protocol,
    priority: 0,
  };
  return (w, i, seq, ack) => {
    const op = ops[i];
    if (op.kind === 'delete') {
      key.prefix = op.prefix;
      key.priority = op.priority;
      writeDelRoute(w, key as { prefix: RibPrefix } & typeof key, ack, seq);
      return;
    }
    key.prefix = op.want.prefix;
    key.priority = op.want.priority;
    writeUnicastRoute(
      w,
      key as { prefix: RibPrefix } & typeof key,
      op.want.set.attrs,
      (op.kind === 'create' ? CREATE : REPLACE) | ack,
      seq,
    );
  };
}
