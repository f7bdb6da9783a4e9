import type { EncodeRequest } from './client.js';
import { NlmFlag, Rtn, RtScope } from './constants.js';
import type { RouteOp } from './plan.js';
import { writeDelRoute, writeNewRoute } from './route-message.js';

export interface RouteMark {
  readonly table: number;
  readonly protocol: number;
}

/** Flags of each write: a create never overwrites, a replace only at a key we hold. */
const CREATE = NlmFlag.CREATE | NlmFlag.EXCL;
const REPLACE = NlmFlag.CREATE | NlmFlag.REPLACE;

/** The encoder RtnlClient.send calls for op `i`: one RTM_NEWROUTE or RTM_DELROUTE each. */
export function encodeOps(ops: readonly RouteOp[], mark: RouteMark): EncodeRequest {
  return (w, i, seq, ack) => {
    const op = ops[i];
    if (op.kind === 'delete') {
      writeDelRoute(
        w,
        { prefix: op.prefix, table: mark.table, protocol: mark.protocol, priority: op.priority },
        ack,
        seq,
      );
      return;
    }
    const want = op.want;
    writeNewRoute(
      w,
      {
        prefix: want.prefix,
        table: mark.table,
        protocol: mark.protocol,
        scope: RtScope.UNIVERSE,
        type: Rtn.UNICAST,
        flags: 0,
        priority: want.priority,
        nexthops: want.set.nexthops,
      },
      { flags: (op.kind === 'create' ? CREATE : REPLACE) | ack, seq, nexthopAttrs: want.set.attrs },
    );
  };
}
