import { judgeServer, type ServerView, serverView } from './cluster.js';
import { SERVER_COLUMNS, SERVER_DATABASE, SERVER_DATABASE_TABLE, ServerError } from './constants.js';
import { OvsdbError } from './errors.js';
import { rpcErrorName } from './jsonrpc.js';
import { prepareMonitor } from './monitor.js';
import { Replica } from './replica.js';
import type { DatabaseSchema } from './schema.js';
import type { OvsdbSession } from './session.js';

const SERVER_MONITOR_ID = 'server';

/** Carried from session to session: the cluster we belong to and how far it has got. */
export interface ClusterMemory {
  cid: string | null;
  minIndex: number;
}

/**
 * Monitors `_Server.Database` for `database` on a fresh session and throws 'server-unusable'
 * if we may not use that server (ovsdb-idl's check). The monitor stays open: when a later
 * update makes the server unusable (leadership lost, cluster link down) the throw inside the
 * notification closes the session with the reason, and the client moves on.
 */
export async function watchServer(
  session: OvsdbSession,
  database: string,
  leaderOnly: boolean,
  memory: ClusterMemory,
  timeoutMs: number,
): Promise<ServerView | undefined> {
  let serverSchema: DatabaseSchema;
  try {
    serverSchema = await session.getSchema(SERVER_DATABASE, timeoutMs);
  } catch (err) {
    // Servers older than OVS 2.9 have no _Server database: nothing to check.
    if (err instanceof OvsdbError && rpcErrorName(err.data.error) === ServerError.UNKNOWN_DATABASE)
      return undefined;
    throw err;
  }
  const prepared = prepareMonitor(serverSchema, {
    [SERVER_DATABASE_TABLE]: { columns: [...SERVER_COLUMNS], where: [['name', '==', database]] },
  });
  const replica = new Replica(prepared.codecs);
  const verdictNow = (): ServerView | undefined => {
    const view = serverView(replica.table(SERVER_DATABASE_TABLE).values(), database);
    // A leader is current by definition; only other members can be behind what we have seen.
    const verdict = judgeServer(view, {
      leaderOnly,
      cid: memory.cid,
      minIndex: view?.leader ? 0 : memory.minIndex,
    });
    if (!verdict.usable) {
      throw new OvsdbError('server-unusable', `${session.remote.text}: ${verdict.reason}`, {
        remote: session.remote.text,
      });
    }
    if (view?.cid) memory.cid = view.cid;
    if (typeof view?.index === 'number') memory.minIndex = Math.max(memory.minIndex, view.index);
    return view;
  };
  return session.monitorCond(
    SERVER_DATABASE,
    SERVER_MONITOR_ID,
    prepared.requests,
    (update) => {
      replica.applyUpdate2(update.updates);
      verdictNow();
    },
    (initial) => {
      replica.resync(initial);
      return verdictNow();
    },
    timeoutMs,
  );
}
