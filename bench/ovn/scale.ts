/**
 * The speaker on a large OVN: the synthetic cloud of cloud.ts (default 50,000 FIPs, 2,000
 * routers, 1,000 chassis) written straight into NB and SB (no ovn-northd), then our speaker
 * (`dist/`, namespace ob-scl-spk) started against it with FRR 8.4 (ob-scl-frr) as its peer:
 *   - time from the speaker's start (and from its session with FRR) to every route at FRR
 *   - the speaker's resident memory then
 *   - one-FIP changes at that size next to the same on a cloud of 10 FIPs (must be within 2x),
 *     and on a middle cloud (default 10,000 FIPs, 400 routers, 200 chassis: a fifth of it)
 *
 *   sudo npx tsx bench/ovn/scale.ts [--fips 50000] [--routers 2000] [--chassis 1000]
 *                                   [--mid-fips 10000] [--mid-routers 400] [--mid-chassis 200]
 *                                   [--no-mid] [--samples 50] [--poll-ms 1] [--coalesce-ms N]
 *                                   [--profile DIR]
 *
 * A change is the transaction of one `ovn-nbctl lr-nat-add` (or lr-nat-del), no --wait (there is
 * no northd): timed from the commit (watch.ts) to FRR's table, and to the UPDATE on the veth
 * (capture.ts).
 */
import { join, resolve } from 'node:path';
import { namedUuid, type Operation, OvsdbClient } from '../../src/ovsdb/index.js';
import { loadLine, machineLine, percentile, table } from '../support/report.js';
import { firstAfter, WireCapture, wallOf } from './capture.js';
import { type CloudShape, expectedRoutes, fipsOf, ipText, routerName, vmName, writeCloud } from './cloud.js';
import { checkBuild, cpuMeter, cpuMs, LAB, OvnBenchLab } from './lab.js';
import { CommitWatch, received, watchRoute } from './watch.js';

function arg(name: string, fallback: number | undefined): number | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}
const LARGE: CloudShape = {
  fips: arg('fips', 50_000) as number,
  routers: arg('routers', 2000) as number,
  chassis: arg('chassis', 1000) as number,
};
const SMALL: CloudShape = { fips: 10, routers: 2, chassis: 4 };
/** A middle size, so that growth shows between two real clouds too, not only against a toy one. */
const MID: CloudShape | undefined = process.argv.includes('--no-mid')
  ? undefined
  : {
      fips: arg('mid-fips', 10_000) as number,
      routers: arg('mid-routers', 400) as number,
      chassis: arg('mid-chassis', 200) as number,
    };
const SAMPLES = Math.max(50, arg('samples', 50) as number);
const POLL_MS = arg('poll-ms', 1) as number;
const COALESCE_MS = arg('coalesce-ms', undefined);
/** --profile DIR: the speaker runs with --cpu-prof; its profile lands in DIR when it stops. */
const PROFILE = process.argv.includes('--profile')
  ? process.argv[process.argv.indexOf('--profile') + 1]
  : undefined;
const SAMPLE_MS = 10_000;
const SETTLE_MS = 30_000;
const SYNC_MS = 600_000;
/** Sample FIPs: 198.19.200.0/22, above the cloud's FIPs and below its chassis addresses. */
const sampleIp = (i: number) => ipText(((198 << 24) | (19 << 16) | (200 << 8)) + i);

interface Sample {
  readonly change: 'add' | 'del';
  readonly ip: string;
  readonly commitWall: number;
  readonly frrMs: number;
  wireMs: number;
}

interface Figures {
  readonly shape: CloudShape;
  readonly writeMs: number;
  readonly routes: number;
  /** Speaker process start → FRR's session Established, → every route at FRR. */
  readonly establishedMs: number;
  readonly allMs: number;
  readonly rssMiB: number;
  readonly hwmMiB: number;
  readonly cpu: Record<string, number>;
  /** Every route at FRR → the speaker idle (its garbage collector done with the initial load). */
  readonly settleMs: number;
  readonly samples: Sample[];
  /** The machine's load average once this size was measured (it is shared). */
  readonly load: string;
}

async function waitCount(lab: OvnBenchLab, want: number, timeoutMs: number): Promise<number> {
  const vty = await lab.vty();
  const end = performance.now() + timeoutMs;
  for (;;) {
    const n = await received(vty, LAB.speakerIp).catch(() => 0);
    const at = performance.now();
    if (n === want) return at;
    if (at > end)
      throw new Error(`FRR holds ${n} of ${want} routes after ${timeoutMs} ms\n${lab.speakerLog()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Waits (bounded) until the speaker uses under 5% of a core over half a second: single
 * changes are measured in steady state, not while the collector still works off the load.
 */
async function settle(pid: number): Promise<number> {
  const t0 = performance.now();
  let last = cpuMs(pid);
  while (performance.now() - t0 < SETTLE_MS) {
    await new Promise((r) => setTimeout(r, 500));
    const now = cpuMs(pid);
    if (now - last < 25) break;
    last = now;
  }
  return performance.now() - t0;
}

/**
 * One FIP per sample on a different router: even samples distributed (to the router's spare VM).
 * Each change is the transaction `ovn-nbctl lr-nat-add` / `lr-nat-del` commits (insert the NAT
 * and add it to the router's nat set; take it out of the set again), sent over one held NB
 * connection. ovn-nbctl itself would first download the whole of NB for every change: at
 * 50,000 FIPs seconds of ovsdb-server and ovn-nbctl CPU each time on this machine, past its
 * own --timeout under load, and all of it competing with the speaker being measured.
 */
async function changes(lab: OvnBenchLab, shape: CloudShape): Promise<Sample[]> {
  const vty = await lab.vty();
  const watch = await CommitWatch.start(lab.nb.unix);
  const nb = new OvsdbClient({
    remotes: lab.nb.unix,
    database: 'OVN_Northbound',
    tables: { Logical_Router: { columns: ['name'] } },
  }).start();
  const out: Sample[] = [];
  try {
    await nb.whenSynced(SYNC_MS);
    const routerUuid = new Map<string, string>();
    for (const row of nb.table('Logical_Router').values()) routerUuid.set(String(row.name), row._uuid);
    const natUuid = new Map<string, string>();
    for (const change of ['add', 'del'] as const) {
      for (let i = 0; i < SAMPLES; i++) {
        const r = (i * 7919) % shape.routers;
        const router = routerUuid.get(routerName(r));
        if (router === undefined) throw new Error(`no router ${routerName(r)} in NB`);
        const ip = sampleIp(i);
        const spare = vmName(r, Math.ceil(fipsOf(shape, r).count / 2));
        const mac = `fa:16:3e:ff:${(i >> 8).toString(16).padStart(2, '0')}:${(i & 255).toString(16).padStart(2, '0')}`;
        const onRouter = { op: 'mutate', table: 'Logical_Router', where: [['_uuid', '==', router]] } as const;
        const ops: Operation[] =
          change === 'del'
            ? [{ ...onRouter, mutations: [['nat', 'delete', [natUuid.get(ip) as string]]] }]
            : [
                {
                  op: 'insert',
                  table: 'NAT',
                  uuidName: 'fip',
                  row: {
                    type: 'dnat_and_snat',
                    external_ip: ip,
                    logical_ip: `198.19.1.${100 + (i >> 1)}`,
                    ...(i % 2 === 0 && { logical_port: spare, external_mac: mac }),
                  },
                },
                { ...onRouter, mutations: [['nat', 'insert', [namedUuid('fip')]]] },
              ];
        const { commit } = await watch.arm(ip, change === 'add' ? 'insert' : 'delete');
        const seen = watchRoute(vty, `${ip}/32`, change, SAMPLE_MS, POLL_MS);
        seen.catch(() => {});
        const done = await nb.transact(ops, { timeoutMs: SAMPLE_MS });
        if (change === 'add') natUuid.set(ip, done.uuids.get('fip') as string);
        const c = await commit;
        const s = await seen;
        out.push({ change, ip, commitWall: wallOf(c.at), frrMs: s.received - c.at, wireMs: Number.NaN });
      }
    }
  } finally {
    await Promise.allSettled([watch.close(), nb.close()]);
  }
  return out;
}

async function measure(tag: string, shape: CloudShape): Promise<Figures> {
  const lab = await OvnBenchLab.create({ tag, northd: false });
  let capture: WireCapture | undefined;
  try {
    let t = performance.now();
    await writeCloud(lab.nb.unix, lab.sb.unix, shape);
    const writeMs = performance.now() - t;
    const routes = expectedRoutes(shape);
    capture = await WireCapture.start(
      lab.speakerNs,
      lab.speakerIf,
      LAB.speakerIp,
      join(lab.dir, 'bgp.pcapng'),
      join(lab.dir, 'dumpcap.log'),
    );
    t = performance.now();
    await lab.startSpeaker({
      coalesceMs: COALESCE_MS,
      nodeOptions: PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${resolve(PROFILE)}`] : [],
    });
    const meter = cpuMeter(lab.processes());
    const establishedMs = (await lab.waitEstablished(SYNC_MS)) - t;
    const allMs = (await waitCount(lab, routes, SYNC_MS)) - t;
    const cpu = meter();
    const mem = lab.speakerMemory();
    const settleMs = await settle(lab.speakerPid as number);
    const samples = await changes(lab, shape);
    await capture.stop();
    const wire = await capture.updates();
    for (const s of samples) {
      const e = wire.get(s.ip);
      s.wireMs = firstAfter(s.change === 'add' ? e?.announced : e?.withdrawn, s.commitWall);
    }
    return {
      shape,
      writeMs,
      routes,
      establishedMs,
      allMs,
      rssMiB: mem.rssMiB,
      hwmMiB: mem.hwmMiB,
      cpu,
      settleMs,
      samples,
      load: loadLine(),
    };
  } finally {
    await capture?.stop().catch(() => undefined);
    await lab.destroy();
  }
}

const f = (ms: number) =>
  Number.isNaN(ms) ? '-' : ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(1)} ms`;

async function main(): Promise<void> {
  if (process.getuid?.() !== 0) throw new Error('needs root (namespaces, FRR as user frr)');
  checkBuild();
  console.log(`machine: ${machineLine()}; ${loadLine()}`);
  const name = (s: CloudShape) => `${s.fips} FIPs / ${s.routers} routers / ${s.chassis} chassis`;
  const lat = (x: Figures, change: Sample['change'], p: number, field: 'frrMs' | 'wireMs' = 'frrMs') =>
    percentile(
      x.samples
        .filter((s) => s.change === change)
        .map((s) => s[field])
        .filter(Number.isFinite),
      p,
    );
  // Each size's headline as soon as it is measured: a later size failing keeps the earlier ones.
  const measured = async (tag: string, shape: CloudShape) => {
    const x = await measure(tag, shape);
    console.log(
      `${name(shape)}: every route at FRR ${f(x.allMs)} after start, RSS ${x.rssMiB.toFixed(0)} MiB; one FIP added p50 ${f(lat(x, 'add', 50))} p99 ${f(lat(x, 'add', 99))}, removed p50 ${f(lat(x, 'del', 50))} p99 ${f(lat(x, 'del', 99))}; ${x.load}`,
    );
    return x;
  };
  const small = await measured('sml', SMALL);
  const mid = MID && (await measured('mid', MID));
  const large = await measured('scl', LARGE);
  const sizes = mid ? [small, mid, large] : [small, large];
  const rows: string[][] = [
    ['', ...sizes.map((x) => name(x.shape)), 'large / small', ...(mid ? [`large / ${mid.shape.fips}`] : [])],
  ];
  const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}x` : '-');
  const line = (label: string, get: (x: Figures) => number, fmt = f) =>
    rows.push([
      label,
      ...sizes.map((x) => fmt(get(x))),
      ratio(get(large), get(small)),
      ...(mid ? [ratio(get(large), get(mid))] : []),
    ]);
  const n = (v: number) => String(Math.round(v));
  line('routes at FRR', (x) => x.routes, n);
  line('NB+SB written (ovsdb transact)', (x) => x.writeMs);
  line('speaker start -> session Established', (x) => x.establishedMs);
  line('speaker start -> every route at FRR', (x) => x.allMs);
  line('session Established -> every route at FRR', (x) => x.allMs - x.establishedMs);
  line('  speaker CPU in that time', (x) => x.cpu.speaker);
  line('  bgpd CPU in that time', (x) => x.cpu.bgpd);
  line('  ovsdb-servers CPU in that time', (x) => x.cpu['ovsdb-server nb'] + x.cpu['ovsdb-server sb']);
  line(
    'speaker RSS then (MiB)',
    (x) => x.rssMiB,
    (v) => v.toFixed(0),
  );
  line(
    'speaker peak RSS (MiB)',
    (x) => x.hwmMiB,
    (v) => v.toFixed(0),
  );
  line('every route at FRR -> speaker idle again', (x) => x.settleMs);
  line('one FIP added -> FRR table, p50', (x) => lat(x, 'add', 50));
  line('one FIP added -> FRR table, p99', (x) => lat(x, 'add', 99));
  line('one FIP removed -> gone from FRR, p50', (x) => lat(x, 'del', 50));
  line('one FIP removed -> gone from FRR, p99', (x) => lat(x, 'del', 99));
  line('one FIP added -> UPDATE on the wire, p50', (x) => lat(x, 'add', 50, 'wireMs'));
  line('one FIP added -> UPDATE on the wire, p99', (x) => lat(x, 'add', 99, 'wireMs'));
  console.log(
    `\n== ${name(LARGE)} against ${sizes
      .slice(0, -1)
      .map((x) => name(x.shape))
      .join(' and ')}: speaker start to FRR, memory, single changes (${SAMPLES} each) ==`,
  );
  console.log(
    `peer: FRR 8.4 bgpd (bgp no-rib); coalesce_ms ${COALESCE_MS ?? 20}; FRR read every ${POLL_MS} ms; no ovn-northd (NB+SB written directly)\n`,
  );
  console.log(table(rows));
  for (const x of sizes) console.log(`${name(x.shape)}: measured with ${x.load}`);
  if (process.argv.includes('--verbose'))
    for (const x of sizes)
      console.log(
        `${name(x.shape)}: ${x.samples.map((s) => `${s.change} ${s.frrMs.toFixed(0)}`).join(', ')}`,
      );
  for (const base of mid ? [small, mid] : [small]) {
    const r = lat(large, 'add', 50) / lat(base, 'add', 50);
    const r99 = lat(large, 'add', 99) / lat(base, 'add', 99);
    console.log(
      `${base === small ? '\n' : ''}target: one-FIP latency at ${LARGE.fips} within 2x of at ${base.shape.fips}: ${r.toFixed(2)}x (p50; p99 ${r99.toFixed(2)}x), ${r <= 2 ? 'met' : 'NOT met'}`,
    );
  }
  console.log(`after: ${loadLine()}`);
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
