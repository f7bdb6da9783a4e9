import b from 'benny';
import { parseIpv4 } from '../../src/address/index.js';
import { Afi } from '../../src/bgp/wire/constants.js';
import { UpdatePacker } from '../../src/bgp/wire/update-packer.js';
import { Writer } from '../../src/bgp/wire/writer.js';
import { AcceptAll, compileLists, compilePolicy, type RouteFilter } from '../../src/policy/index.js';
import { ChangeBatch, FIRST_BEST, Rib, RibDefaults, UpdateGroups } from '../../src/rib/index.js';
import { Exporter, type ExportSession, nextHopPlan } from '../../src/routing/index.js';
import { generateTable } from '../gen/full-table.js';
import { machineLine, rate, table } from '../support/report.js';
import { ipv4EbgpExporter, type SlicedSend, sendSlice } from './slice-send.js';

// The single-path export of a joining peer's initial table, end to end in one process: the
// update group offers every best path to its Adj-RIB-Out, `take` turns them into work, the
// exporter packs the UPDATEs. What every session without add-path does; a change that slows
// it shows here. Then the same for an add-path peer sent both paths of every prefix (prefixes/s
// counts prefixes, each sent twice). And the single-path export to an eBGP peer whose export
// policy keeps next hops (`next_hop: unchanged`): its group keeps each route's own next hop and
// the exporter decides it after the policy, a cost only such peers pay. The sliced case is the
// pump of a session sending its initial table (slices of EXPORT_SLICE_PREFIXES, work handed
// back after packing).

const LOCAL_AS = 65000;
const OUR_IPV4 = parseIpv4('198.18.1.1');
const PREFIXES = Number(process.argv[process.argv.indexOf('--prefixes') + 1]) || 500_000;

function setup() {
  const t = generateTable({ afi: Afi.IPV4, prefixes: PREFIXES });
  const rib = new Rib({ localAs: LOCAL_AS, routerId: parseIpv4('198.18.0.1') });
  const from = rib.addPeer({ id: 'a', kind: 'ebgp', asn: 65001, routerId: 2, address: '198.18.1.2' });
  for (const g of t.groups) rib.announce(from, t.prefixes, g.attrs, g.from, g.to);
  rib.flushInto(new ChangeBatch());
  const groups = new UpdateGroups({
    localAs: LOCAL_AS,
    clusterId: rib.clusterId,
    defaultLocalPref: RibDefaults.LOCAL_PREF,
  });
  const w = new Writer(1 << 26);
  return { rib, groups, w };
}

/** An export policy that keeps every route's next hop towards eBGP. */
const KEEP_NEXT_HOP = compilePolicy(
  { name: 'keep', statements: [{ set: { nextHop: 'unchanged' }, action: 'accept' }] },
  compileLists({}),
);

/** The exporter of an IPv4 eBGP session from OUR_IPV4 (reading the group's prepared bytes when given). */
function ebgpExporter(filter: RouteFilter, prepared?: ExportSession['prepared']): Exporter {
  return ipv4EbgpExporter(filter, OUR_IPV4, prepared);
}

/** One peer joins, gets the whole table packed into UPDATEs, and leaves; returns the messages. */
function exportTable(
  { rib, groups, w }: ReturnType<typeof setup>,
  filter: RouteFilter = new AcceptAll('all'),
): number {
  const plan = nextHopPlan({ kind: 'ebgp' as const, localIpv4: OUR_IPV4 }, filter);
  const out = groups.attach({ id: 'b', routerId: 3, target: plan.group });
  groups.fill('b', rib, FIRST_BEST, Number.POSITIVE_INFINITY);
  const exporter = ebgpExporter(filter);
  exporter.nextHopRule = plan.rule;
  exporter.track(out);
  w.reset();
  const messages = exporter.encode(out.take(), w);
  groups.leave('b');
  return messages;
}

/**
 * The same as a session sends it: the group offers a slice of the table, the Adj-RIB-Out's work
 * for that slice is packed and handed back, and so on (SessionExport's pump without the socket).
 */
function exportTableSliced({ rib, groups, w }: ReturnType<typeof setup>): number {
  const filter = new AcceptAll('all');
  const plan = nextHopPlan({ kind: 'ebgp' as const, localIpv4: OUR_IPV4 }, filter);
  const out = groups.attach({ id: 'b', routerId: 3, target: plan.group });
  const exporter = ebgpExporter(filter, (attrs) => groups.interner.prepared(attrs));
  exporter.track(out);
  const sending: SlicedSend = { peerId: 'b', out, exporter, cursor: FIRST_BEST };
  let messages = 0;
  for (let s = sendSlice(sending, rib, groups, w); s !== null; s = sendSlice(sending, rib, groups, w))
    messages += s.messages;
  groups.leave('b');
  return messages;
}

/** Prefixes of the add-path case: each has two paths, both sent. */
const ADD_PATH_PREFIXES = Math.round(PREFIXES / 5);

/** The add-path peer (send: all) joins and gets both paths of every prefix. */
function exportAllPaths(world: ReturnType<typeof setupAddPath>): number {
  const { rib, groups, w } = world;
  const target = { kind: 'ebgp' as const, localIpv4: OUR_IPV4 };
  const out = groups.attach(
    { id: 'b', routerId: 3, target, addPath: { select: 'all', families: [true, false] } },
    rib,
  );
  groups.fill('b', rib, FIRST_BEST, Number.POSITIVE_INFINITY);
  const exporter = new Exporter(new AcceptAll('all'), {
    packer: new UpdatePacker({ as4: true }),
    families: new Set([Afi.IPV4]),
    addPathSend: [true, false],
    localIpv4: OUR_IPV4,
    localIpv6: undefined,
  });
  exporter.track(out);
  w.reset();
  const messages = exporter.encode(out.take(), w);
  groups.leave('b');
  return messages;
}

function setupAddPath() {
  const t = generateTable({ afi: Afi.IPV4, prefixes: ADD_PATH_PREFIXES });
  const rib = new Rib({ localAs: LOCAL_AS, routerId: parseIpv4('198.18.0.1') });
  const a = rib.addPeer({ id: 'a', kind: 'ebgp', asn: 65001, routerId: 2, address: '198.18.1.2' });
  const c = rib.addPeer({ id: 'c', kind: 'ebgp', asn: 65003, routerId: 4, address: '198.18.1.4' });
  for (const g of t.groups) {
    rib.announce(a, t.prefixes, g.attrs, g.from, g.to);
    const longer = [{ type: 2 as const, asns: [65003, ...(g.attrs.asPath?.flatMap((x) => x.asns) ?? [])] }];
    rib.announce(c, t.prefixes, { ...g.attrs, asPath: longer }, g.from, g.to);
  }
  rib.flushInto(new ChangeBatch());
  const groups = new UpdateGroups({
    localAs: LOCAL_AS,
    clusterId: rib.clusterId,
    defaultLocalPref: RibDefaults.LOCAL_PREF,
  });
  return { rib, groups, w: new Writer(1 << 26) };
}

async function main(): Promise<void> {
  console.log(`machine: ${machineLine()}`);
  const world = setup();
  console.log(`IPv4 ${PREFIXES}: ${exportTable(world)} UPDATEs per initial table`);
  const figures: string[][] = [];
  await b.suite(
    'single-path export',
    b.add(`offer + take + encode, IPv4 ${PREFIXES}`, () => {
      exportTable(world);
    }),
    b.add(`the same in slices as a session sends it`, () => {
      exportTableSliced(world);
    }),
    b.add(`the same, export policy next_hop: unchanged`, () => {
      exportTable(world, KEEP_NEXT_HOP);
    }),
    b.configure({ cases: { minSamples: 10, maxTime: 8 } }),
    b.complete((summary) => {
      for (const r of summary.results)
        figures.push([r.name, rate(PREFIXES / r.details.mean), r.margin.toFixed(1), String(r.samples)]);
    }),
  );
  if (!process.argv.includes('--single-path-only')) {
    const twoPaths = setupAddPath();
    console.log(`IPv4 ${ADD_PATH_PREFIXES} x 2 paths: ${exportAllPaths(twoPaths)} UPDATEs with add-path`);
    await b.suite(
      'add-path export',
      b.add(`add-path send all, IPv4 ${ADD_PATH_PREFIXES} x 2 paths`, () => {
        exportAllPaths(twoPaths);
      }),
      b.configure({ cases: { minSamples: 5, maxTime: 8 } }),
      b.complete((summary) => {
        for (const r of summary.results)
          figures.push([
            r.name,
            rate(ADD_PATH_PREFIXES / r.details.mean),
            r.margin.toFixed(1),
            String(r.samples),
          ]);
      }),
    );
  }
  console.log(table([['case', 'prefixes/s', '± %', 'samples'], ...figures]));
}

await main();
