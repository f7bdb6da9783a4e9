/**
 * The send path of a full table in one process, no sockets: a shaped table fed to a RIB as an
 * eBGP session feeds it (its sets wire-backed, as received), then a new eBGP peer joins and
 * gets the whole table as its session's pump sends it: the update group offers a slice, the
 * Adj-RIB-Out's work for it is packed into UPDATEs and handed back, and so on; the peer then
 * leaves. `--rounds` joins in one process, each timed (wall and CPU); the first pays the
 * compiler and the interner's growth, later ones show the steady cost. Steadier than the
 * loopback bench's send for comparing two builds (no socket, no receiver, no 100 ms poll).
 *
 *   npm run build && node dist/bench/rib/send-table.js [--shape skewed|transit] [--prefixes N] [--rounds R]
 */
import { parseIpv4 } from '../../src/address/index.js';
import { Writer } from '../../src/bgp/wire/writer.js';
import { AcceptAll } from '../../src/policy/index.js';
import { FIRST_BEST, type Rib, RibDefaults, UpdateGroups } from '../../src/rib/index.js';
import { nextHopPlan } from '../../src/routing/index.js';
import { encodedTable, feedContext, feedTable, LOCAL_AS } from '../bgp/session-feed.js';
import { ipv4EbgpExporter, type SlicedSend, sendSlice } from '../routing/slice-send.js';
import { option, shapeOption } from '../support/args.js';
import { loadLine, machineLine, median } from '../support/report.js';

/** Our address towards the joining peer: the next hop it gets. */
const OUR_IPV4 = parseIpv4('198.18.0.9');
/** A pump's writer holds one slice's UPDATEs. */
const WRITER_BYTES = 1 << 22;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** One peer joins, is sent the whole table a slice per turn, and leaves; returns prefixes and bytes sent. */
async function sendTable(
  rib: Rib,
  groups: UpdateGroups,
  w: Writer,
): Promise<{ prefixes: number; bytes: number }> {
  const filter = new AcceptAll('all');
  const plan = nextHopPlan({ kind: 'ebgp', localIpv4: OUR_IPV4 }, filter);
  const out = groups.attach({ id: 'receiver', routerId: 3, target: plan.group });
  const exporter = ipv4EbgpExporter(filter, OUR_IPV4, (attrs) => groups.interner.prepared(attrs));
  exporter.nextHopRule = plan.rule;
  exporter.track(out);
  const sending: SlicedSend = { peerId: 'receiver', out, exporter, cursor: FIRST_BEST };
  let prefixes = 0;
  let bytes = 0;
  for (let s = sendSlice(sending, rib, groups, w); s !== null; s = sendSlice(sending, rib, groups, w)) {
    prefixes += s.prefixes;
    bytes += w.pos;
    await nextTurn();
  }
  groups.leave('receiver');
  return { prefixes, bytes };
}

async function main(): Promise<void> {
  const shape = shapeOption('transit');
  const prefixes = Number(option('--prefixes', '1000000'));
  const rounds = Number(option('--rounds', '5'));
  console.log(machineLine());
  console.log(`${loadLine()} at start`);
  const { rib, held } = await feedTable(encodedTable(shape, prefixes), feedContext());
  if (held !== prefixes) throw new Error(`held ${held} of ${prefixes} prefixes`);
  const groups = new UpdateGroups({
    localAs: LOCAL_AS,
    clusterId: rib.clusterId,
    defaultLocalPref: RibDefaults.LOCAL_PREF,
  });
  const w = new Writer(WRITER_BYTES);
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const started = performance.now();
    const used = process.cpuUsage();
    const sent = await sendTable(rib, groups, w);
    wall.push(performance.now() - started);
    const c = process.cpuUsage(used);
    cpu.push((c.user + c.system) / 1000);
    if (sent.prefixes !== prefixes) throw new Error(`sent ${sent.prefixes} of ${prefixes} prefixes`);
    console.log(
      `round ${r + 1}: ${wall[r].toFixed(0)} ms (CPU ${cpu[r].toFixed(0)} ms), ${(sent.bytes / 1e6).toFixed(1)} MB of UPDATEs`,
    );
  }
  const later = (xs: number[]) => (xs.length > 1 ? median(xs.slice(1)).toFixed(0) : '-');
  console.log(
    `${prefixes} IPv4 prefixes (${shape}): first ${wall[0].toFixed(0)} ms, later median ${later(wall)} ms (CPU ${later(cpu)} ms)`,
  );
  console.log(`${loadLine()} at end`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
