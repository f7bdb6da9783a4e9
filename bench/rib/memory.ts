/**
 * Memory per route and insertion rate of the Adj-RIB-In + Loc-RIB for a full IPv4 table from
 * one peer (~10 prefixes per attribute set), as decoded from real UPDATE bytes.
 *
 *   npx tsx bench/rib/memory.ts [routes]
 *
 * Re-runs itself with --expose-gc when global.gc is missing, so heap figures are taken after
 * full collections.
 */
import { spawnSync } from 'node:child_process';
import { AttrInterner } from '../../src/bgp/wire/attributes/interner.js';
import type { PathAttributes } from '../../src/bgp/wire/attributes/types.js';
import { Afi, type AfiCode } from '../../src/bgp/wire/constants.js';
import { checkHeader } from '../../src/bgp/wire/header.js';
import { PrefixList } from '../../src/bgp/wire/prefix-list.js';
import { UpdateDecoder } from '../../src/bgp/wire/update-decode.js';
import { UpdatePacker } from '../../src/bgp/wire/update-packer.js';
import { Writer } from '../../src/bgp/wire/writer.js';
import { Rib, UpdateGroups } from '../../src/rib/index.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  const r = spawnSync(process.execPath, ['--expose-gc', ...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
  });
  process.exit(r.status ?? 1);
}

const ROUTES = Number(process.argv[2] ?? 1_000_000);
const PER_SET = 10;
const HEADER = 19;

/** Prefixes [from, to) of `prefixes` share `attrs`. */
interface Group {
  readonly attrs: PathAttributes;
  readonly prefixes: PrefixList;
  readonly from: number;
  readonly to: number;
}

/**
 * The shared generator (bench/gen/full-table.ts) when its shape is one we know — it is still
 * changing — else a small local one.
 */
async function table(n: number): Promise<Group[]> {
  try {
    const gen = (await import('../gen/full-table.js')) as { generateTable: (o: object) => unknown };
    const t = gen.generateTable({ afi: Afi.IPV4 as AfiCode, prefixes: n, perAttributeSet: PER_SET }) as
      | { prefixes: PrefixList; groups: readonly { attrs: PathAttributes; from: number; to: number }[] }
      | readonly { attrs: PathAttributes; prefixes: PrefixList }[];
    if (Array.isArray(t))
      return t.map((g) => ({ attrs: g.attrs, prefixes: g.prefixes, from: 0, to: g.prefixes.count }));
    const one = t as {
      prefixes: PrefixList;
      groups: readonly { attrs: PathAttributes; from: number; to: number }[];
    };
    if (one.prefixes instanceof PrefixList && Array.isArray(one.groups))
      return one.groups.map((g) => ({ attrs: g.attrs, prefixes: one.prefixes, from: g.from, to: g.to }));
  } catch {
    // fall through to the local generator
  }
  console.log('(bench/gen/full-table.ts has an unknown shape: using the local generator)');
  return localTable(n);
}

function localTable(n: number): Group[] {
  let seed = 1;
  const random = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed / 2 ** 32;
  };
  const out: Group[] = [];
  let cursor = 0x01000000;
  for (let made = 0; made < n; ) {
    const size = Math.min(n - made, 1 + Math.floor(random() * (2 * PER_SET - 1)));
    const list = new PrefixList(Afi.IPV4, false, size);
    for (let k = 0; k < size; k++) {
      const i = list.grow();
      list.lens[i] = 24;
      list.words[i] = cursor;
      cursor += 256;
    }
    made += size;
    const asns = [65001];
    for (let h = 0; h < 1 + Math.floor(random() * 5); h++) asns.push(1 + Math.floor(random() * 64000));
    out.push({
      attrs: { origin: 0, asPath: [{ type: 2, asns }], nextHop: 0xc6120101 },
      prefixes: list,
      from: 0,
      to: size,
    });
  }
  return out;
}

/**
 * Live heap plus ArrayBuffer memory after full collections. Array buffer backing stores are
 * released by a background sweeper, so collect, let it run, and collect again.
 */
async function heap(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc!();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

const groups = await table(ROUTES);
const ctx = { as4: true, addPathIpv4: false, addPathIpv6: false, ebgp: true };
const packer = new UpdatePacker(ctx);
const w = new Writer(1 << 20);
for (const g of groups) packer.announce(w, packer.prepare(g.attrs), g.prefixes, g.from, g.to);
const stream = w.finish();
console.log(
  `table: ${ROUTES} IPv4 routes, ${groups.length} attribute sets, ${stream.length} bytes of UPDATEs`,
);

const peerInit = {
  id: '198.18.0.2',
  kind: 'ebgp' as const,
  asn: 65001,
  routerId: 0xc6120002,
  address: '198.18.0.2',
};

/** Decode + apply every UPDATE, flushing after each (as the session shell does). */
function load(rib: Rib): { routes: number; ms: number } {
  const peer = rib.addPeer(peerInit);
  const dec = new UpdateDecoder(ctx, { interner: new AttrInterner(), reuseLists: true });
  const t0 = performance.now();
  let routes = 0;
  for (let pos = 0; pos < stream.length; ) {
    const len = checkHeader(stream, pos);
    const u = dec.decode(stream, pos + HEADER, pos + len);
    rib.applyUpdate(peer, u);
    routes += rib.flush().length;
    pos += len;
  }
  return { routes, ms: performance.now() - t0 };
}

const before = await heap();
const rib = new Rib({ localAs: 65000, routerId: 0xc6120001 });
const first = load(rib);
const after = await heap();
// `rib` is read below, after the measurement, so it cannot be collected before it.
const perRoute = (after - before) / ROUTES;
console.log(
  `memory: ${((after - before) / 2 ** 20).toFixed(1)} MiB for Adj-RIB-In + Loc-RIB with one peer = ${perRoute.toFixed(1)} bytes/route ` +
    `(typed arrays ${(rib.byteLength / ROUTES).toFixed(1)} bytes/route, ${rib.attrs.size} attribute sets)`,
);
console.log(
  `insert (decode + Adj-RIB-In + decision + changes): ${(first.routes / (first.ms / 1000) / 1e6).toFixed(2)} M routes/s (${first.ms.toFixed(0)} ms, ${first.routes} changes)`,
);

// Export: a new eBGP peer joins (its Adj-RIB-Out gets the whole Loc-RIB), its work is taken in
// chunks and packed into UPDATEs, as the session shell would.
{
  const groups = new UpdateGroups({ localAs: 65000, clusterId: 0xc6120001, defaultLocalPref: 100 });
  const beforeOut = await heap();
  const t0 = performance.now();
  const out = groups.join(
    { id: 'upstream', routerId: 0xc6120063, target: { kind: 'ebgp', localIpv4: 0xc6120001 } },
    rib,
  );
  const tJoin = performance.now() - t0;
  const packer = new UpdatePacker(ctx);
  const wire = new Writer(1 << 16);
  const prepared = new WeakMap<PathAttributes, ReturnType<UpdatePacker['prepare']>>();
  let bytes = 0;
  let prefixes = 0;
  for (;;) {
    const work = out.take(10_000);
    if (work.count === 0) break;
    for (const a of work.announce) {
      let p = prepared.get(a.attrs);
      if (!p) {
        p = packer.prepare(a.attrs);
        prepared.set(a.attrs, p);
      }
      wire.reset();
      packer.announce(wire, p, a.prefixes);
      bytes += wire.pos;
    }
    prefixes += work.count;
  }
  const ms = performance.now() - t0;
  const outBytes = ((await heap()) - beforeOut) / ROUTES;
  // Read them after measuring: what is no longer used may be collected before the measurement.
  const advertised = out.count(Afi.IPV4);
  console.log(
    `export to one eBGP peer: Adj-RIB-Out filled in ${tJoin.toFixed(0)} ms, ${prefixes} prefixes taken and packed into ` +
      `${(bytes / 2 ** 20).toFixed(1)} MiB in ${ms.toFixed(0)} ms total = ${(prefixes / (ms / 1000) / 1e6).toFixed(2)} M prefixes/s; ` +
      `Adj-RIB-Out + exported attributes ${outBytes.toFixed(1)} bytes/route (${advertised} advertised, ` +
      `${groups.interner.size} exported attribute sets, Loc-RIB still ${rib.pending === 0 ? 'settled' : 'busy'})`,
  );
  groups.leave('upstream');
}

// RIB only: announce pre-built groups (no decoding), flush every group.
for (let run = 0; run < 3; run++) {
  const r = new Rib({ localAs: 65000, routerId: 0xc6120001 });
  const peer = r.addPeer(peerInit);
  const t0 = performance.now();
  let n = 0;
  for (const g of groups) {
    r.announce(peer, g.prefixes, g.attrs, g.from, g.to);
    n += r.flush().length;
  }
  const ms = performance.now() - t0;
  const t1 = performance.now();
  r.removePeer(peer);
  const withdrawn = r.flush().length;
  const msDown = performance.now() - t1;
  console.log(
    `run ${run + 1}: RIB only ${(n / (ms / 1000) / 1e6).toFixed(2)} M routes/s; peer down ${(withdrawn / (msDown / 1000) / 1e6).toFixed(2)} M withdrawals/s`,
  );
}
