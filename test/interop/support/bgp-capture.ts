/**
 * What went over the wire, independent of both ends: dumpcap captures TCP port 179 on an
 * interface of a lab namespace; tshark's BGP dissector decodes the capture afterwards, one
 * record per UPDATE with the prefixes it announces and withdraws (IPv4 NLRI and withdrawn
 * routes, RFC 4760 MP_REACH/MP_UNREACH for IPv6) and its next hop.
 */
import { existsSync, readFileSync } from 'node:fs';
import {
  isRunning,
  type ProcessRecord,
  run,
  spawnDetached,
  stopProcesses,
} from '../../../frr-interop/lab/index.js';

const START_MS = 10_000;
/**
 * libpcap hands packets to dumpcap in blocks, after at most its read timeout (250 ms in
 * dumpcap), and dumpcap does not drain the last block when signalled: wait this long first.
 */
const DRAIN_MS = 600;
const DECODE_MS = 60_000;

/** One BGP UPDATE as tshark decoded it. */
export interface CapturedUpdate {
  /** Capture time, seconds since the epoch. */
  readonly time: number;
  readonly src: string;
  readonly dst: string;
  readonly announced: readonly string[];
  readonly withdrawn: readonly string[];
  /** NEXT_HOP (IPv4) or the first MP_REACH next hop (IPv6), when the UPDATE announces. */
  readonly nextHop?: string;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
/** tshark's JSON (with --no-duplicate-keys) gives one value bare and repeated values as an array. */
const many = (v: unknown): unknown[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
/** Prefix subtrees are keyed by the prefix text, e.g. "198.18.64.100/32". */
const prefixKeys = (v: unknown): string[] =>
  many(v).flatMap((o) => (isObject(o) ? Object.keys(o).filter((k) => k.includes('/')) : []));

const ATTR = 'bgp.update.path_attribute';

function decodeUpdate(bgp: Json, time: number, src: string, dst: string): CapturedUpdate {
  const announced = prefixKeys(bgp['bgp.update.nlri']);
  const withdrawn = prefixKeys(bgp['bgp.update.withdrawn_routes']);
  let nextHop: string | undefined;
  const attrs = isObject(bgp['bgp.update.path_attributes'])
    ? many((bgp['bgp.update.path_attributes'] as Json)[ATTR])
    : [];
  for (const a of attrs) {
    if (!isObject(a)) continue;
    nextHop ??= str(a[`${ATTR}.next_hop`]);
    const reach = a[`${ATTR}.mp_reach_nlri`];
    if (reach !== undefined) {
      announced.push(...prefixKeys(reach));
      const tree = a[`${ATTR}.mp_reach_nlri.next_hop_tree`];
      const v6 = isObject(tree) ? many(tree[`${ATTR}.mp_reach_nlri.next_hop.ipv6`]) : [];
      const v4 = isObject(tree) ? many(tree[`${ATTR}.mp_reach_nlri.next_hop.ipv4`]) : [];
      nextHop = str(v6[0]) ?? str(v4[0]) ?? nextHop;
    }
    withdrawn.push(...prefixKeys(a[`${ATTR}.mp_unreach_nlri`]));
  }
  return { time, src, dst, announced, withdrawn, ...(nextHop !== undefined && { nextHop }) };
}

/** Every UPDATE in a capture file, in capture order. */
export async function decodeUpdates(file: string): Promise<CapturedUpdate[]> {
  const out = await run(
    [
      'tshark',
      '-r',
      file,
      '-n',
      '-Y',
      'bgp.type == 2',
      '-T',
      'json',
      '--no-duplicate-keys',
      '-J',
      'frame ip ipv6 bgp',
    ],
    { timeoutMs: DECODE_MS },
  );
  const packets = JSON.parse(out.trim() === '' ? '[]' : out) as { _source: { layers: Json } }[];
  const updates: CapturedUpdate[] = [];
  for (const p of packets) {
    const layers = p._source.layers;
    const frame = isObject(layers.frame) ? layers.frame : {};
    const ip = isObject(layers.ip) ? layers.ip : isObject(layers.ipv6) ? layers.ipv6 : {};
    const time = Number(str(frame['frame.time_epoch']) ?? 'NaN');
    const src = str(ip['ip.src']) ?? str(ip['ipv6.src']) ?? '';
    const dst = str(ip['ip.dst']) ?? str(ip['ipv6.dst']) ?? '';
    for (const bgp of many(layers.bgp)) {
      if (isObject(bgp) && str(bgp['bgp.type']) === '2') updates.push(decodeUpdate(bgp, time, src, dst));
    }
  }
  return updates;
}

/** A running dumpcap; `stop()` ends it and decodes what it caught. */
export class Capture {
  readonly file: string;
  readonly #record: ProcessRecord;
  readonly #log: string;

  private constructor(file: string, record: ProcessRecord, log: string) {
    this.file = file;
    this.#record = record;
    this.#log = log;
  }

  /** Starts dumpcap on `ifname` in `ns`; resolves once it is capturing. `track` records its PID. */
  static async start(
    ns: string,
    ifname: string,
    file: string,
    track: (r: ProcessRecord) => void,
  ): Promise<Capture> {
    const log = `${file}.log`;
    const p = spawnDetached(
      ['ip', 'netns', 'exec', ns, 'dumpcap', '-q', '-i', ifname, '-f', 'tcp port 179', '-w', file],
      'dumpcap',
      log,
    );
    track(p.record);
    const c = new Capture(file, p.record, log);
    const deadline = Date.now() + START_MS;
    while (!(existsSync(log) && readFileSync(log, 'utf8').includes('Capturing on'))) {
      if (!isRunning(p.record)) throw new Error(`dumpcap exited: ${readFileSync(log, 'utf8')}`);
      if (Date.now() > deadline) throw new Error(`dumpcap not capturing within ${START_MS} ms`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return c;
  }

  /** Stops dumpcap (SIGTERM flushes the file) and returns the UPDATEs it caught. */
  async stop(): Promise<CapturedUpdate[]> {
    await new Promise((r) => setTimeout(r, DRAIN_MS));
    await stopProcesses([this.#record]);
    if (!existsSync(this.file)) throw new Error(`no capture file: ${readFileSync(this.#log, 'utf8')}`);
    return decodeUpdates(this.file);
  }
}

/** UPDATEs that announce or withdraw `prefix`, as `announce <next hop>` / `withdraw`, in order. */
export function historyOf(updates: readonly CapturedUpdate[], prefix: string): string[] {
  const out: string[] = [];
  for (const u of updates) {
    if (u.withdrawn.includes(prefix)) out.push('withdraw');
    if (u.announced.includes(prefix)) out.push(`announce ${u.nextHop ?? '?'}`);
  }
  return out;
}
