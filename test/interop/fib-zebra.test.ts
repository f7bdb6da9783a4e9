/**
 * ZebraTarget against a real zebra in a namespace, FRR 8.4 (the host's) and FRR 10.3 (the
 * trixie root's), the same assertions for both: the sink picks the zebra's ZAPI dialect; our
 * routes appear in zebra's RIB as `bgp` (instance 1, distance 20) and in the namespace's kernel
 * as `proto bgp`, with ECMP sets; withdrawals and reconcile remove only ours; a zebra restart is
 * followed by a full replay; a close makes zebra flush everything of ours.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../frr-interop/lab/index.js';
import { Afi, Writer } from '../../src/bgp/wire/index.js';
import type { FibChange, FibRoute } from '../../src/fib/index.js';
import {
  NexthopType,
  writeRouteAdd,
  ZapiClient,
  type ZebraRouteEvent,
  ZebraTarget,
} from '../../src/fib/zebra/index.js';
import { parsePrefix } from '../../src/rib/index.js';
import {
  type KernelRoute,
  LAB_NH4 as NH4,
  LAB_NH6 as NH6,
  waitUntil,
  ZEBRA_VERSIONS,
  type ZebraEntry,
  ZebraLab,
  type ZebraVersion,
} from '../support/zebra-lab.js';

/** Announced by a second client as (BGP, instance 0): what a bgpd on the same zebra would own. */
const BGPD_ROUTE = '198.18.41.0/24';
const STATIC_KERNEL = '198.18.42.0/24';

function route(prefix: string, ...nextHops: string[]): FibRoute {
  return {
    prefix: parsePrefix(prefix),
    nextHops: nextHops.map((address) => ({ address, afi: address.includes(':') ? Afi.IPV6 : Afi.IPV4 })),
  };
}
const add = (r: FibRoute): FibChange => ({ kind: 'add', route: r });
const withdraw = (p: string): FibChange => ({ kind: 'withdraw', prefix: parsePrefix(p) });

const V4_ONE = route('198.19.1.0/24', NH4[0]);
const V4_ECMP = route('198.19.2.0/24', NH4[0], NH4[1]);
const V6_ONE = route('2001:db8:100::/48', NH6[0]);
const V6_ECMP = route('2001:db8:200::/48', NH6[0], NH6[1]);

function zebraTargetSuite(version: ZebraVersion): void {
  describe(`ZebraTarget with ${version.name} zebra`, () => {
    let target: ZebraTarget | undefined;
    let bgpd: ZapiClient | undefined;
    const events: ZebraRouteEvent[] = [];
    const warnings: { obj: object | string; msg?: string }[] = [];
    const nothing = () => {};
    const logger = {
      debug: nothing,
      info: nothing,
      error: nothing,
      warn: (obj: object | string, msg?: string) => warnings.push({ obj, msg }),
    };

    let lab: ZebraLab;
    /** zebra's (and the kernel's) index of our veth end, read in the lab's namespace. */
    let labIfindex = 0;

    async function ourRoutes(): Promise<Map<string, ZebraEntry>> {
      const m = new Map<string, ZebraEntry>();
      for (const v6 of [false, true])
        for (const [p, entries] of Object.entries(await lab.zebraRoutes(v6)))
          for (const e of entries) if (e.protocol === 'bgp' && e.instance === 1) m.set(p, e);
      return m;
    }

    function kernelGateways(r: KernelRoute | undefined): string[] {
      if (!r) return [];
      return (r.nexthops?.map((n) => n.gateway) ?? [r.gateway ?? '']).sort();
    }

    async function kernelBgp(): Promise<Map<string, string[]>> {
      const m = new Map<string, string[]>();
      for (const v6 of [false, true])
        for (const r of await lab.kernelRoutes(v6, 'bgp'))
          if (r.dst !== BGPD_ROUTE)
            m.set(r.dst.includes('/') ? r.dst : `${r.dst}/${v6 ? 128 : 32}`, kernelGateways(r));
      return m;
    }

    async function expectOurs(expected: Record<string, readonly string[]>): Promise<void> {
      const want = new Map(Object.entries(expected).map(([p, nh]) => [p, [...nh].sort()]));
      const seen = await waitUntil(`zebra RIB = ${JSON.stringify(expected)}`, async () => {
        const ours = await ourRoutes();
        const got = new Map(
          [...ours].map(([p, e]) => [
            p,
            e.nexthops
              .filter((n) => n.fib)
              .map((n) => n.ip ?? '')
              .sort(),
          ]),
        );
        return JSON.stringify([...got].sort()) === JSON.stringify([...want].sort()) ? ours : undefined;
      });
      for (const e of seen.values()) {
        expect(e).toMatchObject({ protocol: 'bgp', instance: 1, distance: 20, metric: 0, installed: true });
      }
      const kernel = await waitUntil('kernel proto bgp routes', async () => {
        const k = await kernelBgp();
        return JSON.stringify([...k].sort()) === JSON.stringify([...want].sort()) ? k : undefined;
      });
      expect([...kernel.keys()].sort()).toEqual([...want.keys()].sort());
    }

    beforeAll(async () => {
      lab = await ZebraLab.create(
        `${(process.pid % 46656).toString(36)}${version.tag}`,
        await version.root(),
      );
      await run(['ip', '-n', lab.ns, 'route', 'add', STATIC_KERNEL, 'via', NH4[1]]);
      await lab.startZebra();
      labIfindex = await lab.ifindex();
      target = new ZebraTarget(
        { socket: lab.socket, instance: 1, reconnectInitialMs: 50, reconnectMaxMs: 400 },
        // Interfaces as zebra's namespace has them (this process runs outside it).
        { logger, ifindexOf: (name) => (name === lab.ifname ? labIfindex : undefined) },
      );
      target.onRouteState((e) => events.push(e));
      target.start();
      await target.ready(10_000);
      bgpd = await bgpdLikeClient();
    });

    /** A raw client saying HELLO as bgpd does (BGP, instance 0) and owning one route. */
    async function bgpdLikeClient(): Promise<ZapiClient> {
      const client = new ZapiClient(
        {
          socketPath: lab.socket,
          routeType: 'BGP',
          instance: 0,
          backoff: { initialMs: 50, maxMs: 400, jitter: 0 },
          handshakeTimeoutMs: 5000,
        },
        { up: () => {}, down: () => {}, notify: () => {}, routerId: () => {} },
      );
      client.start();
      await addBgpdRoute(client, 1);
      return client;
    }

    /** Once `client`'s session number `session` is up, adds its route (zebra forgets it with the session). */
    async function addBgpdRoute(client: ZapiClient, session: number): Promise<void> {
      await waitUntil(`(BGP, 0) session ${session} up`, () =>
        client.sessions === session && client.state === 'up' ? true : undefined,
      );
      const w = new Writer(64);
      const dialect = client.dialect!;
      writeRouteAdd(w, dialect, {
        type: dialect.routeType.BGP,
        instance: 0,
        flags: 0,
        safi: 1,
        prefix: { family: 2, len: 24, addr: '198.18.41.0' },
        nexthops: [{ type: NexthopType.IPV4, vrfId: 0, flags: 0, gate: NH4[0], ifindex: 0 }],
        distance: 20,
        metric: 0,
      });
      await client.write(w.finish());
      await waitUntil('the (BGP, 0) route in zebra', async () =>
        (await lab.zebraRoutes())[BGPD_ROUTE]?.[0]?.installed ? true : undefined,
      );
    }

    async function expectOthersIntact(): Promise<void> {
      const rib = await lab.zebraRoutes();
      expect(rib[BGPD_ROUTE]?.[0]).toMatchObject({ protocol: 'bgp', installed: true });
      expect(rib[BGPD_ROUTE]?.[0]?.instance).toBeUndefined();
      expect(rib[STATIC_KERNEL]?.[0]).toMatchObject({ protocol: 'kernel' });
      const kernel = (await lab.kernelRoutes(false)).map((r) => r.dst);
      expect(kernel).toEqual(expect.arrayContaining([BGPD_ROUTE, STATIC_KERNEL]));
    }

    afterAll(async () => {
      try {
        await bgpd?.close();
        await target?.close();
      } finally {
        await lab?.destroy();
      }
    });

    it(`connects in ${version.name}'s dialect, learns multipath and router-id`, async () => {
      const s = target!.status();
      expect(s).toMatchObject({ connected: true, instance: 1, sessions: 1, routes: 0, zapi: version.name });
      expect(s.multipathNum).toBeGreaterThanOrEqual(2);
    });

    it('installs IPv4 and IPv6 routes, ECMP with two next hops, and hears INSTALLED', async () => {
      await target!.apply([add(V4_ONE), add(V4_ECMP), add(V6_ONE), add(V6_ECMP)]);
      await waitUntil('4 INSTALLED notifications', () =>
        target!.status().installed === 4 ? true : undefined,
      ).catch(async (e) => {
        const log = readFileSync(join(lab.dir, 'zebra.log'), 'utf8').slice(-3000);
        const rib = JSON.stringify(await lab.zebraRoutes());
        throw new Error(
          `${e.message}: ${JSON.stringify(target!.status())} ${JSON.stringify(events)}\n${rib}\n${log}`,
        );
      });
      for (const r of [V4_ONE, V4_ECMP, V6_ONE, V6_ECMP]) {
        expect(target!.routeState(r.prefix)).toBe('installed');
        expect(events).toContainEqual({ prefix: r.prefix.toString(), state: 'installed' });
      }
      await expectOurs({
        '198.19.1.0/24': [NH4[0]],
        '198.19.2.0/24': NH4,
        '2001:db8:100::/48': [NH6[0]],
        '2001:db8:200::/48': NH6,
      });
      const k = (await lab.kernelRoutes(false, 'bgp')).find((r) => r.dst === '198.19.2.0/24');
      expect(k?.metric).toBe(20);
    });

    it('an IPv4 route over an IPv6 next hop (RFC 8950) is installed', async () => {
      const r = route('198.19.5.0/24', NH6[0]);
      await target!.apply([add(r)]);
      await waitUntil('installed', () => (target!.routeState(r.prefix) === 'installed' ? true : undefined));
      const k = (await lab.kernelRoutes(false, 'bgp')).find((e) => e.dst === '198.19.5.0/24') as
        | (KernelRoute & { via?: { family: string; host: string } })
        | undefined;
      expect(k?.via).toEqual({ family: 'inet6', host: NH6[0] });
      await target!.apply([withdraw('198.19.5.0/24')]);
    });

    it('a link-local next hop from an unnumbered peer goes with its interface, for IPv6 and IPv4 (RFC 8950) routes', async () => {
      const peer = await lab.peerLinkLocal();
      const onLink = (prefix: string): FibRoute => ({
        prefix: parsePrefix(prefix),
        nextHops: [{ address: peer, afi: Afi.IPV6, interface: lab.ifname }],
      });
      const routes = [onLink('2001:db8:300::/48'), onLink('198.19.6.0/24')];
      await target!.apply(routes.map(add));
      await waitUntil('both installed', () =>
        routes.every((r) => target!.routeState(r.prefix) === 'installed') ? true : undefined,
      );
      for (const [prefix, v6] of [
        ['2001:db8:300::/48', true],
        ['198.19.6.0/24', false],
      ] as const) {
        const [entry] = (await lab.zebraRoutes(v6))[prefix] ?? [];
        expect(entry).toMatchObject({ protocol: 'bgp', instance: 1, installed: true });
        expect(entry?.nexthops).toEqual([
          expect.objectContaining({ ip: peer, interfaceName: lab.ifname, fib: true }),
        ]);
        const kernel = (await lab.kernelRoutes(v6, 'bgp')).find((r) => r.dst === prefix);
        expect(kernel?.dev).toBe(lab.ifname);
      }
      await target!.apply([withdraw('2001:db8:300::/48'), withdraw('198.19.6.0/24')]);
    });

    it('an add replaces our route for the prefix (ECMP set shrinks)', async () => {
      await target!.apply([add(route('198.19.2.0/24', NH4[1]))]);
      await expectOurs({
        '198.19.1.0/24': [NH4[0]],
        '198.19.2.0/24': [NH4[1]],
        '2001:db8:100::/48': [NH6[0]],
        '2001:db8:200::/48': NH6,
      });
      await target!.apply([add(V4_ECMP)]);
    });

    it('withdrawals remove routes from zebra and the kernel', async () => {
      await target!.apply([withdraw('198.19.1.0/24'), withdraw('2001:db8:100::/48')]);
      await expectOurs({ '198.19.2.0/24': NH4, '2001:db8:200::/48': NH6 });
      expect(target!.status().routes).toBe(2);
    });

    // A connected prefix over a next hop inside it: both versions say FAIL_INSTALL; 10.3 then
    // says the connected route holds the prefix (BETTER_ADMIN_WON), 8.4 says no more.
    const refusal = version.name === 'FRR 10.3' ? 'better-admin-won' : 'fail-install';
    it(`FAIL_INSTALL per prefix (next hop inside its own prefix), ending ${refusal}, in status(), logged once`, async () => {
      const losers = [route('198.18.40.0/24', NH4[0]), route('2001:db8:40::/64', NH6[0])];
      const before = warnings.length;
      await target!.apply(losers.map(add));
      await waitUntil(`${refusal} for both`, () =>
        losers.every((r) => target!.routeState(r.prefix) === refusal) ? true : undefined,
      );
      for (const r of losers)
        expect(events).toContainEqual({ prefix: r.prefix.toString(), state: 'fail-install' });
      expect(target!.status().failed).toEqual(
        expect.arrayContaining(losers.map((r) => ({ prefix: r.prefix.toString(), state: refusal }))),
      );
      const logged = warnings
        .slice(before)
        .filter((w) => (w.obj as { state?: string }).state === 'fail-install');
      expect(logged).toHaveLength(1);
      await target!.apply(losers.map((r) => withdraw(r.prefix.toString())));
      expect(target!.status().failed).toEqual([]);
    });

    it('BETTER_ADMIN_WON when a kernel route (distance 0) displaces an installed route of ours', async () => {
      const ours = route('198.19.9.0/24', NH4[0]);
      await target!.apply([add(ours)]);
      await waitUntil('installed', () =>
        target!.routeState(ours.prefix) === 'installed' ? true : undefined,
      );
      await run(['ip', '-n', lab.ns, 'route', 'add', '198.19.9.0/24', 'via', NH4[1], 'metric', '5']);
      try {
        await waitUntil('better-admin-won', () =>
          target!.routeState(ours.prefix) === 'better-admin-won' ? true : undefined,
        );
        expect(events).toContainEqual({ prefix: '198.19.9.0/24', state: 'better-admin-won' });
      } finally {
        await run(['ip', '-n', lab.ns, 'route', 'del', '198.19.9.0/24', 'via', NH4[1], 'metric', '5']);
        await target!.apply([withdraw('198.19.9.0/24')]);
      }
    });

    it('reconcile adds the missing, deletes our stale ones, and leaves other protocols alone', async () => {
      await target!.reconcile([V4_ECMP, route('198.19.3.0/24', NH4[1])]);
      await expectOurs({ '198.19.2.0/24': NH4, '198.19.3.0/24': [NH4[1]] });
      await expectOthersIntact();
    });

    it('zebra restarted: the client reconnects and replays every route it holds', async () => {
      // SIGTERM: zebra removes its kernel routes as it exits. After a SIGKILL the next zebra reads
      // the leftovers back as (BGP, instance 0) self routes, which is bgpd's key, not ours (see
      // docs/fib-zebra.md); this test is about our replay, so it stops zebra the clean way.
      await lab.stopZebra('SIGTERM');
      await waitUntil('client to notice zebra is gone', () =>
        target!.status().connected ? undefined : true,
      );
      // Changes made while zebra is away are kept and replayed, though apply() says not-connected.
      await expect(target!.apply([add(V6_ONE)])).rejects.toMatchObject({ kind: 'not-connected' });
      await lab.startZebra();
      await target!.ready(10_000);
      expect(target!.status().sessions).toBe(2);
      await expectOurs({ '198.19.2.0/24': NH4, '198.19.3.0/24': [NH4[1]], '2001:db8:100::/48': [NH6[0]] });
      await waitUntil('INSTALLED after replay', () => (target!.status().installed === 3 ? true : undefined));
      // The raw (BGP, 0) client reconnected too, but holds no routes, so it replays nothing: it
      // adds its own again.
      await addBgpdRoute(bgpd!, 2);
    });

    it('close(): zebra flushes our routes; its own and the kernel routes stay', async () => {
      await target!.close();
      await waitUntil('our routes gone from zebra', async () =>
        (await ourRoutes()).size === 0 ? true : undefined,
      );
      await waitUntil('our routes gone from the kernel', async () =>
        (await kernelBgp()).size === 0 ? true : undefined,
      );
      await expectOthersIntact();
      await expect(target!.apply([add(V4_ONE)])).rejects.toMatchObject({ kind: 'closed' });
    });
  });
}

for (const version of ZEBRA_VERSIONS) zebraTargetSuite(version);
