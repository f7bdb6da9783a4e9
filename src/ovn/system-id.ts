import { type Clock, KindedError, type Logger } from '../components/index.js';
import { OvsdbClient, type TlsFiles } from '../ovsdb/index.js';
import { mapGet } from './rows.js';

/** Where ovs-vswitchd's database listens on a chassis (Debian's default). */
export const DEFAULT_OVS_REMOTE = 'unix:/var/run/openvswitch/db.sock';
const OVS_DATABASE = 'Open_vSwitch';
const LOOKUP_TIMEOUT_MS = 10_000;

/**
 * This chassis' name as ovn-controller registers it: `external_ids:system-id` of the local
 * Open_vSwitch row. Read once; rejects naming the remote when the database is unreachable
 * (OvsdbError) or the key is not set (kind `no-system-id`).
 */
export async function localSystemId(
  remote: string = DEFAULT_OVS_REMOTE,
  options: { tls?: TlsFiles; timeoutMs?: number; clock?: Clock; logger?: Logger } = {},
): Promise<string> {
  const client = new OvsdbClient(
    {
      remotes: remote,
      database: OVS_DATABASE,
      tables: { Open_vSwitch: { columns: ['external_ids'] } },
      leaderOnly: false,
      resume: false,
      ...(options.tls && { tls: options.tls }),
    },
    { ...(options.clock && { clock: options.clock }), ...(options.logger && { logger: options.logger }) },
  );
  client.start();
  try {
    await client.whenSynced(options.timeoutMs ?? LOOKUP_TIMEOUT_MS);
    for (const row of client.table('Open_vSwitch').values()) {
      const id = mapGet(row, 'external_ids', 'system-id');
      if (id) return id;
    }
    throw new KindedError('no-system-id', `${remote}: the Open_vSwitch row has no external_ids:system-id`);
  } finally {
    await client.close();
  }
}
