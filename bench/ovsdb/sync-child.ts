/**
 * One initial sync in a process of its own, so its memory is measured alone:
 * `node --import tsx bench/ovsdb/sync-child.ts <remote> <database>` prints one JSON line.
 */
import { OvsdbClient, OvsdbSession } from '../../src/ovsdb/index.js';

const [remote, database] = process.argv.slice(2);
if (!remote || !database) {
  process.stderr.write('usage: sync-child.ts <remote> <database>\n');
  process.exit(2);
}

// Every table of the database, as the comparison (`ovsdb-client dump`/`monitor ALL`) does.
const probe = await OvsdbSession.open(remote);
const schema = await probe.getSchema(database);
probe.close();
const tables = Object.fromEntries([...schema.tables.keys()].map((t) => [t, {}]));

global.gc?.();
const rssBefore = process.memoryUsage().rss;
const start = process.hrtime.bigint();
const client = new OvsdbClient({ remotes: remote, database, tables, checkServer: true });
client.start();
await client.whenSynced(300_000);
const wallMs = Number(process.hrtime.bigint() - start) / 1e6;
let rows = 0;
for (const t of schema.tables.keys()) rows += client.table(t).size;
const usage = process.memoryUsage();
const result = {
  wallMs,
  rows,
  rssBeforeKb: Math.round(rssBefore / 1024),
  maxRssKb: process.resourceUsage().maxRSS,
  heapUsedKb: Math.round(usage.heapUsed / 1024),
};
await client.close();
process.stdout.write(`${JSON.stringify(result)}\n`);
