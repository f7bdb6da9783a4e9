/**
 * Would framing and NLRI decoding in a worker thread speed up receiving a full table? The
 * receive path in one process, no sockets, four ways, alternating, each from a fresh RIB:
 *
 *   inline       frame + decode + Rib.applyUpdate + flush, as the session does it
 *   split        a worker frames and decodes the NLRI into shared-memory columns; the main
 *                thread decodes the attributes (interning, RFC 7606 checks) and runs the RIB
 *   attrs+rib    the main thread's share of split with no hand-off: NLRI decoded beforehand
 *   rib          the RIB alone: attribute sets and NLRI decoded beforehand (the floor)
 *
 * The figure that matters is the main thread's CPU time (from /proc, 10 ms ticks): it bounds
 * the receive time whatever the other core does, and unlike wall time it hardly depends on
 * what else runs on the machine. Linux only; needs the build (`npm run build`).
 *
 *   node dist/bench/bgp/receive-split.js [--prefixes N] [--runs R]
 */
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { parseIpv4 } from '../../src/address/index.js';
import { AttrInterner } from '../../src/bgp/wire/attributes/interner.js';
import type { PathAttributes } from '../../src/bgp/wire/attributes/types.js';
import { Afi, HEADER_LENGTH } from '../../src/bgp/wire/constants.js';
import { checkHeader } from '../../src/bgp/wire/header.js';
import { decodeNlri } from '../../src/bgp/wire/nlri.js';
import { PrefixList } from '../../src/bgp/wire/prefix-list.js';
import type { UpdateContext } from '../../src/bgp/wire/update-context.js';
import { UpdateDecoder } from '../../src/bgp/wire/update-decode.js';
import { ChangeBatch, Rib, type RibPeer } from '../../src/rib/index.js';
import { loadLine, machineLine, median, table } from '../support/report.js';
import { buildTable, encodeTable } from '../throughput/table-stream.js';
import { CTL_INTS, Ctl, RECORD_INTS, type SplitShared } from './receive-split-ring.js';

const CTX: UpdateContext = { as4: true, addPathIpv4: false, addPathIpv6: false, ebgp: true };
/** As the session's inbound path: this many UPDATEs, then a turn of the event loop. */
const PER_TURN = 512;
const RECORDS = 4096;
const COLUMNS = 1 << 16;
/** Kernel clock ticks in /proc/<pid>/task/<tid>/stat (USER_HZ). */
const TICK_MS = 10;

interface Figures {
  readonly wallMs: number;
  readonly mainCpuMs: number;
  readonly processCpuMs: number;
}

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i < 0 ? fallback : Number(process.argv[i + 1]);
}

/** CPU time of the main thread alone (its task id is the process id). */
function mainThreadCpuMs(): number {
  const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

function processCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

async function measure(run: () => Promise<number> | number, expected: number): Promise<Figures> {
  const wall0 = performance.now();
  const main0 = mainThreadCpuMs();
  const cpu0 = processCpuMs();
  const held = await run();
  if (held !== expected) throw new Error(`held ${held} prefixes, expected ${expected}`);
  return {
    wallMs: performance.now() - wall0,
    mainCpuMs: mainThreadCpuMs() - main0,
    processCpuMs: processCpuMs() - cpu0,
  };
}

function freshRib(): { rib: Rib; peer: RibPeer; batch: ChangeBatch } {
  const rib = new Rib({ localAs: 65000, routerId: parseIpv4('198.18.0.9') });
  const peer = rib.addPeer({
    id: 'source',
    kind: 'ebgp',
    asn: 65001,
    routerId: parseIpv4('198.18.0.2'),
    address: '198.18.0.2',
  });
  return { rib, peer, batch: new ChangeBatch() };
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function inline(stream: Uint8Array): Promise<number> {
  const { rib, peer, batch } = freshRib();
  const decoder = new UpdateDecoder(CTX, { interner: new AttrInterner(), reuseLists: true });
  let n = 0;
  for (let at = 0; at < stream.length; ) {
    const length = checkHeader(stream, at);
    rib.applyUpdate(peer, decoder.decode(stream, at + HEADER_LENGTH, at + length));
    batch.reset();
    rib.flushInto(batch);
    at += length;
    if (++n % PER_TURN === 0) await nextTurn();
  }
  return rib.counts(peer, Afi.IPV4).accepted;
}

/** Where each UPDATE's attribute field ends, and its NLRI decoded: the worker's output, made beforehand. */
interface PreSplit {
  readonly offsets: Int32Array;
  readonly attrEnds: Int32Array;
  readonly nlri: PrefixList[];
}

function preSplit(stream: Uint8Array): PreSplit {
  const offsets: number[] = [];
  const attrEnds: number[] = [];
  const nlri: PrefixList[] = [];
  for (let at = 0; at < stream.length; ) {
    const length = checkHeader(stream, at);
    const body = at + HEADER_LENGTH;
    const attrStart = body + 4 + ((stream[body] << 8) | stream[body + 1]);
    const attrEnd = attrStart + ((stream[attrStart - 2] << 8) | stream[attrStart - 1]);
    const list = new PrefixList(Afi.IPV4);
    decodeNlri(stream, attrEnd, at + length, list);
    offsets.push(at);
    attrEnds.push(attrEnd);
    nlri.push(list);
    at += length;
  }
  return { offsets: Int32Array.from(offsets), attrEnds: Int32Array.from(attrEnds), nlri };
}

/** The attributes of an UPDATE without its NLRI: the body cut at the end of the attribute field. */
function decodeAttributes(d: UpdateDecoder, stream: Uint8Array, at: number, attrEnd: number): PathAttributes {
  const attrs = d.decode(stream, at + HEADER_LENGTH, attrEnd).attrs;
  if (!attrs) throw new Error(`UPDATE at ${at} has no attributes`);
  return attrs;
}

async function attrsAndRib(stream: Uint8Array, pre: PreSplit): Promise<number> {
  const { rib, peer, batch } = freshRib();
  const decoder = new UpdateDecoder(CTX, { interner: new AttrInterner(), reuseLists: true });
  for (let i = 0; i < pre.nlri.length; i++) {
    rib.announce(peer, pre.nlri[i], decodeAttributes(decoder, stream, pre.offsets[i], pre.attrEnds[i]));
    batch.reset();
    rib.flushInto(batch);
    if ((i + 1) % PER_TURN === 0) await nextTurn();
  }
  return rib.counts(peer, Afi.IPV4).accepted;
}

async function ribOnly(pre: PreSplit, attrs: readonly PathAttributes[]): Promise<number> {
  const { rib, peer, batch } = freshRib();
  for (let i = 0; i < pre.nlri.length; i++) {
    rib.announce(peer, pre.nlri[i], attrs[i]);
    batch.reset();
    rib.flushInto(batch);
    if ((i + 1) % PER_TURN === 0) await nextTurn();
  }
  return rib.counts(peer, Afi.IPV4).accepted;
}

/** From the build only: a worker thread of Node 20 does not inherit tsx's loader. */
function startWorker(shared: SplitShared): Worker {
  if (import.meta.url.endsWith('.ts')) throw new Error('run the build: node dist/bench/bgp/receive-split.js');
  return new Worker(new URL('./receive-split-worker.js', import.meta.url), { workerData: shared });
}

async function split(table: SharedArrayBuffer): Promise<number> {
  const shared: SplitShared = {
    table,
    records: new SharedArrayBuffer(RECORDS * RECORD_INTS * 4),
    words: new SharedArrayBuffer(COLUMNS * 4),
    lens: new SharedArrayBuffer(COLUMNS),
    ctl: new SharedArrayBuffer(CTL_INTS * 4),
  };
  const stream = new Uint8Array(table);
  const records = new Int32Array(shared.records);
  const ctl = new Int32Array(shared.ctl);
  // One list over the whole column ring: the RIB takes [from, to) of it, no copy, no view per UPDATE.
  const columns = new PrefixList(Afi.IPV4);
  columns.words = new Uint32Array(shared.words);
  columns.lens = new Uint8Array(shared.lens);
  columns.count = COLUMNS;
  const { rib, peer, batch } = freshRib();
  const decoder = new UpdateDecoder(CTX, { interner: new AttrInterner(), reuseLists: true });
  const worker = startWorker(shared);
  let wake: (() => void) | null = null;
  let failure: unknown = null;
  worker.on('message', () => {
    const w = wake;
    wake = null;
    w?.();
  });
  worker.on('error', (e) => {
    failure = e;
    wake?.();
  });
  let read = 0;
  let freed = 0;
  try {
    for (;;) {
      if (failure) throw failure;
      const written = Atomics.load(ctl, Ctl.WRITTEN);
      if (read === written) {
        if (Atomics.load(ctl, Ctl.DONE) === 1 && Atomics.load(ctl, Ctl.WRITTEN) === read) break;
        Atomics.store(ctl, Ctl.SLEEPING, 1);
        if (Atomics.load(ctl, Ctl.WRITTEN) !== read || Atomics.load(ctl, Ctl.DONE) === 1) {
          Atomics.store(ctl, Ctl.SLEEPING, 0);
          continue;
        }
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        continue;
      }
      const end = Math.min(written, read + PER_TURN);
      for (; read < end; read++) {
        const r = (read % RECORDS) * RECORD_INTS;
        const first = records[r + 2];
        const attrs = decodeAttributes(decoder, stream, records[r], records[r + 1]);
        rib.announce(peer, columns, attrs, first, first + records[r + 3]);
        freed += records[r + 4];
        batch.reset();
        rib.flushInto(batch);
      }
      Atomics.store(ctl, Ctl.COLUMNS_FREED, freed);
      Atomics.store(ctl, Ctl.READ, read);
      Atomics.notify(ctl, Ctl.READ);
      await nextTurn();
    }
  } finally {
    await worker.terminate();
  }
  return rib.counts(peer, Afi.IPV4).accepted;
}

async function main(): Promise<void> {
  const prefixes = option('--prefixes', 1_000_000);
  const runs = option('--runs', 5);
  console.log(machineLine());
  console.log(`${loadLine()} at start`);
  const bytes = encodeTable(buildTable({ shape: 'skewed', ipv4: prefixes, ipv6: 0, localAs: 65001 }), {
    ipv4: '198.18.0.2',
    ipv6: '2001:db8::2',
  });
  const shared = new SharedArrayBuffer(bytes.length);
  const stream = new Uint8Array(shared);
  stream.set(bytes);
  const pre = preSplit(stream);
  const once = new UpdateDecoder(CTX, { interner: new AttrInterner() });
  const attrs = pre.nlri.map((_, i) => decodeAttributes(once, stream, pre.offsets[i], pre.attrEnds[i]));
  console.log(`${prefixes} IPv4 prefixes in ${pre.nlri.length} UPDATEs, ${runs} runs of each, alternating`);
  const modes: [string, () => Promise<number>][] = [
    ['inline', () => inline(stream)],
    ['split (worker)', () => split(shared)],
    ['attrs+rib', () => attrsAndRib(stream, pre)],
    ['rib', () => ribOnly(pre, attrs)],
  ];
  const figures = new Map<string, Figures[]>(modes.map(([name]) => [name, []]));
  for (let r = 0; r < runs; r++) {
    for (const [name, run] of modes) figures.get(name)!.push(await measure(run, prefixes));
  }
  const inlineMain = median(figures.get('inline')!.map((f) => f.mainCpuMs));
  const rows = [['mode', 'wall ms', 'main-thread CPU ms', 'min', 'vs inline', 'process CPU ms']];
  for (const [name, fs] of figures) {
    const main = median(fs.map((f) => f.mainCpuMs));
    rows.push([
      name,
      median(fs.map((f) => f.wallMs)).toFixed(0),
      main.toFixed(0),
      Math.min(...fs.map((f) => f.mainCpuMs)).toFixed(0),
      (main / inlineMain).toFixed(2),
      median(fs.map((f) => f.processCpuMs)).toFixed(0),
    ]);
  }
  console.log(`medians:\n${table(rows)}`);
  console.log(`${loadLine()} at end`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
