/**
 * KernelTarget install and delete rates next to `ip -batch` doing the same, in the same run,
 * each in a namespace of its own made for it (fk-bench-*):
 *
 *   sudo npx tsx bench/fib/kernel.ts [--v4 100000] [--v4-big 1048576] [--v6 100000] [--runs 1]
 *
 * Routes are /32s (IPv4) and /64s (IPv6) from the lab ranges only, via a next hop on a veth.
 * 198.18.0.0/15 holds 131,072 /32s, so the million IPv4 routes go in 8 tables (1000-1007) of
 * 131,072 each, one KernelTarget per table; the smaller runs use table 1000. `ip -batch` gets
 * one `route add ... table T proto 186 metric 20` line per route, then one `route del` per
 * route (not a flush: that would be one request for all). KernelTarget gets apply() calls of
 * 65,536 changes, the most SinkDriver hands it at once. Each side's count is checked after
 * installing and after deleting.
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../frr-interop/lab/index.js';
import { Afi } from '../../src/bgp/wire/index.js';
import type { FibChange, FibNextHop } from '../../src/fib/index.js';
import { KernelTarget } from '../../src/fib/kernel/index.js';
import { RibPrefix } from '../../src/rib/index.js';
import { KernelLab, KLAB_NH4, KLAB_NH6 } from '../../test/support/kernel-lab.js';
import { machineLine, median, rate, table } from '../support/report.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

const PROTO = 186;
const METRIC = 20;
const FIRST_TABLE = 1000;
const V4_PER_TABLE = 1 << 17; // the /32s of 198.18.0.0/15
const APPLY_CHUNK = 65_536;

interface Scenario {
  readonly name: string;
  readonly v6: boolean;
  readonly count: number;
}

/** Route i of a scenario: its prefix and table (IPv4 fills table after table). */
function routeAt(s: Scenario, i: number): { prefix: RibPrefix; table: number } {
  if (s.v6)
    return { prefix: new RibPrefix(Afi.IPV6, 64, 0x20010db8, 0x80000000 + i, 0, 0), table: FIRST_TABLE };
  return {
    // Words are unsigned, as the RIB hands them out (198 << 24 alone is negative in JS).
    prefix: new RibPrefix(Afi.IPV4, 32, (((198 << 24) | (18 << 16)) + (i % V4_PER_TABLE)) >>> 0),
    table: FIRST_TABLE + Math.floor(i / V4_PER_TABLE),
  };
}

function tablesOf(s: Scenario): number[] {
  const n = s.v6 ? 1 : Math.ceil(s.count / V4_PER_TABLE);
  return Array.from({ length: n }, (_, i) => FIRST_TABLE + i);
}

async function countOurs(lab: KernelLab, s: Scenario): Promise<number> {
  const out = await run(
    [
      'bash',
      '-c',
      `ip -n ${lab.ns} ${s.v6 ? '-6' : '-4'} route show table all proto ${PROTO} | grep -vc '^\\s'`,
    ],
    { timeoutMs: 600_000 },
  ).catch((e: Error) => (/exited 1/.test(e.message) ? '0' : Promise.reject(e)));
  return Number(out.trim());
}

interface Timing {
  readonly installMs: number;
  readonly deleteMs: number;
}

async function withLab<T>(tag: string, fn: (lab: KernelLab) => Promise<T>): Promise<T> {
  const lab = await KernelLab.create(tag);
  try {
    return await fn(lab);
  } finally {
    await lab.destroy();
  }
}

async function ipBatch(s: Scenario, runNo: number): Promise<Timing> {
  return withLab(`bench-ip${runNo}`, async (lab) => {
    const gw = s.v6 ? KLAB_NH6[0] : KLAB_NH4[0];
    const adds: string[] = [];
    const dels: string[] = [];
    for (let i = 0; i < s.count; i++) {
      const { prefix, table: t } = routeAt(s, i);
      const p = `${prefix.addr}/${prefix.len}`;
      adds.push(`route add ${p} via ${gw} dev ${lab.ifname} table ${t} proto ${PROTO} metric ${METRIC}`);
      dels.push(`route del ${p} table ${t} proto ${PROTO} metric ${METRIC}`);
    }
    const addFile = join(tmpdir(), `fk-bench-add-${process.pid}.txt`);
    const delFile = join(tmpdir(), `fk-bench-del-${process.pid}.txt`);
    writeFileSync(addFile, `${adds.join('\n')}\n`);
    writeFileSync(delFile, `${dels.join('\n')}\n`);
    let t = performance.now();
    await run(['ip', '-n', lab.ns, '-batch', addFile], { timeoutMs: 900_000 });
    const installMs = performance.now() - t;
    const installed = await countOurs(lab, s);
    if (installed !== s.count) throw new Error(`ip -batch installed ${installed} of ${s.count}`);
    t = performance.now();
    await run(['ip', '-n', lab.ns, '-batch', delFile], { timeoutMs: 900_000 });
    const deleteMs = performance.now() - t;
    const left = await countOurs(lab, s);
    if (left !== 0) throw new Error(`ip -batch left ${left}`);
    return { installMs, deleteMs };
  });
}

async function ours(s: Scenario, runNo: number): Promise<Timing & { status: string }> {
  return withLab(`bench-us${runNo}`, async (lab) => {
    lab.enter();
    const hop: readonly FibNextHop[] = [
      { address: s.v6 ? KLAB_NH6[0] : KLAB_NH4[0], afi: s.v6 ? Afi.IPV6 : Afi.IPV4 },
    ];
    const byTable = new Map<number, FibChange[]>();
    for (let i = 0; i < s.count; i++) {
      const { prefix, table: t } = routeAt(s, i);
      const list = byTable.get(t) ?? [];
      if (list.length === 0) byTable.set(t, list);
      list.push({ kind: 'add', route: { prefix, nextHops: hop } });
    }
    const targets = tablesOf(s).map(
      (t) => new KernelTarget({ table: t, metric: METRIC, protocol: PROTO, onStop: 'keep' }),
    );
    try {
      for (const target of targets) target.start();
      // The first apply dumps the (empty) table to learn what is ours: do it before the clock starts.
      for (const target of targets) await target.reconcile([]);
      const applyAll = async (make: (c: FibChange) => FibChange) => {
        for (const [k, target] of targets.entries()) {
          const changes = byTable.get(FIRST_TABLE + k)!.map(make);
          for (let i = 0; i < changes.length; i += APPLY_CHUNK)
            await target.apply(changes.slice(i, i + APPLY_CHUNK));
        }
      };
      let t = performance.now();
      await applyAll((c) => c);
      const installMs = performance.now() - t;
      const installed = await countOurs(lab, s);
      if (installed !== s.count) throw new Error(`KernelTarget installed ${installed} of ${s.count}`);
      t = performance.now();
      await applyAll((c) => ({ kind: 'withdraw', prefix: c.kind === 'add' ? c.route.prefix : c.prefix }));
      const deleteMs = performance.now() - t;
      const left = await countOurs(lab, s);
      if (left !== 0)
        throw new Error(
          `KernelTarget left ${left}: ${JSON.stringify(targets.map((x) => ({ ...x.status(), nextHops: undefined })))}`,
        );
      const st = targets[0].status();
      return {
        installMs,
        deleteMs,
        status: `window ${st.socket.batch}/${st.socket.maxInFlight}, ${st.socket.tuned.join(' ')}`,
      };
    } finally {
      for (const target of targets) await target.close();
      lab.leave();
    }
  });
}

async function main(): Promise<void> {
  if (process.getuid?.() !== 0) throw new Error('needs root (namespaces, netlink in them)');
  const runs = arg('runs', 1);
  const scenarios: Scenario[] = [
    { name: 'IPv4 /32', v6: false, count: arg('v4', 100_000) },
    { name: 'IPv4 /32 (131,072 per table)', v6: false, count: arg('v4-big', 8 * V4_PER_TABLE) },
    { name: 'IPv6 /64', v6: true, count: arg('v6', 100_000) },
  ].filter((s) => s.count > 0);
  console.log(`machine: ${machineLine()}; runs: ${runs} (median shown)`);
  const rows: string[][] = [
    ['routes', 'tool', 'install', 'routes/s', 'delete', 'routes/s', 'x ip (install / delete)'],
  ];
  const notes: string[] = [];
  for (const s of scenarios) {
    const ip: Timing[] = [];
    const us: Timing[] = [];
    for (let r = 0; r < runs; r++) {
      ip.push(await ipBatch(s, r));
      const o = await ours(s, r);
      us.push(o);
      if (r === 0) notes.push(`${s.name}: ${o.status}`);
    }
    const label = `${s.count.toLocaleString('en')} ${s.name}`;
    const m = (t: Timing[], k: keyof Timing) => median(t.map((x) => x[k]));
    const line = (tool: string, t: Timing[], ratio: string) => [
      label,
      tool,
      `${(m(t, 'installMs') / 1000).toFixed(2)} s`,
      rate((s.count / m(t, 'installMs')) * 1000),
      `${(m(t, 'deleteMs') / 1000).toFixed(2)} s`,
      rate((s.count / m(t, 'deleteMs')) * 1000),
      ratio,
    ];
    rows.push(line('ip -batch', ip, ''));
    rows.push(
      line(
        'KernelTarget',
        us,
        `${(m(ip, 'installMs') / m(us, 'installMs')).toFixed(1)} / ${(m(ip, 'deleteMs') / m(us, 'deleteMs')).toFixed(1)}`,
      ),
    );
    console.log(
      `done: ${rows
        .slice(-2)
        .map((r) => r.join(' | '))
        .join('\n      ')}`,
    );
  }
  console.log(`\n${table(rows)}\n`);
  for (const n of notes) console.log(n);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
