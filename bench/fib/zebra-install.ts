/**
 * ZebraTarget throughput against a real FRR 8.4 zebra: how fast routes are encoded, written,
 * acknowledged as INSTALLED (ROUTE_NOTIFY_OWNER), replayed after a zebra restart, and withdrawn.
 *
 *   sudo npx tsx bench/fib/zebra-install.ts [--v4 50000] [--v6 50000]
 *
 * Builds its own two namespaces (obs-zb-bench-*) and zebra, and removes them at the end.
 */
import { Afi, Writer } from '../../src/bgp/wire/index.js';
import type { FibRoute } from '../../src/fib/index.js';
import {
  FRR_8_4,
  toZapiRoute,
  writeRouteAdd,
  ZEBRA_DEFAULTS,
  ZebraTarget,
} from '../../src/fib/zebra/index.js';
import { RibPrefix } from '../../src/rib/index.js';
import { LAB_NH4, LAB_NH6, waitUntil, ZebraLab } from '../../test/support/zebra-lab.js';
import { machineLine, rate, table } from '../support/report.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}
const V4 = Math.min(arg('v4', 50_000), 65_536);
const V6 = arg('v6', 50_000);
const WAIT = arg('wait', 120_000);

/** /32s from 198.19.0.0/16, /64s from 2001:db8:1000::/36, half of them ECMP over two next hops. */
function routes(): FibRoute[] {
  const out: FibRoute[] = [];
  const base4 = (198 << 24) | (19 << 16);
  for (let i = 0; i < V4; i++) {
    const hops = i % 2 ? [LAB_NH4[0], LAB_NH4[1]] : [LAB_NH4[0]];
    out.push({
      prefix: new RibPrefix(Afi.IPV4, 32, (base4 + i) >>> 0),
      nextHops: hops.map((address) => ({ address, afi: Afi.IPV4 })),
    });
  }
  for (let i = 0; i < V6; i++) {
    const hops = i % 2 ? [LAB_NH6[0], LAB_NH6[1]] : [LAB_NH6[0]];
    out.push({
      prefix: new RibPrefix(Afi.IPV6, 64, 0x20010db8, 0x10000000 + i),
      nextHops: hops.map((address) => ({ address, afi: Afi.IPV6 })),
    });
  }
  return out;
}

async function kernelCount(lab: ZebraLab): Promise<number> {
  return (await lab.kernelRoutes(false, 'bgp')).length + (await lab.kernelRoutes(true, 'bgp')).length;
}

async function main(): Promise<void> {
  if (process.getuid?.() !== 0) throw new Error('needs root (namespaces, zebra as user frr)');
  console.log(`machine: ${machineLine()}`);
  const all = routes();
  const n = all.length;
  const rows: string[][] = [['step', 'routes', 'time', 'routes/s']];
  const row = (step: string, ms: number) =>
    rows.push([step, String(n), `${ms.toFixed(0)} ms`, rate((n / ms) * 1000)]);

  // Pure encode, no socket: the cost our side adds per route.
  const owner = { ...ZEBRA_DEFAULTS, routeType: FRR_8_4.routeType.BGP, allowRecursion: false };
  let t = performance.now();
  const w = new Writer(n * 48);
  for (const r of all) writeRouteAdd(w, FRR_8_4, toZapiRoute(r, owner, 256));
  row(`encode ROUTE_ADD (${(w.pos / n).toFixed(0)} B/route)`, performance.now() - t);

  const lab = await ZebraLab.create('bench');
  const target = new ZebraTarget({ socket: lab.socket, reconnectInitialMs: 50, reconnectMaxMs: 400 });
  try {
    await lab.startZebra();
    target.start();
    await target.ready(10_000);

    t = performance.now();
    await target.apply(all.map((route) => ({ kind: 'add' as const, route })));
    row('apply() resolved (written to the socket)', performance.now() - t);
    await waitUntil('all INSTALLED', () => (target.status().installed === n ? true : undefined), WAIT, 20);
    row('all INSTALLED (NOTIFY_OWNER)', performance.now() - t);
    await waitUntil(
      'kernel has all',
      async () => ((await kernelCount(lab)) === n ? true : undefined),
      WAIT,
      250,
    );
    row('all in the kernel (ip route poll, 250 ms)', performance.now() - t);

    await lab.stopZebra('SIGTERM');
    await waitUntil('loss seen', () => (target.status().connected ? undefined : true), WAIT, 5);
    t = performance.now();
    await lab.startZebra();
    const startMs = performance.now() - t;
    await target.ready(WAIT);
    await waitUntil('replay INSTALLED', () => (target.status().installed === n ? true : undefined), WAIT, 20);
    row(`zebra restart -> all INSTALLED again (zebra start ${startMs.toFixed(0)} ms)`, performance.now() - t);

    t = performance.now();
    await target.reconcile([]);
    await waitUntil(
      'kernel empty',
      async () => ((await kernelCount(lab)) === 0 ? true : undefined),
      WAIT,
      250,
    ).catch(async (err) => {
      const left = [...(await lab.kernelRoutes(false, 'bgp')), ...(await lab.kernelRoutes(true, 'bgp'))];
      const rib = Object.entries(await lab.zebraRoutes()).filter(([, e]) =>
        e.some((x) => x.protocol === 'bgp'),
      );
      console.log(`left in the kernel: ${left.length}, e.g. ${JSON.stringify(left.slice(0, 2))}`);
      console.log(`bgp in zebra: ${rib.length}, e.g. ${JSON.stringify(rib.slice(0, 1))}`);
      console.log(JSON.stringify(target.status()).slice(0, 500));
      throw err;
    });
    row('reconcile([]) -> kernel empty (poll, 250 ms)', performance.now() - t);
    console.log(`\n${table(rows)}`);
    console.log(`\nstatus: ${JSON.stringify({ ...target.status(), failed: target.status().failed.length })}`);
  } finally {
    await target.close();
    await lab.destroy();
  }
}

// The target's timers do not hold the process open (a speaker has its sessions for that): while
// it waits out a reconnect with no socket, nothing else would, and the bench would end silently.
const keepAlive = setInterval(() => {}, 60_000);
main()
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(() => clearInterval(keepAlive));
