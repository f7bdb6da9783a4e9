/**
 * Initial sync of a large OVN_Northbound: our client against `ovsdb-client dump` and
 * `ovsdb-client monitor ALL` on the same database, side by side, then the steady-state
 * apply rate of updates.
 *
 *   npx tsx bench/ovsdb/initial-sync.ts [--nat 50000] [--lsp 10000] [--runs 3]
 *
 * Starts its own ovsdb-server in a temp dir (unix socket only) and stops it by PID.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import {
  namedUuid,
  type Operation,
  OvsdbClient,
  OvsdbSession,
  prepareMonitor,
  Replica,
} from '../../src/ovsdb/index.js';
import { isAlive, NB_SCHEMA, OvsdbLab, run } from '../../test/support/ovsdb-lab.js';

const DB = 'OVN_Northbound';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}
const NATS = arg('nat', 50_000);
const LSPS = arg('lsp', 10_000);
const RUNS = arg('runs', 3);
const NATS_PER_ROUTER = 100;
const LSPS_PER_SWITCH = 100;
const ROWS_PER_TXN = 5000;
const UPDATE_TXNS = 20;
const ROWS_PER_UPDATE = 1000;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ip = (base: number, n: number) => `${base}.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
const mac = (n: number) =>
  `fa:16:3e:${((n >> 16) & 255).toString(16).padStart(2, '0')}:${((n >> 8) & 255).toString(16).padStart(2, '0')}:${(n & 255).toString(16).padStart(2, '0')}`;

/** Routers holding NATs (the FIPs of a cloud) and switches holding ports, in batches. */
async function populate(session: OvsdbSession): Promise<void> {
  const schema = await session.getSchema(DB);
  let ops: Operation[] = [];
  let rowsInTxn = 0;
  const flush = async () => {
    if (ops.length) await session.transact(schema, ops);
    ops = [];
    rowsInTxn = 0;
  };
  for (let r = 0; r * NATS_PER_ROUTER < NATS; r++) {
    const names: string[] = [];
    for (let k = 0; k < NATS_PER_ROUTER && r * NATS_PER_ROUTER + k < NATS; k++) {
      const n = r * NATS_PER_ROUTER + k;
      const name = `nat${n}`;
      names.push(name);
      const distributed = n % 2 === 0;
      ops.push({
        op: 'insert',
        table: 'NAT',
        uuidName: name,
        row: {
          type: 'dnat_and_snat',
          external_ip: ip(172, n + 1),
          logical_ip: ip(10, n + 1),
          logical_port: distributed ? `port-${n}` : null,
          external_mac: distributed ? mac(n) : null,
          external_ids: {
            'neutron:fip_id': `fip-${n}`,
            'neutron:revision_number': '1',
            'neutron:router_name': `router-${r}`,
          },
        },
      });
    }
    ops.push({
      op: 'insert',
      table: 'Logical_Router',
      row: {
        name: `router-${r}`,
        nat: names.map(namedUuid),
        external_ids: { 'neutron:router_name': `router-${r}` },
      },
    });
    rowsInTxn += names.length + 1;
    if (rowsInTxn >= ROWS_PER_TXN) await flush();
  }
  await flush();
  for (let s = 0; s * LSPS_PER_SWITCH < LSPS; s++) {
    const names: string[] = [];
    for (let k = 0; k < LSPS_PER_SWITCH && s * LSPS_PER_SWITCH + k < LSPS; k++) {
      const n = s * LSPS_PER_SWITCH + k;
      names.push(`lsp${n}`);
      ops.push({
        op: 'insert',
        table: 'Logical_Switch_Port',
        uuidName: `lsp${n}`,
        row: {
          name: `port-${n}`,
          addresses: [`${mac(n)} ${ip(10, n + 1)}`],
          port_security: [`${mac(n)} ${ip(10, n + 1)}`],
          external_ids: { 'neutron:device_owner': 'compute:nova', 'neutron:network_name': `net-${s}` },
          options: { 'requested-chassis': `hv${n % 50}` },
        },
      });
    }
    ops.push({
      op: 'insert',
      table: 'Logical_Switch',
      row: { name: `net-${s}`, ports: names.map(namedUuid) },
    });
    rowsInTxn += names.length + 1;
    if (rowsInTxn >= ROWS_PER_TXN) await flush();
  }
  await flush();
}

interface Sample {
  wallMs: number;
  peakRssKb: number;
  extra?: string;
}

async function ourClient(
  remote: string,
): Promise<Sample & { rows: number; growthKb: number; heapKb: number }> {
  const child = fileURLToPath(new URL('./sync-child.ts', import.meta.url));
  const out = await run(process.execPath, ['--import', 'tsx', '--expose-gc', child, remote, DB], 600_000);
  const r = JSON.parse(out.trim().split('\n').pop() as string);
  return {
    wallMs: r.wallMs,
    peakRssKb: r.maxRssKb,
    rows: r.rows,
    growthKb: r.maxRssKb - r.rssBeforeKb,
    heapKb: r.heapUsedKb,
  };
}

async function ovsdbClientDump(remote: string): Promise<Sample> {
  const start = process.hrtime.bigint();
  // GNU time prints the peak RSS (KiB) on stderr; stdout is thrown away, as a consumer would parse it.
  const out = await new Promise<string>((resolve, reject) => {
    const p = spawn(
      '/usr/bin/time',
      ['-f', '%M', 'ovsdb-client', 'dump', '-f', 'json', '--data=json', remote, DB],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let err = '';
    p.stderr.on('data', (d) => {
      err += d;
    });
    p.on('close', (code) => (code === 0 ? resolve(err) : reject(new Error(`dump exited ${code}: ${err}`))));
  });
  const wallMs = Number(process.hrtime.bigint() - start) / 1e6;
  return { wallMs, peakRssKb: Number(out.trim().split('\n').pop()) };
}

/** `ovsdb-client monitor ALL` prints one JSON line per non-empty table for the initial contents. */
async function ovsdbClientMonitor(remote: string, tablesWithRows: number): Promise<Sample> {
  const start = process.hrtime.bigint();
  const p = spawn('ovsdb-client', ['monitor', '-f', 'json', '--data=json', remote, DB, 'ALL'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const pid = p.pid as number;
  try {
    return await new Promise<Sample>((resolve, reject) => {
      let lines = 0;
      let partial = '';
      const timer = setTimeout(
        () => reject(new Error('ovsdb-client monitor: no initial contents in 300 s')),
        300_000,
      );
      p.stdout.on('data', (d: Buffer) => {
        const text = partial + d.toString();
        const parts = text.split('\n');
        partial = parts.pop() as string;
        lines += parts.length;
        if (lines >= tablesWithRows) {
          clearTimeout(timer);
          const wallMs = Number(process.hrtime.bigint() - start) / 1e6;
          const status = readFileSync(`/proc/${pid}/status`, 'utf8');
          const peakRssKb = Number(/^VmHWM:\s+(\d+)/m.exec(status)?.[1]);
          resolve({ wallMs, peakRssKb });
        }
      });
      p.on('error', reject);
    });
  } finally {
    if (isAlive(pid)) process.kill(pid, 'SIGTERM');
  }
}

/** Parse + apply of real update2 notifications captured from the server, in process, no I/O. */
async function applyRate(
  remote: string,
): Promise<{ rowsPerS: number; parsedRowsPerS: number; e2eRowsPerS: number }> {
  const session = await OvsdbSession.open(remote);
  const schema = await session.getSchema(DB);
  const prepared = prepareMonitor(schema, { NAT: {} });
  const captured: unknown[] = [];
  let initial: unknown;
  await session.monitorCond(
    DB,
    'capture',
    prepared.requests,
    (u) => captured.push(u.updates),
    (u) => {
      initial = u;
    },
  );
  // End to end: our client synced on NAT; a second session writes; time until all rows arrived.
  // Address rows by _uuid, as a real writer would (ovsdb-server looks those up directly).
  const uuidByIp = new Map<string, string>();
  for (const [uuid, row] of Object.entries(
    (initial as { NAT: Record<string, { initial: { external_ip: string } }> }).NAT,
  )) {
    uuidByIp.set(row.initial.external_ip, uuid);
  }
  const client = new OvsdbClient({ remotes: remote, database: DB, tables: { NAT: {} } }).start();
  await client.whenSynced(300_000);
  let changed = 0;
  // Each transaction touches distinct rows, so every update is one row change.
  const perTxn = Math.min(ROWS_PER_UPDATE, NATS);
  const total = UPDATE_TXNS * perTxn;
  const done = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`only ${changed} of ${total} row changes arrived in 300 s`)),
      300_000,
    );
    client.on('changes', (b) => {
      changed += b.changes.length;
      if (changed >= total) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  done.catch(() => {}); // awaited below; never an unhandled rejection while transacting
  const start = process.hrtime.bigint();
  for (let t = 0; t < UPDATE_TXNS; t++) {
    const first = t * perTxn;
    await session.transact(
      schema,
      Array.from({ length: perTxn }, (_, k): Operation => {
        const n = (first + k) % NATS;
        return {
          op: 'update',
          table: 'NAT',
          where: [['_uuid', '==', uuidByIp.get(ip(172, n + 1)) as string]],
          row: { external_ids: { 'neutron:fip_id': `fip-${n}`, 'neutron:revision_number': String(t + 2) } },
        };
      }),
    );
  }
  await done;
  const e2eSeconds = Number(process.hrtime.bigint() - start) / 1e9;
  await client.close();
  session.close();

  const rowsIn = (updates: unknown) => Object.keys((updates as { NAT?: object }).NAT ?? {}).length;
  const updateRows = captured.reduce<number>((n, u) => n + rowsIn(u), 0);
  const texts = captured.map((u) => JSON.stringify(u));
  let best = Number.POSITIVE_INFINITY;
  let bestParsed = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 5; i++) {
    const replica = new Replica(prepared.codecs);
    replica.resync(initial);
    const t0 = process.hrtime.bigint();
    for (const u of captured) replica.applyUpdate2(u);
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e9);
    const again = new Replica(prepared.codecs);
    again.resync(initial);
    const t1 = process.hrtime.bigint();
    for (const text of texts) again.applyUpdate2(JSON.parse(text));
    bestParsed = Math.min(bestParsed, Number(process.hrtime.bigint() - t1) / 1e9);
  }
  return {
    rowsPerS: updateRows / best,
    parsedRowsPerS: updateRows / bestParsed,
    e2eRowsPerS: total / e2eSeconds,
  };
}

const fmtMs = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`);
const fmtMb = (kb: number) => `${(kb / 1024).toFixed(0)} MiB`;
const fmtRate = (r: number) => `${Math.round(r).toLocaleString('en-US')} rows/s`;

// Ctrl-C or a kill still stops our ovsdb-server: exiting runs the lab's exit hook.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

const lab = OvsdbLab.create('ovsdb-bench-');
try {
  const nb = await lab.startServer('nb', await lab.createDb('nb', NB_SCHEMA));
  await run('ovn-nbctl', [`--db=${nb.unix}`, '--timeout=30', 'init']);
  const t0 = Date.now();
  const writer = await OvsdbSession.open(nb.unix);
  await populate(writer);
  writer.close();
  const dbBytes = readFileSync(nb.dbFile).length;
  console.log(
    `populated ${NATS} NAT + ${LSPS} Logical_Switch_Port rows in ${fmtMs(Date.now() - t0)} (db file ${fmtMb(dbBytes / 1024)})`,
  );

  const ours: Awaited<ReturnType<typeof ourClient>>[] = [];
  const dumps: Sample[] = [];
  const monitors: Sample[] = [];
  for (let i = 0; i < RUNS; i++) {
    const o = await ourClient(nb.unix);
    ours.push(o);
    dumps.push(await ovsdbClientDump(nb.unix));
    // NB_Global, NAT, Logical_Router, Logical_Switch, Logical_Switch_Port have rows.
    monitors.push(await ovsdbClientMonitor(nb.unix, 5));
  }
  const rate = await applyRate(nb.unix);

  const row = (name: string, s: Sample[], extra = '') => {
    const wall = median(s.map((x) => x.wallMs));
    const rss = median(s.map((x) => x.peakRssKb));
    return { name, wall, rss, extra };
  };
  const mine = row('ovn-bgp-speaker OvsdbClient (replica ready)', ours);
  const dump = row('ovsdb-client dump -f json', dumps);
  const mon = row('ovsdb-client monitor ALL -f json (initial printed)', monitors);
  const rowsSynced = ours[0].rows;
  console.log('');
  console.log(
    `Initial sync of ${DB}: ${rowsSynced.toLocaleString('en-US')} rows (${NATS} NAT, ${LSPS} LSP), unix socket, median of ${RUNS} run(s)`,
  );
  console.log(
    `machine: ${cpus().length} x ${cpus()[0]?.model.trim()}, ${fmtMb(totalmem() / 1024)} RAM, node ${process.version}`,
  );
  console.log('');
  console.log(
    '| client | wall time | peak RSS | wall vs dump | wall vs monitor | RSS vs dump | RSS vs monitor |',
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const r of [mine, dump, mon]) {
    console.log(
      `| ${r.name} | ${fmtMs(r.wall)} | ${fmtMb(r.rss)} | ${(r.wall / dump.wall).toFixed(2)}x | ${(r.wall / mon.wall).toFixed(2)}x | ${(r.rss / dump.rss).toFixed(2)}x | ${(r.rss / mon.rss).toFixed(2)}x |`,
    );
  }
  console.log('');
  console.log(
    `our RSS growth during the sync: ${fmtMb(median(ours.map((o) => o.growthKb)))} (node + tsx baseline included in peak RSS); JS heap after sync: ${fmtMb(median(ours.map((o) => o.heapKb)))}`,
  );
  console.log('');
  console.log('| steady state (NAT updates, 1000 rows per transaction) | rate |');
  console.log('|---|---|');
  console.log(`| replica apply of captured update2 (decoded JSON) | ${fmtRate(rate.rowsPerS)} |`);
  console.log(`| JSON.parse + replica apply | ${fmtRate(rate.parsedRowsPerS)} |`);
  console.log(
    `| end to end: transact by a 2nd session → change events (server-bound) | ${fmtRate(rate.e2eRowsPerS)} |`,
  );
} finally {
  await lab.close();
}
