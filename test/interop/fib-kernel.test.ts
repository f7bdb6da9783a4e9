/**
 * KernelTarget against the Linux kernel in a namespace of its own (fk-it-*): what apply and
 * reconcile write is what `ip route show proto 186` shows, ECMP and IPv4 over an IPv6 next hop
 * included; routes of other protocols and static routes are never touched; a route of ours that
 * `ip route del` removes is put back; close flushes or keeps; and 100k routes of churn leave
 * the table exact.
 */
import { release } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Afi } from '../../src/bgp/wire/index.js';
import type { FibChange, FibRoute } from '../../src/fib/index.js';
import { KernelTarget, type KernelTargetInit } from '../../src/fib/kernel/index.js';
import { parsePrefix, RibPrefix } from '../../src/rib/index.js';
import { type IpRoute, KernelLab, KLAB_NH4 as NH4, KLAB_NH6 as NH6 } from '../support/kernel-lab.js';
import { waitUntil } from '../support/zebra-lab.js';

const PROTO = 186;
const IGP_NEXT_HOP = '198.18.99.1'; // behind 198.18.99.0/24 via NH4[1] (proto ospf): an iBGP next hop

function route(prefix: string, ...hops: string[]): FibRoute {
  return {
    prefix: parsePrefix(prefix),
    nextHops: hops.map((address) => ({ address, afi: address.includes(':') ? Afi.IPV6 : Afi.IPV4 })),
  };
}
const add = (r: FibRoute): FibChange => ({ kind: 'add', route: r });
const withdraw = (p: string): FibChange => ({ kind: 'withdraw', prefix: parsePrefix(p) });

/** "prefix -> gw,gw" as ip shows it: `via inet6 X` for RFC 8950, nexthops sorted for ECMP. */
function shown(r: IpRoute, v6: boolean): [string, string] {
  const dst = r.dst.includes('/') ? r.dst : `${r.dst}/${v6 ? 128 : 32}`;
  const hop = (h: { gateway?: string; via?: { host: string } }) =>
    h.via ? `inet6 ${h.via.host}` : (h.gateway ?? '-');
  const hops = r.nexthops ? r.nexthops.map(hop).sort() : [hop(r)];
  return [dst, hops.join(',')];
}

let lab: KernelLab;
const targets: KernelTarget[] = [];
const warnings: string[] = [];
const nothing = () => {};
const logger = {
  debug: nothing,
  info: nothing,
  error: nothing,
  warn: (_o: unknown, msg?: string) => warnings.push(String(msg)),
};

function target(init: Partial<KernelTargetInit> = {}): KernelTarget {
  const t = new KernelTarget(
    { table: 254, metric: 20, protocol: PROTO, onStop: 'flush', repairDelayMs: 20, ...init },
    { logger },
  );
  t.start();
  targets.push(t);
  return t;
}

async function ours(table: number | string = 254): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const v6 of [false, true])
    for (const r of await lab.routes(v6, table, PROTO)) out[shown(r, v6)[0]] = shown(r, v6)[1];
  return out;
}

beforeAll(async () => {
  lab = await KernelLab.create(`it${(process.pid % 46656).toString(36)}`);
  await lab.batch([
    `route add 198.18.99.0/24 via ${NH4[1]} proto ospf`,
    `route add 198.19.250.0/24 via ${NH4[0]} metric 20`,
    `route add 198.19.251.0/24 via ${NH4[0]} proto ospf metric 20`,
  ]);
  lab.enter();
});

afterAll(async () => {
  for (const t of targets) await t.close().catch(nothing);
  await lab?.destroy();
});

describe('apply', () => {
  it('adds and withdraws IPv4 and IPv6 routes, single and ECMP, as ip route shows them', async () => {
    const t = target();
    await t.apply([
      add(route('198.19.1.0/24', NH4[0])),
      add(route('198.19.2.0/24', NH4[0], NH4[1])),
      add(route('2001:db8:100::/48', NH6[0])),
      add(route('2001:db8:200::/48', NH6[0], NH6[1])),
    ]);
    expect(await ours()).toEqual({
      '198.19.1.0/24': NH4[0],
      '198.19.2.0/24': `${NH4[0]},${NH4[1]}`,
      '2001:db8:100::/48': NH6[0],
      '2001:db8:200::/48': `${NH6[0]},${NH6[1]}`,
    });
    const [r] = await lab.routes(false, 254, PROTO);
    expect(r).toMatchObject({ metric: 20, dev: lab.ifname });
    await t.apply([
      withdraw('198.19.1.0/24'),
      withdraw('2001:db8:200::/48'),
      add(route('198.19.2.0/24', NH4[1])),
      add(route('2001:db8:100::/48', NH6[0], NH6[1])),
    ]);
    expect(await ours()).toEqual({ '198.19.2.0/24': NH4[1], '2001:db8:100::/48': `${NH6[0]},${NH6[1]}` });
    await t.reconcile([]);
    expect(await ours()).toEqual({});
  });

  it('an IPv4 route over an IPv6 next hop (RFC 8950) installs with `via inet6`', async (ctx) => {
    const [major, minor] = release().split('.').map(Number);
    if (major < 5 || (major === 5 && minor < 2)) ctx.skip(); // RTA_VIA for IPv4 came in Linux 5.2
    const t = target();
    await t.apply([add(route('198.19.3.0/24', NH6[0])), add(route('198.19.4.0/24', NH6[1], NH4[0]))]);
    expect(await ours()).toMatchObject({
      '198.19.3.0/24': `inet6 ${NH6[0]}`,
      '198.19.4.0/24': `${NH4[0]},inet6 ${NH6[1]}`,
    });
    await t.reconcile([]);
  });

  it('an iBGP next hop behind an IGP route is installed via that route’s gateway', async () => {
    const t = target();
    await t.apply([add(route('198.19.5.0/24', IGP_NEXT_HOP)), add(route('198.19.6.0/24', '198.18.77.1'))]);
    expect(await ours()).toEqual({ '198.19.5.0/24': NH4[1] });
    expect(t.problemOf(parsePrefix('198.19.6.0/24'))?.reason).toMatch(/no route to 198.18.77.1/);
    // The IGP moves the next hop: the next reconcile resolves afresh.
    await lab.ip(['route', 'replace', '198.18.99.0/24', 'via', NH4[0], 'proto', 'ospf']);
    await t.reconcile([route('198.19.5.0/24', IGP_NEXT_HOP)]);
    expect(await ours()).toEqual({ '198.19.5.0/24': NH4[0] });
    await lab.ip(['route', 'replace', '198.18.99.0/24', 'via', NH4[1], 'proto', 'ospf']);
    await t.reconcile([]);
  });

  it('follows the IGP with no reconcile: the route to an iBGP next hop moves, a missing one appears', async () => {
    const t = target({ table: 1001 });
    await t.apply([add(route('198.19.7.0/24', IGP_NEXT_HOP)), add(route('198.19.8.0/24', '198.18.78.1'))]);
    expect(await ours(1001)).toEqual({ '198.19.7.0/24': NH4[1] });
    // ip route replace of the IGP route in main: our route in table 1001 follows it.
    await lab.ip(['route', 'replace', '198.18.99.0/24', 'via', NH4[0], 'proto', 'ospf']);
    await waitUntil('198.19.7.0/24 to follow', async () =>
      (await ours(1001))['198.19.7.0/24'] === NH4[0] ? true : undefined,
    );
    // A route to the next hop that had none: the failed route goes in.
    await lab.ip(['route', 'add', '198.18.78.0/24', 'via', NH4[1], 'proto', 'ospf']);
    await waitUntil('198.19.8.0/24 to go in', async () =>
      (await ours(1001))['198.19.8.0/24'] === NH4[1] ? true : undefined,
    );
    // The IGP route goes: so does the route over it, and it says why.
    await lab.ip(['route', 'del', '198.18.78.0/24']);
    await waitUntil('198.19.8.0/24 to go', async () =>
      (await ours(1001))['198.19.8.0/24'] === undefined ? true : undefined,
    );
    expect(t.problemOf(parsePrefix('198.19.8.0/24'))?.reason).toMatch(/no route to 198.18.78.1/);
    expect(t.status().nextHopsMoved).toBe(3);
    await lab.ip(['route', 'replace', '198.18.99.0/24', 'via', NH4[1], 'proto', 'ospf']);
    await t.reconcile([]);
  });

  it('a route in another table stays in that table', async () => {
    const t = target({ table: 1000 });
    await t.apply([add(route('198.19.7.0/24', NH4[0]))]);
    expect(await ours(1000)).toEqual({ '198.19.7.0/24': NH4[0] });
    expect(await ours(254)).toEqual({});
    await t.reconcile([]);
    expect(await ours(1000)).toEqual({});
  });
});

describe('reconcile', () => {
  it('deletes stale routes of ours, leaves static and other protocols alone, and a conflict unwritten', async () => {
    await lab.batch([
      `route add 198.19.10.0/24 via ${NH4[0]} proto ${PROTO} metric 20`, // ours, stale
      `route add 198.19.11.0/24 via ${NH4[0]} proto ${PROTO} metric 20`, // ours, to replace
      `route add 2001:db8:300::/48 via ${NH6[0]} proto ${PROTO} metric 20`, // ours, stale
    ]);
    const others = async () => [
      await lab.ip(['route', 'show', '198.19.250.0/24']),
      await lab.ip(['route', 'show', '198.19.251.0/24']),
    ];
    const before = await others();
    const t = target();
    await t.reconcile([
      route('198.19.11.0/24', NH4[1]),
      route('198.19.12.0/24', NH4[0]),
      route('198.19.250.0/24', NH4[1]),
    ]);
    expect(await ours()).toEqual({ '198.19.11.0/24': NH4[1], '198.19.12.0/24': NH4[0] });
    expect(await others()).toEqual(before);
    expect(before[0]).toMatch(/198.19.250.0\/24 via 198.18.40.2 dev fk-v0 metric 20/);
    expect(t.problemOf(parsePrefix('198.19.250.0/24'))).toMatchObject({ problem: 'conflict' });
    await t.reconcile([]);
  });
});

describe('the monitor', () => {
  it('puts back a route of ours that ip route del removed, and one ip route replace took', async () => {
    const t = target();
    await t.reconcile([route('198.19.20.0/24', NH4[0]), route('2001:db8:400::/48', NH6[0])]);
    await lab.ip(['route', 'del', '198.19.20.0/24', 'proto', String(PROTO), 'metric', '20']);
    await lab.ip(['-6', 'route', 'del', '2001:db8:400::/48', 'proto', String(PROTO), 'metric', '20']);
    await waitUntil(
      'put back',
      async () => (Object.keys(await ours()).length === 2 ? true : undefined),
      10_000,
      25,
    );
    await lab.ip(['route', 'replace', '198.19.20.0/24', 'via', NH4[1], 'proto', 'static', 'metric', '20']);
    await waitUntil(
      'ours again',
      async () => ((await ours())['198.19.20.0/24'] === NH4[0] ? true : undefined),
      10_000,
      25,
    );
    expect(await lab.ip(['route', 'show', '198.19.20.0/24'])).not.toMatch(/proto static/);
    expect(t.status().repairs).toBe(3);
    expect(warnings.filter((w) => w.includes('putting it back')).length).toBeLessThanOrEqual(2);
    await t.reconcile([]);
  });
});

describe('close', () => {
  it('keep leaves our routes for the next start, which adopts them; flush removes them', async () => {
    const kept = target({ onStop: 'keep' });
    await kept.reconcile([route('198.19.30.0/24', NH4[0]), route('2001:db8:500::/48', NH6[0])]);
    await kept.close();
    expect(Object.keys(await ours())).toHaveLength(2);
    const next = target({ onStop: 'flush' });
    await next.apply([add(route('198.19.30.0/24', NH4[1]))]);
    expect(await ours()).toEqual({ '198.19.30.0/24': NH4[1], '2001:db8:500::/48': NH6[0] });
    await next.close();
    expect(await ours()).toEqual({});
    expect(await lab.ip(['route', 'show', '198.19.250.0/24'])).toMatch(/198.19.250.0/);
  });
});

describe('churn', () => {
  it('100k routes added, replaced and withdrawn in batches: the process lives and the table is exact', async () => {
    const t = target();
    const N = 100_000;
    const base = (198 << 24) | (19 << 16);
    const v4 = (i: number) => new RibPrefix(Afi.IPV4, 32, (base + 0x8000 + i) >>> 0);
    const hop = (a: string) => [{ address: a, afi: Afi.IPV4 }] as const;
    const want = new Map<number, string>();
    const BATCH = 10_000;
    const step = async (changes: FibChange[]) => {
      for (let i = 0; i < changes.length; i += BATCH) await t.apply(changes.slice(i, i + BATCH));
    };
    const adds: FibChange[] = [];
    for (let i = 0; i < N; i++) {
      adds.push({ kind: 'add', route: { prefix: v4(i), nextHops: hop(NH4[0]) } });
      want.set(i, NH4[0]);
    }
    await step(adds);
    const mixed: FibChange[] = [];
    for (let i = 0; i < N; i++) {
      if (i % 3 === 0) {
        mixed.push({ kind: 'withdraw', prefix: v4(i) });
        want.delete(i);
      } else if (i % 3 === 1) {
        mixed.push({ kind: 'add', route: { prefix: v4(i), nextHops: hop(NH4[1]) } });
        want.set(i, NH4[1]);
      }
    }
    await step(mixed);
    const out = await lab.ip(['route', 'show', 'table', '254', 'proto', String(PROTO)]);
    const got = new Map<string, string>();
    for (const line of out.split('\n')) {
      const m = /^(\S+) via (\S+)/.exec(line);
      if (m) got.set(m[1], m[2]);
    }
    const expected = new Map([...want].map(([i, gw]) => [v4(i).addr, gw]));
    expect(got.size).toBe(expected.size);
    let wrong = 0;
    for (const [p, gw] of expected) if (got.get(p) !== gw) wrong++;
    expect(wrong).toBe(0);
    expect(t.status()).toMatchObject({
      routes: expected.size,
      problems: { failed: 0, conflict: 0 },
      repairs: 0,
    });
    await t.reconcile([]);
    expect(await lab.count(254, PROTO)).toBe(0);
  });
});
