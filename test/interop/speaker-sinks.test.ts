/*
 * Routes our speaker learns from two FRRs (AS 65001, 65003) and GoBGP (AS 65002) reach the forwarding
 * planes with the right next hops and ECMP sets: the zebra in the speaker's namespace (and,
 * through it, that kernel), the kernel directly (rtnetlink, in a table of its own so the two
 * never meet), and OVN NB as Logical_Router_Static_Route rows. A withdrawal removes them from
 * all three; what another protocol or no mark of ours owns survives. The zebra is FRR 8.4's;
 * a second lab runs the same zebra assertions with FRR 10.3's zebra (the trixie root's), the
 * zebra sink alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Lab } from '../../frr-interop/lab/index.js';
import { eventually, LabSpeaker } from '../speaker/lab-speaker.js';
import { lrRouteList } from '../support/ovn-nb-sink.js';
import { NB_SCHEMA, nbctl, OvsdbLab, SB_SCHEMA, type ServerHandle } from '../support/ovsdb-lab.js';
import { ZEBRA_VERSIONS, Zebra, type ZebraVersion } from '../support/zebra-lab.js';

const IS_ROOT = process.getuid?.() === 0;
const AS = 65000;
/**
 * Announced by all three: the two FRRs' paths (ORIGIN IGP) are an ECMP set once multipath is
 * on; GoBGP's (ORIGIN INCOMPLETE, as `gobgp global rib add` makes it) loses on origin.
 */
const SHARED4 = '198.19.50.0/24';
const SHARED6 = '2001:db8:50::/48';
const FRR_ONLY = '198.19.51.0/24';
const GOBGP_ONLY = '198.19.52.0/24';
const FLOW_MS = 30_000;
/** The OVN router the ovn_nb sink writes to, and a route on it that is not ours. */
const NB_ROUTER = 'lr-ext';
const HAND_MADE = '198.19.99.0/24';
/** The kernel sink's table: zebra owns protocol bgp routes in main, so ours go elsewhere. */
const KERNEL_TABLE = '100';
/** A route of another protocol in our table: no reconcile of ours may touch it. */
const STATIC_ROUTE = '198.19.98.0/24';

const PEERS = [
  { name: 'frr', impl: 'frr', as: 65001, originate: { ipv4: [SHARED4, FRR_ONLY], ipv6: [SHARED6] } },
  { name: 'gobgp', impl: 'gobgp', as: 65002, originate: { ipv4: [SHARED4, GOBGP_ONLY], ipv6: [SHARED6] } },
  { name: 'frrb', impl: 'frr', as: 65003, originate: { ipv4: [SHARED4], ipv6: [SHARED6] } },
] as const;

/** The speaker's part of the configuration: all six sessions, learning only. */
function speakerDoc(lab: Lab, name: string): Record<string, unknown> {
  const frr = lab.peer('frr');
  const gobgp = lab.peer('gobgp');
  const frrb = lab.peer('frrb');
  return {
    speaker: {
      name,
      local_as: AS,
      router_id: '198.18.0.1',
      listen: { address: '::', port: 179 },
      hold_time: 9,
      connect_retry: 2,
      bestpath: { max_paths: 4, multipath_relax: true },
    },
    peers: [
      { name: 'frr4', peer_ip: frr.address.ipv4, remote_as: 65001, import: ['all'], export: ['none'] },
      { name: 'frr6', peer_ip: frr.address.ipv6, remote_as: 65001, import: ['all'], export: ['none'] },
      { name: 'gobgp4', peer_ip: gobgp.address.ipv4, remote_as: 65002, import: ['all'], export: ['none'] },
      { name: 'gobgp6', peer_ip: gobgp.address.ipv6, remote_as: 65002, import: ['all'], export: ['none'] },
      { name: 'frrb4', peer_ip: frrb.address.ipv4, remote_as: 65003, import: ['all'], export: ['none'] },
      { name: 'frrb6', peer_ip: frrb.address.ipv6, remote_as: 65003, import: ['all'], export: ['none'] },
    ],
    policies: {
      all: { statements: [{ action: 'accept' }] },
      none: { statements: [{ action: 'reject' }] },
    },
  };
}
const SESSIONS = ['frr4', 'frr6', 'gobgp4', 'gobgp6', 'frrb4', 'frrb6'];

/** The kernel of the speaker's namespace: routes of `prefix` in `table`, and their next hops. */
async function kernelRoutes(lab: Lab, prefix: string, table = 'main') {
  const family = prefix.includes(':') ? '-6' : '-4';
  const out = await lab.exec(lab.speakerNs, ['ip', family, '-j', 'route', 'show', 'table', table, prefix]);
  return JSON.parse(out || '[]') as {
    dst: string;
    gateway?: string;
    protocol?: string;
    nexthops?: { gateway: string }[];
  }[];
}
async function kernelHops(lab: Lab, prefix: string, table = 'main') {
  const [r] = await kernelRoutes(lab, prefix, table);
  if (!r) return undefined;
  return (r.nexthops?.map((h) => h.gateway) ?? [r.gateway ?? '']).sort();
}

/** zebra's installed bgp route of `prefix`: its next hops, sorted; undefined when it has none. */
async function zebraHops(zebra: Zebra, prefix: string) {
  const r = (await zebra.routes(prefix.includes(':')))[prefix]?.find((x) => x.protocol === 'bgp');
  return r?.installed ? r.nexthops.map((h) => h.ip ?? '').sort() : undefined;
}

/** `probe` until it gives `count` next hops. */
async function hopsOf(what: string, count: number, probe: () => Promise<string[] | undefined>) {
  return eventually(
    async () => {
      const hops = await probe();
      return hops?.length === count ? hops : undefined;
    },
    what,
    FLOW_MS,
  );
}

/* The zebra sink's assertions, the same for every zebra version. */

/** The sink said which ZAPI dialect it speaks when it came up. */
async function expectDialect(speaker: LabSpeaker, version: ZebraVersion): Promise<void> {
  const line = await eventually(
    async () => speaker.logLines().find((l) => l.msg === 'zebra: connected'),
    'the sink connected to zebra',
    FLOW_MS,
  );
  expect(line).toMatchObject({ zapi: version.name });
}

async function expectZebraEcmp(lab: Lab, zebra: Zebra): Promise<void> {
  const frr = lab.peer('frr').address;
  const frrb = lab.peer('frrb').address;
  const want4 = [frr.ipv4, frrb.ipv4].sort();
  expect(await hopsOf(`${SHARED4} with two next hops in zebra`, 2, () => zebraHops(zebra, SHARED4))).toEqual(
    want4,
  );
  expect(
    await hopsOf(`${SHARED4} with two next hops in the kernel`, 2, () => kernelHops(lab, SHARED4)),
  ).toEqual(want4);
  expect((await kernelRoutes(lab, SHARED4))[0]?.protocol).toBe('bgp');
  const want6 = [frr.ipv6, frrb.ipv6].sort();
  expect(await hopsOf(`${SHARED6} with two next hops in zebra`, 2, () => zebraHops(zebra, SHARED6))).toEqual(
    want6,
  );
}

async function expectZebraSinglePeer(lab: Lab, zebra: Zebra): Promise<void> {
  expect(await eventually(() => zebraHops(zebra, FRR_ONLY), `${FRR_ONLY} in zebra`, FLOW_MS)).toEqual([
    lab.peer('frr').address.ipv4,
  ]);
  expect(await eventually(() => zebraHops(zebra, GOBGP_ONLY), `${GOBGP_ONLY} in zebra`, FLOW_MS)).toEqual([
    lab.peer('gobgp').address.ipv4,
  ]);
}

/** FRR withdraws SHARED4 and FRR_ONLY: zebra keeps the other FRR's next hop, drops FRR_ONLY, so does the kernel. */
async function withdrawAtFrrAndExpectZebra(lab: Lab, zebra: Zebra): Promise<void> {
  await lab.frr('frr').withdraw([SHARED4, FRR_ONLY]);
  expect(await hopsOf(`${SHARED4} via the other FRR only`, 1, () => zebraHops(zebra, SHARED4))).toEqual([
    lab.peer('frrb').address.ipv4,
  ]);
  await eventually(
    async () => ((await kernelRoutes(lab, FRR_ONLY)).length === 0 ? true : undefined),
    `${FRR_ONLY} gone from the kernel`,
    FLOW_MS,
  );
  expect(await zebraHops(zebra, FRR_ONLY)).toBeUndefined();
}

const FRR_8_4 = ZEBRA_VERSIONS.find((v) => v.name === 'FRR 8.4') as ZebraVersion;

describe.skipIf(!IS_ROOT)('learned routes in the forwarding planes', () => {
  let lab: Lab;
  let speaker: LabSpeaker;
  let zebra: Zebra;
  let ovsdb: OvsdbLab;
  let nb: ServerHandle;

  /** Next hops of `prefix` on the NB router, sorted; undefined when it has no row. */
  const nbHops = async (prefix: string) => {
    const hops = (await lrRouteList(nb.unix, NB_ROUTER))
      .filter((r) => r.prefix === prefix)
      .map((r) => r.nexthop);
    return hops.length > 0 ? hops.sort() : undefined;
  };

  beforeAll(async () => {
    ovsdb = OvsdbLab.create('speaker-sinks-');
    nb = await ovsdb.startServer('nb', await ovsdb.createDb('nb', NB_SCHEMA));
    const sb = await ovsdb.startServer('sb', await ovsdb.createDb('sb', SB_SCHEMA));
    await nbctl(nb.unix, 'init');
    await nbctl(nb.unix, 'lr-add', NB_ROUTER);
    await nbctl(nb.unix, 'lr-route-add', NB_ROUTER, HAND_MADE, '198.18.1.99');
    lab = await Lab.create({ id: 'sinks', speaker: { as: AS, routerId: '198.18.0.1' }, peers: PEERS });
    zebra = await Zebra.create(lab.speakerNs, await FRR_8_4.root());
    await zebra.start();
    await lab.exec(lab.speakerNs, [
      'ip',
      'route',
      'add',
      STATIC_ROUTE,
      'via',
      lab.peer('frr').address.ipv4,
      'table',
      KERNEL_TABLE,
    ]);
    speaker = await LabSpeaker.start(lab, {
      ...speakerDoc(lab, 'sinks'),
      // OVN here only as the place the ovn_nb sink writes to: nothing to publish from it.
      ovn: { nb: nb.unix, sb: sb.unix },
      sinks: {
        zebra: { socket: zebra.socket },
        ovn_nb: { router: NB_ROUTER },
        kernel: { table: Number(KERNEL_TABLE) },
      },
    });
    await speaker.waitEstablished(SESSIONS, 60_000);
  }, 120_000);

  afterAll(async () => {
    try {
      await zebra?.destroy();
    } finally {
      await lab?.destroy();
      await ovsdb?.close();
    }
  });

  it("the zebra sink speaks FRR 8.4's ZAPI dialect", async () => {
    await expectDialect(speaker, FRR_8_4);
  });

  it('zebra holds the ECMP set of a prefix both peers announce, type bgp, and installs it in the kernel', async () => {
    await expectZebraEcmp(lab, zebra);
  });

  it('OVN NB holds one static route row per next hop, marked as ours, beside a hand-made one', async () => {
    const want4 = [lab.peer('frr').address.ipv4, lab.peer('frrb').address.ipv4].sort();
    expect(await hopsOf(`${SHARED4} as two rows in NB`, 2, () => nbHops(SHARED4))).toEqual(want4);
    expect(await eventually(() => nbHops(GOBGP_ONLY), `${GOBGP_ONLY} in NB`, FLOW_MS)).toEqual([
      lab.peer('gobgp').address.ipv4,
    ]);
    expect((await eventually(() => nbHops(SHARED6), `${SHARED6} in NB`, FLOW_MS)).length).toBe(2);
    const marked = await nbctl(
      nb.unix,
      '--bare',
      '--columns=ip_prefix',
      'find',
      'Logical_Router_Static_Route',
      'external_ids:ovn-bgp-speaker=sinks',
    );
    expect(marked).toContain(SHARED4);
    expect(marked).not.toContain(HAND_MADE);
    expect(await nbHops(HAND_MADE)).toEqual(['198.18.1.99']);
  });

  it('the kernel sink installs the same ECMP set in its own table, proto bgp, beside a static route', async () => {
    const want4 = [lab.peer('frr').address.ipv4, lab.peer('frrb').address.ipv4].sort();
    expect(
      await hopsOf(`${SHARED4} with two next hops in table ${KERNEL_TABLE}`, 2, () =>
        kernelHops(lab, SHARED4, KERNEL_TABLE),
      ),
    ).toEqual(want4);
    expect((await kernelRoutes(lab, SHARED4, KERNEL_TABLE))[0]?.protocol).toBe('bgp');
    expect(
      await hopsOf(`${SHARED6} with two next hops in table ${KERNEL_TABLE}`, 2, () =>
        kernelHops(lab, SHARED6, KERNEL_TABLE),
      ),
    ).toEqual([lab.peer('frr').address.ipv6, lab.peer('frrb').address.ipv6].sort());
    expect(
      await eventually(
        () => kernelHops(lab, GOBGP_ONLY, KERNEL_TABLE),
        `${GOBGP_ONLY} in table ${KERNEL_TABLE}`,
        FLOW_MS,
      ),
    ).toEqual([lab.peer('gobgp').address.ipv4]);
    const statics = await kernelRoutes(lab, STATIC_ROUTE, KERNEL_TABLE);
    expect(statics).toHaveLength(1);
    expect(statics[0]?.protocol).not.toBe('bgp');
  });

  it('a prefix from one peer goes via that peer only', async () => {
    await expectZebraSinglePeer(lab, zebra);
  });

  it('a withdrawal at FRR shrinks the ECMP set and removes the prefix only FRR had', async () => {
    await withdrawAtFrrAndExpectZebra(lab, zebra);
    await eventually(
      async () => ((await nbHops(FRR_ONLY)) === undefined ? true : undefined),
      `${FRR_ONLY} gone from NB`,
      FLOW_MS,
    );
    expect(await nbHops(SHARED4)).toEqual([lab.peer('frrb').address.ipv4]);
    expect(await nbHops(HAND_MADE)).toEqual(['198.18.1.99']);
    await eventually(
      async () => ((await kernelRoutes(lab, FRR_ONLY, KERNEL_TABLE)).length === 0 ? true : undefined),
      `${FRR_ONLY} gone from table ${KERNEL_TABLE}`,
      FLOW_MS,
    );
    expect(await kernelHops(lab, SHARED4, KERNEL_TABLE)).toEqual([lab.peer('frrb').address.ipv4]);
    expect(await kernelRoutes(lab, STATIC_ROUTE, KERNEL_TABLE)).toHaveLength(1);
  });
});

/* The zebra parts again, for every other zebra version: the zebra sink alone. */
for (const version of ZEBRA_VERSIONS.filter((v) => v !== FRR_8_4))
  describe.skipIf(!IS_ROOT)(`learned routes in ${version.name}'s zebra`, () => {
    let lab: Lab;
    let zebra: Zebra;
    let speaker: LabSpeaker;

    beforeAll(async () => {
      lab = await Lab.create({
        id: `sinks${version.tag}`,
        speaker: { as: AS, routerId: '198.18.0.1' },
        peers: PEERS,
      });
      zebra = await Zebra.create(lab.speakerNs, await version.root());
      await zebra.start();
      speaker = await LabSpeaker.start(lab, {
        ...speakerDoc(lab, 'sinks'),
        sinks: { zebra: { socket: zebra.socket } },
      });
      await speaker.waitEstablished(SESSIONS, 60_000);
    }, 120_000);

    afterAll(async () => {
      try {
        await zebra?.destroy();
      } finally {
        await lab?.destroy();
      }
    });

    it(`the zebra sink speaks ${version.name}'s ZAPI dialect`, async () => {
      await expectDialect(speaker, version);
    });

    it('zebra holds the ECMP set of a prefix both peers announce, type bgp, and installs it in the kernel', async () => {
      await expectZebraEcmp(lab, zebra);
    });

    it('a prefix from one peer goes via that peer only', async () => {
      await expectZebraSinglePeer(lab, zebra);
    });

    it('a withdrawal at FRR shrinks the ECMP set and removes the prefix only FRR had', async () => {
      await withdrawAtFrrAndExpectZebra(lab, zebra);
    });
  });
