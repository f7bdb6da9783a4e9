/**
 * KernelTableReader against the Linux kernel in a namespace of its own (fk-tr*): blackhole
 * routes that `ip route` adds, deletes and replaces in table N with protocol 84 (as
 * ovn-controller writes them) arrive and leave, each prefix with its metrics; other
 * protocols and other tables are not read; notifications really lost (a tiny monitor buffer,
 * the event loop held while `ip -batch` writes) are made good by a dump that reports only
 * what changed; 10,000 routes from one `ip -batch` arrive complete in tens of calls; a
 * queue of notifications is read in a few turns of the event loop; a switch to another table
 * reports the difference.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  KernelTableReader,
  type TableChange,
  type TableReaderInit,
  type TableRoute,
} from '../../src/fib/kernel/index.js';
import { KernelLab, KLAB_NH4, KLAB_NH6 } from '../support/kernel-lab.js';
import { waitUntil } from '../support/zebra-lab.js';

const OVN = 84;

let lab: KernelLab;
const readers: KernelTableReader[] = [];
const warnings: string[] = [];
const nothing = () => {};
const logger = {
  debug: nothing,
  info: nothing,
  error: nothing,
  warn: (_o: unknown, m?: string) => warnings.push(String(m)),
};

/** What a consumer holds after applying every call, and every change call it got. */
interface Consumer {
  readonly table: Map<string, readonly number[]>;
  readonly batches: (readonly TableChange[])[];
  /** Changes whose `before` was not what the consumer held (the reader swallows a handler's throw). */
  readonly mismatches: string[];
  synced: boolean;
}

async function reader(init: TableReaderInit): Promise<{ reader: KernelTableReader; seen: Consumer }> {
  const seen: Consumer = { table: new Map(), batches: [], mismatches: [], synced: false };
  const r = new KernelTableReader(
    init,
    {
      sync: (routes: readonly TableRoute[]) => {
        seen.synced = true;
        for (const x of routes) seen.table.set(x.prefix.toString(), x.metrics);
      },
      change: (changes) => {
        seen.batches.push(changes);
        for (const c of changes) {
          const p = c.prefix.toString();
          // Each change starts from what the consumer was last told.
          const had = (seen.table.get(p) ?? []).join(',');
          if (c.before.join(',') !== had)
            seen.mismatches.push(`${c.kind} ${p}: before [${c.before}], held [${had}]`);
          if (c.metrics.length === 0) seen.table.delete(p);
          else seen.table.set(p, c.metrics);
        }
      },
    },
    { logger },
  );
  readers.push(r);
  await r.start();
  return { reader: r, seen };
}

/** `ip route show table T proto 84`, both families: prefix → metrics, lowest first. */
async function inKernel(table: number): Promise<Record<string, number[]>> {
  const out: Record<string, number[]> = {};
  for (const v6 of [false, true])
    for (const r of await lab.routes(v6, table, OVN)) {
      const dst = r.dst.includes('/') ? r.dst : `${r.dst}/${v6 ? 128 : 32}`;
      // Two routes at one (prefix, metric) key are one metric of the prefix.
      if (!out[dst]?.includes(r.metric ?? 0)) out[dst] = [...(out[dst] ?? []), r.metric ?? 0];
    }
  for (const ms of Object.values(out)) ms.sort((a, b) => a - b);
  return out;
}

function held(seen: Consumer): Record<string, number[]> {
  return sortKeys(Object.fromEntries([...seen.table].map(([p, ms]) => [p, [...ms]])));
}

/** Waits until the consumer holds exactly what the kernel's table holds of protocol 84. */
async function inStep(seen: Consumer, table: number, what: string): Promise<Record<string, number[]>> {
  const k = await waitUntil(
    what,
    async () => {
      const k = await inKernel(table);
      return JSON.stringify(held(seen)) === JSON.stringify(sortKeys(k)) ? k : undefined;
    },
    10_000,
    20,
  );
  expect(seen.mismatches).toEqual([]);
  return k;
}

function sortKeys(o: Record<string, number[]>): Record<string, number[]> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1)));
}

beforeAll(async () => {
  lab = await KernelLab.create(`tr${(process.pid % 46656).toString(36)}`);
  lab.enter();
});

afterEach(async () => {
  for (const r of readers.splice(0)) await r.close();
});

afterAll(async () => {
  for (const r of readers) await r.close().catch(nothing);
  await lab?.destroy();
});

describe('KernelTableReader on the Linux kernel', () => {
  it('follows blackholes of protocol 84 in a table as ip route adds, deletes and replaces them', async () => {
    // Table 2: an id rtm_table holds (OVN's tunnel keys are small); the others below use RTA_TABLE.
    const T = 2;
    const { reader: r, seen } = await reader({ table: T });
    expect(seen.synced).toBe(true);
    expect(held(seen)).toEqual({});
    const t = ['table', String(T), 'proto', String(OVN)];

    await lab.ip(['route', 'add', 'blackhole', '198.18.171.10/32', ...t, 'metric', '100']);
    await lab.ip(['-6', 'route', 'add', 'blackhole', '2001:db8:171::/64', ...t, 'metric', '100']);
    await inStep(seen, T, 'two routes in');
    expect(held(seen)).toEqual({ '198.18.171.10/32': [100], '2001:db8:171::/64': [100] });

    // The prefix at two metrics at once, then moved to the other (as when the port moves).
    await lab.ip(['route', 'add', 'blackhole', '198.18.171.10/32', ...t, 'metric', '1000']);
    await inStep(seen, T, 'at 100 and 1000');
    expect(seen.table.get('198.18.171.10/32')).toEqual([100, 1000]);
    await lab.ip(['route', 'del', 'blackhole', '198.18.171.10/32', ...t, 'metric', '100']);
    await inStep(seen, T, 'at 1000 only');
    expect(seen.table.get('198.18.171.10/32')).toEqual([1000]);

    // Replaced by one of ours at the same key: still there, nothing to tell.
    const calls = seen.batches.length;
    await lab.ip(['route', 'replace', 'blackhole', '198.18.171.10/32', ...t, 'metric', '1000']);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(seen.batches.length).toBe(calls);

    // Replaced by another protocol's route at the key: ours is gone. The kernel says so with the
    // new route's NEWROUTE (REPLACE), which cannot say whose route it took: a dump tells.
    await lab.ip([
      'route',
      'replace',
      '198.18.171.10/32',
      'via',
      KLAB_NH4[0],
      'table',
      String(T),
      'proto',
      'bgp',
      'metric',
      '1000',
    ]);
    await lab.ip(['-6', 'route', 'del', 'blackhole', '2001:db8:171::/64', ...t, 'metric', '100']);
    await inStep(seen, T, 'both gone');
    expect(held(seen)).toEqual({});
    const told = seen.batches.flat().map((c) => `${c.kind} ${c.prefix}`);
    expect(told.slice(0, 4)).toEqual([
      'add 198.18.171.10/32',
      'add 2001:db8:171::/64',
      'replace 198.18.171.10/32',
      'replace 198.18.171.10/32',
    ]);
    // The IPv6 delete is told at once; the replace by bgp after a dump checked whose route it took.
    expect(told.slice(4).sort()).toEqual(['remove 198.18.171.10/32', 'remove 2001:db8:171::/64']);
    expect(r.status()).toMatchObject({ table: T, prefixes: 0, routes: 0, syncs: 2 });
    expect(r.status().lastSync?.reason).toBe('verify');
    expect(r.status().monitor.dropped).toBe(0);
  });

  it('a key holding more than one route of ours (IPv6 ECMP, IPv4 append) loses one without the prefix leaving', async () => {
    const T = 1007;
    const { reader: r, seen } = await reader({ table: T, resyncIntervalMs: 100 });
    const t = ['table', String(T), 'proto', String(OVN), 'metric', '100'];
    await lab.ip([
      '-6',
      'route',
      'add',
      '2001:db8:7::/64',
      ...t,
      'nexthop',
      'via',
      KLAB_NH6[0],
      'dev',
      lab.ifname,
      'nexthop',
      'via',
      KLAB_NH6[1],
      'dev',
      lab.ifname,
    ]);
    await lab.ip(['route', 'add', 'blackhole', '198.18.190.0/24', ...t]);
    await lab.ip(['route', 'append', 'unreachable', '198.18.190.0/24', ...t]);
    await inStep(seen, T, 'both keys in');
    // One next hop of the ECMP route, and the first of the two IPv4 routes, leave: the kernel
    // sends a DELROUTE for each, and the keys still hold a route of ours.
    await lab.ip(['-6', 'route', 'del', '2001:db8:7::/64', 'via', KLAB_NH6[0], 'dev', lab.ifname, ...t]);
    await lab.ip(['route', 'del', '198.18.190.0/24', ...t]);
    await waitUntil('a dump to check the keys', () =>
      r.status().lastSync?.reason === 'verify' ? true : undefined,
    );
    await inStep(seen, T, 'both keys still in');
    expect(held(seen)).toEqual({ '198.18.190.0/24': [100], '2001:db8:7::/64': [100] });
    expect(
      seen.batches
        .flat()
        .map((c) => `${c.kind} ${c.prefix}`)
        .sort(),
    ).toEqual(['add 198.18.190.0/24', 'add 2001:db8:7::/64']);
    // Each of the two deletes may ask for its own check: wait until no dump is due or running
    // (the count stays put for longer than the reader's pacing), then none more may come.
    let last = -1;
    const syncs = await waitUntil('the checking dumps done', async () => {
      const now = r.status().syncs;
      const settled = now === last && r.status().pending === 0;
      last = now;
      await new Promise((done) => setTimeout(done, 300));
      return settled ? now : undefined;
    });
    // One route left at each key: its delete is told at once.
    await lab.ip(['-6', 'route', 'del', '2001:db8:7::/64', ...t]);
    await lab.ip(['route', 'del', '198.18.190.0/24', ...t]);
    await inStep(seen, T, 'both keys gone');
    expect(held(seen)).toEqual({});
    expect(r.status().syncs).toBe(syncs);
  });

  it('reads only protocol 84 in its own table', async () => {
    const T = 1001;
    await lab.batch([
      `route add 198.18.172.0/24 via ${KLAB_NH4[0]} table ${T} proto bgp metric 100`,
      `route add blackhole 198.18.173.0/24 table ${T} proto static metric 100`,
      `route add blackhole 198.18.174.0/24 table ${T + 8} proto ${OVN} metric 100`,
      `route add blackhole 198.18.175.0/24 proto ${OVN} metric 100`,
    ]);
    const { seen } = await reader({ table: T });
    expect(held(seen)).toEqual({});
    await lab.batch([
      `route add 198.18.176.0/24 via ${KLAB_NH4[0]} table ${T} proto bgp metric 200`,
      `route add blackhole 198.18.177.0/24 table ${T + 8} proto ${OVN} metric 100`,
      `route add blackhole 198.18.178.0/24 table ${T} proto ${OVN} metric 100`,
    ]);
    // Alone: after the two adds above in one -batch, iproute2 6.1 got ESRCH for it (alone it deletes).
    await lab.ip(['route', 'del', '198.18.172.0/24', 'table', String(T), 'proto', 'bgp', 'metric', '100']);
    await inStep(seen, T, 'the one route of ours');
    expect(seen.batches.flat().map((c) => `${c.kind} ${c.prefix}`)).toEqual(['add 198.18.178.0/24']);
  });

  it('after notifications are lost, dumps again and reports only the prefixes that changed', async () => {
    const T = 1003;
    const before: string[] = [];
    for (let i = 0; i < 300; i++)
      before.push(
        `route add blackhole 198.19.1${(i >> 8) + 0}.${i & 255}/32 table ${T} proto ${OVN} metric 100`,
      );
    await lab.batch(before);
    // A monitor buffer of a few notifications: it overruns as soon as we stop reading.
    const { reader: r, seen } = await reader({
      table: T,
      monitorRecvBuffer: 4096,
      dropCheckMs: 20,
      resyncDelayMs: 10,
      resyncIntervalMs: 50,
    });
    expect(seen.table.size).toBe(300);
    const addr = (i: number) => `198.19.1${i >> 8}.${i & 255}/32`;
    const changed = new Set<string>();
    const lines: string[] = [];
    for (let i = 0; i < 100; i++) {
      lines.push(`route del blackhole ${addr(i)} table ${T} proto ${OVN} metric 100`);
      changed.add(addr(i));
    }
    for (let i = 100; i < 150; i++) {
      lines.push(`route del blackhole ${addr(i)} table ${T} proto ${OVN} metric 100`);
      lines.push(`route add blackhole ${addr(i)} table ${T} proto ${OVN} metric 1000`);
      changed.add(addr(i));
    }
    for (let i = 0; i < 500; i++) {
      const p = `198.19.20${i >> 8}.${i & 255}/32`;
      lines.push(`route add blackhole ${p} table ${T} proto ${OVN} metric 100`);
      changed.add(p);
    }
    // Our thread is held while ip writes them: the monitor's queue fills and the kernel drops the rest.
    const out = spawnSync('ip', ['-n', lab.ns, '-batch', '-'], { input: `${lines.join('\n')}\n` });
    expect(out.status).toBe(0);

    const k = await inStep(seen, T, 'the table made good after the loss');
    await waitUntil('the dump after the loss', () =>
      r.status().lastSync?.reason === 'lost' ? true : undefined,
    );
    expect(Object.keys(k)).toHaveLength(300 - 100 + 500);
    const st = r.status();
    expect(st.monitor.dropped).toBeGreaterThan(0);
    expect(st.syncs).toBeGreaterThanOrEqual(2);
    // Only what changed was reported: none of the 150 routes that stayed.
    const reported = new Set(seen.batches.flat().map((c) => c.prefix.toString()));
    for (const p of reported) expect(changed.has(p), p).toBe(true);
    for (let i = 150; i < 300; i++) expect(reported.has(addr(i)), addr(i)).toBe(false);
  });

  it('10,000 routes from one ip -batch arrive complete in tens of calls, and leave the same way', async () => {
    const T = 1004;
    const { reader: r, seen } = await reader({ table: T });
    const p = (i: number) => `198.19.${i >> 8}.${i & 255}/32`;
    const adds: string[] = [];
    const dels: string[] = [];
    for (let i = 0; i < 10_000; i++) {
      const metric = i % 3 === 0 ? 1000 : 100;
      adds.push(`route add blackhole ${p(i)} table ${T} proto ${OVN} metric ${metric}`);
      dels.push(`route del blackhole ${p(i)} table ${T} proto ${OVN} metric ${metric}`);
    }
    const t0 = performance.now();
    await lab.batch(adds);
    const ipIn = performance.now() - t0;
    await waitUntil('10,000 routes', () => (seen.table.size === 10_000 ? true : undefined), 30_000, 10);
    const tookIn = performance.now() - t0;
    const callsIn = seen.batches.length;
    expect(seen.table.get(p(3))).toEqual([1000]);
    expect(seen.table.get(p(9_998))).toEqual([100]);
    expect(Object.keys(await inKernel(T))).toHaveLength(10_000);
    // Complete from the notifications alone: no dump was needed.
    expect(r.status()).toMatchObject({ routes: 10_000, syncs: 1 });
    expect(r.status().monitor.dropped).toBe(0);

    const t1 = performance.now();
    await lab.batch(dels);
    const ipOut = performance.now() - t1;
    await waitUntil('all gone', () => (seen.table.size === 0 ? true : undefined), 30_000, 10);
    const tookOut = performance.now() - t1;
    const callsOut = seen.batches.length - callsIn;
    expect(seen.mismatches).toEqual([]);
    // One call per maxHoldMs (100) while ip writes, one more each time ip pauses past settleMs
    // (5; often on a loaded machine), and one for the tail: tens of calls, not one per route.
    expect(callsIn).toBeLessThan(100);
    expect(callsOut).toBeLessThan(100);
    console.log(
      `10,000 routes in: ip ${ipIn.toFixed(0)} ms, all read ${tookIn.toFixed(0)} ms, ${callsIn} calls; ` +
        `out: ip ${ipOut.toFixed(0)} ms, all read ${tookOut.toFixed(0)} ms, ${callsOut} calls`,
    );
  });

  it('notifications queued while the event loop was busy are read in a few turns of it, not 32 a turn', async () => {
    const T = 1009;
    const { reader: r } = await reader({ table: T });
    const n = 3_000;
    const lines = Array.from(
      { length: n },
      (_, i) => `route add blackhole 198.19.${i >> 8}.${i & 255}/32 table ${T} proto ${OVN} metric 100`,
    );
    const events = r.status().monitor.events;
    // Our thread is held while ip writes them: all n wait in the monitor's queue (64 MiB).
    const out = spawnSync('ip', ['-n', lab.ns, '-batch', '-'], { input: `${lines.join('\n')}\n` });
    expect(out.status).toBe(0);
    // Turns of the event loop (a setImmediate each) until the monitor has read them all: the
    // netlink add-on alone reads 32 per turn (94 turns here), so a process that turns its loop
    // less often than another writes routes falls behind the table.
    let turns = 0;
    while (r.status().monitor.events - events < n && turns < 1_000) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      turns++;
    }
    expect(r.status().monitor.events - events).toBe(n);
    expect(r.status().monitor.dropped).toBe(0);
    expect(turns).toBeLessThanOrEqual(3);
  });

  it('switches to another table and reports how it differs', async () => {
    const [A, B] = [1005, 1006];
    await lab.batch([
      `route add blackhole 198.18.180.0/24 table ${A} proto ${OVN} metric 100`,
      `route add blackhole 198.18.181.0/24 table ${A} proto ${OVN} metric 100`,
      `route add blackhole 198.18.181.0/24 table ${B} proto ${OVN} metric 100`,
      `route add blackhole 198.18.182.0/24 table ${B} proto ${OVN} metric 1000`,
    ]);
    const { reader: r, seen } = await reader({ table: A });
    await r.setTable(B);
    expect(
      seen.batches
        .flat()
        .map((c) => `${c.kind} ${c.prefix}`)
        .sort(),
    ).toEqual(['add 198.18.182.0/24', 'remove 198.18.180.0/24']);
    await lab.ip(['route', 'del', 'blackhole', '198.18.181.0/24', 'table', String(A), 'proto', String(OVN)]);
    await lab.ip(['route', 'add', 'blackhole', '198.18.183.0/24', 'table', String(B), 'proto', String(OVN)]);
    await inStep(seen, B, 'the new table followed');
    expect(held(seen)).toEqual({
      '198.18.181.0/24': [100],
      '198.18.182.0/24': [1000],
      '198.18.183.0/24': [0],
    });
    expect(r.status().table).toBe(B);
  });
});
