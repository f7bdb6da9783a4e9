/**
 * OvnDeriver alone, in this process: the synthetic cloud of cloud.ts in real ovsdb-servers,
 * replicated by OvsdbClient with the watcher's monitor (tables.ts), then
 *   load     derivation from scratch of the whole snapshot
 *   change   apply() of one FIP added (insert NAT + mutate Logical_Router.nat, the rows
 *            `ovn-nbctl lr-nat-add` writes), as the watcher's batch: its cost per change
 *   batch    apply() of 10,000 FIPs added to one router in one transaction
 * at a small and at the large size, side by side. No root, no namespaces, no BGP.
 *
 *   npx tsx bench/ovn/derive.ts [--fips 50000] [--routers 2000] [--chassis 1000] [--changes 50] [--batch 10000]
 */
import {
  DEFAULT_OVN_DERIVE_CONFIG,
  NB_DATABASE,
  NB_MONITOR,
  OvnDeriver,
  type OvnRowChange,
  SB_DATABASE,
  SB_MONITOR,
} from '../../src/ovn/index.js';
import { type ChangeBatch, namedUuid, OvsdbClient } from '../../src/ovsdb/index.js';
import { NB_SCHEMA, nbctl, OvsdbLab, SB_SCHEMA, sbctl } from '../../test/support/ovsdb-lab.js';
import { loadLine, machineLine, percentile, table } from '../support/report.js';
import { type CloudShape, fipAddress, fipsOf, routerName, vmName, writeCloud } from './cloud.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

const LARGE: CloudShape = {
  fips: arg('fips', 50_000),
  routers: arg('routers', 2000),
  chassis: arg('chassis', 1000),
};
const SMALL: CloudShape = { fips: 10, routers: 2, chassis: 4 };
const CHANGES = arg('changes', 50);
const BATCH = arg('batch', 10_000);
const WAIT_MS = 300_000;
/** The speaker's defaults (config/sections-ovn.ts): every kind on but tenant networks. */
const CONFIG = {
  ...DEFAULT_OVN_DERIVE_CONFIG,
  kinds: {
    ...DEFAULT_OVN_DERIVE_CONFIG.kinds,
    tenantNetworks: { ...DEFAULT_OVN_DERIVE_CONFIG.kinds.tenantNetworks, enabled: false },
  },
};

interface Figures {
  readonly shape: CloudShape;
  readonly writeMs: number;
  readonly syncMs: number;
  readonly loadMs: number;
  /** CPU time of the load (this process, all threads: GC included). */
  readonly loadCpuMs: number;
  readonly routes: number;
  readonly heapMiB: number;
  readonly changeMs: number[];
  readonly units: number[];
  /** apply() of BATCH FIPs added to one router in one transaction. */
  readonly batchMs: number;
  readonly batchCpuMs: number;
}

function batches(client: OvsdbClient, db: 'nb' | 'sb', into: (c: OvnRowChange[]) => void): () => void {
  return client.on('changes', (b: ChangeBatch) =>
    into(b.changes.map((c) => ({ db, table: c.table, uuid: c.uuid, old: c.old, new: c.new }))),
  );
}

async function measure(shape: CloudShape): Promise<Figures> {
  const lab = OvsdbLab.create('ob-derive-');
  try {
    const nbS = await lab.startServer('nb', await lab.createDb('nb', NB_SCHEMA));
    const sbS = await lab.startServer('sb', await lab.createDb('sb', SB_SCHEMA));
    await nbctl(nbS.unix, 'init');
    await sbctl(sbS.unix, 'init');
    let t = performance.now();
    await writeCloud(nbS.unix, sbS.unix, shape);
    const writeMs = performance.now() - t;

    t = performance.now();
    const nb = new OvsdbClient({ remotes: nbS.unix, database: NB_DATABASE, tables: NB_MONITOR }).start();
    const sb = new OvsdbClient({ remotes: sbS.unix, database: SB_DATABASE, tables: SB_MONITOR }).start();
    await Promise.all([nb.whenSynced(WAIT_MS), sb.whenSynced(WAIT_MS)]);
    const syncMs = performance.now() - t;

    const deriver = new OvnDeriver(CONFIG);
    const snap = (c: OvsdbClient, spec: object) =>
      Object.fromEntries(Object.keys(spec).map((n) => [n, c.table(n)]));
    globalThis.gc?.();
    const heap0 = process.memoryUsage().heapUsed;
    t = performance.now();
    const c0 = process.cpuUsage();
    deriver.load({ nb: snap(nb, NB_MONITOR), sb: snap(sb, SB_MONITOR) });
    const loadMs = performance.now() - t;
    const loadCpuMs = cpuSince(c0);
    globalThis.gc?.();
    const heapMiB = (process.memoryUsage().heapUsed - heap0) / 2 ** 20;
    const routes = deriver.advertisements.length;

    const changeMs: number[] = [];
    const units: number[] = [];
    let pending: ((ms: number) => void) | null = null;
    let lastCpuMs = 0;
    const apply = (changes: OvnRowChange[]) => {
      const t0 = performance.now();
      const c1 = process.cpuUsage();
      const diff = deriver.apply(changes);
      const ms = performance.now() - t0;
      lastCpuMs = cpuSince(c1);
      if (diff.announce.length > 0 && pending) {
        units.push(deriver.lastApply.units);
        pending(ms);
        pending = null;
      }
    };
    const offs = [batches(nb, 'nb', apply), batches(sb, 'sb', apply)];
    const spare = (r: number) => vmName(r, Math.ceil(fipsOf(shape, r).count / 2));
    for (let i = 0; i < CHANGES; i++) {
      const r = (i * 7919) % shape.routers;
      const distributed = i % 2 === 0;
      const ip = fipAddress(shape.fips + i);
      const got = new Promise<number>((resolve) => {
        pending = resolve;
      });
      const [router] = [...nb.table('Logical_Router').values()].filter((x) => x.name === routerName(r));
      await nb.transact([
        {
          op: 'insert',
          table: 'NAT',
          uuidName: 'fip',
          row: {
            type: 'dnat_and_snat',
            external_ip: ip,
            logical_ip: `198.19.0.${200 + (i % 50)}`,
            ...(distributed && { logical_port: spare(r), external_mac: 'fa:16:3e:00:ff:01' }),
          },
        },
        {
          op: 'mutate',
          table: 'Logical_Router',
          where: [['_uuid', '==', router._uuid]],
          mutations: [['nat', 'insert', [namedUuid('fip')]]],
        },
      ]);
      changeMs.push(await got);
    }
    // BATCH more on router 0 in one transaction, as `ovn-nbctl -- lr-nat-add … ×BATCH` writes them.
    const got = new Promise<number>((resolve) => {
      pending = resolve;
    });
    const [router0] = [...nb.table('Logical_Router').values()].filter((x) => x.name === routerName(0));
    await nb.transact(
      [
        ...Array.from({ length: BATCH }, (_, i) => ({
          op: 'insert' as const,
          table: 'NAT',
          uuidName: `b${i}`,
          row: {
            type: 'dnat_and_snat',
            external_ip: fipAddress(shape.fips + CHANGES + i),
            logical_ip: `198.19.1.${i & 255}`,
          },
        })),
        {
          op: 'mutate',
          table: 'Logical_Router',
          where: [['_uuid', '==', router0._uuid]],
          mutations: [['nat', 'insert', Array.from({ length: BATCH }, (_, i) => namedUuid(`b${i}`))]],
        },
      ],
      { timeoutMs: WAIT_MS },
    );
    const batchMs = await got;
    const batchCpuMs = lastCpuMs;
    for (const off of offs) off();
    await Promise.all([nb.close(), sb.close()]);
    return {
      shape,
      writeMs,
      syncMs,
      loadMs,
      loadCpuMs,
      routes,
      heapMiB,
      changeMs,
      units,
      batchMs,
      batchCpuMs,
    };
  } finally {
    await lab.close();
  }
}

const cpuSince = (c: NodeJS.CpuUsage): number => {
  const d = process.cpuUsage(c);
  return (d.user + d.system) / 1000;
};

const ms = (x: number) => (x >= 100 ? x.toFixed(0) : x.toFixed(2));

async function main(): Promise<void> {
  console.log(`machine: ${machineLine()}; ${loadLine()}`);
  const small = await measure(SMALL);
  const large = await measure(LARGE);
  const name = (s: CloudShape) => `${s.fips} FIPs, ${s.routers} routers, ${s.chassis} chassis`;
  console.log(`\n== OvnDeriver in process (${CHANGES} single-FIP changes per size) ==\n`);
  const rows = [['', name(SMALL), name(LARGE), 'ratio']];
  const line = (label: string, f: (x: Figures) => number, fmt = ms) =>
    rows.push([label, fmt(f(small)), fmt(f(large)), `${(f(large) / f(small)).toFixed(1)}x`]);
  line('routes derived', (x) => x.routes, String);
  line('write NB+SB (ms)', (x) => x.writeMs);
  line('OvsdbClient sync NB+SB (ms)', (x) => x.syncMs);
  line('load: derivation from scratch (ms)', (x) => x.loadMs);
  line('load: CPU (ms)', (x) => x.loadCpuMs);
  line(
    'heap held by the deriver (MiB)',
    (x) => x.heapMiB,
    (v) => v.toFixed(1),
  );
  line('one FIP added: apply() median (ms)', (x) => percentile(x.changeMs, 50));
  line('one FIP added: apply() p99 (ms)', (x) => percentile(x.changeMs, 99));
  line('units computed again per change (median)', (x) => percentile(x.units, 50), String);
  line(`${BATCH} FIPs added to one router in one txn: apply() (ms)`, (x) => x.batchMs);
  line(`${BATCH} FIPs added to one router in one txn: CPU (ms)`, (x) => x.batchCpuMs);
  console.log(table(rows));
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
