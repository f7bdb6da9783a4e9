import b from 'benny';
import { AttrInterner } from '../../src/bgp/wire/attributes/interner.js';
import { Afi, type AfiCode, HEADER_LENGTH } from '../../src/bgp/wire/constants.js';
import { checkHeader } from '../../src/bgp/wire/header.js';
import type { UpdateContext } from '../../src/bgp/wire/update-context.js';
import { UpdateDecoder } from '../../src/bgp/wire/update-decode.js';
import { UpdatePacker } from '../../src/bgp/wire/update-packer.js';
import { Writer } from '../../src/bgp/wire/writer.js';
import { generateTable, type Table } from '../gen/full-table.js';
import { rate, table } from '../support/report.js';

const CTX: UpdateContext = { as4: true, addPathIpv4: false, addPathIpv6: false, ebgp: true };

/** Adj-RIB-Out's job: encode each attribute set once, pack its prefixes into 4096-byte UPDATEs. */
function encodeTable(t: Table, packer: UpdatePacker, w: Writer): number {
  w.reset();
  let messages = 0;
  for (const g of t.groups) messages += packer.announce(w, packer.prepare(g.attrs), t.prefixes, g.from, g.to);
  return messages;
}

/** The receive path: frame, decode, intern the attributes, prefixes into reused typed arrays. */
function decodeStream(stream: Uint8Array): number {
  const decoder = new UpdateDecoder(CTX, { interner: new AttrInterner(), reuseLists: true });
  let prefixes = 0;
  for (let pos = 0; pos < stream.length; ) {
    const len = checkHeader(stream, pos);
    const u = decoder.decode(stream, pos + HEADER_LENGTH, pos + len);
    prefixes += u.nlri.count + (u.mpNlri ? u.mpNlri.count : 0);
    pos += len;
  }
  return prefixes;
}

export interface CodecFigure {
  readonly name: string;
  readonly prefixesPerSecond: number;
  readonly margin: number;
  readonly samples: number;
}

/** Decode and encode of a generated full table: 1M IPv4 and 200k IPv6 prefixes. */
export async function runCodecBench(): Promise<CodecFigure[]> {
  const workloads: [string, AfiCode, number][] = [
    ['IPv4 1M', Afi.IPV4, 1_000_000],
    ['IPv6 200k', Afi.IPV6, 200_000],
  ];
  const figures: CodecFigure[] = [];
  for (const [label, afi, count] of workloads) {
    const t = generateTable({ afi, prefixes: count });
    const packer = new UpdatePacker(CTX);
    const w = new Writer(1 << 24);
    const messages = encodeTable(t, packer, w);
    const stream = w.finish();
    console.log(`${label}: ${t.groups.length} attribute sets, ${messages} UPDATEs, ${stream.length} bytes`);
    await b.suite(
      `codec ${label}`,
      b.add(`encode ${label}`, () => {
        encodeTable(t, packer, w);
      }),
      b.add(`decode ${label}`, () => {
        if (decodeStream(stream) !== count) throw new Error('decode lost prefixes');
      }),
      b.configure({ cases: { minSamples: 10, maxTime: 4 } }),
      b.complete((summary) => {
        for (const r of summary.results) {
          // benny rounds ops/s to whole numbers and an op here is a whole table: use the mean time.
          figures.push({
            name: r.name,
            prefixesPerSecond: count / r.details.mean,
            margin: r.margin,
            samples: r.samples,
          });
        }
      }),
    );
  }
  return figures;
}

export function formatCodecFigures(figures: readonly CodecFigure[]): string {
  const target = (name: string) => (name.startsWith('decode') ? 10e6 : 5e6);
  return table([
    ['case', 'prefixes/s', '± %', 'samples', 'target'],
    ...figures.map((f) => [
      f.name,
      rate(f.prefixesPerSecond),
      f.margin.toFixed(1),
      String(f.samples),
      `${rate(target(f.name))}${f.prefixesPerSecond >= target(f.name) ? ' met' : ' MISSED'}`,
    ]),
  ]);
}
