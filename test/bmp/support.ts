/* A session as the BMP station reads it, over plain maps: for the station's unit tests. */
import { parseIpv4 } from '../../src/address/index.js';
import {
  AsPathSegmentType,
  DEFAULT_MESSAGE_CONTEXT,
  decodeMessage,
  encodeMessageBytes,
  makeAttributes,
  type PathAttributes,
  PrefixList,
  type UpdateMessage,
} from '../../src/bgp/wire/index.js';
import type { AcceptedPath, BmpMessage, MonitoredSession } from '../../src/bmp/index.js';

export const attrs = (med?: number): PathAttributes =>
  makeAttributes({
    origin: 0,
    asPath: [{ type: AsPathSegmentType.AS_SEQUENCE, asns: [65001] }],
    nextHop: parseIpv4('198.18.0.2'),
    ...(med !== undefined && { med }),
  });

const OPEN = new Uint8Array(Buffer.from(`${'ff'.repeat(16)}001d0104fde9005ac612000200`, 'hex'));

/** IPv4 routes by "a.b.c.d/len", before and after policy. */
export class FakeSession implements MonitoredSession {
  readonly pre = new Map<string, PathAttributes>();
  readonly post = new Map<string, PathAttributes>();
  readonly peer;

  constructor(name = 'frr4', address = '198.18.0.2') {
    this.peer = {
      name,
      address,
      port: 179,
      localAddress: '198.18.0.1',
      localPort: 40000,
      asn: 65001,
      bgpId: 0xc6120002,
      context: DEFAULT_MESSAGE_CONTEXT,
      sentOpen: OPEN,
      receivedOpen: OPEN,
      families: [1] as const,
      upAt: 1_800_000_000_000,
    };
  }

  preRoutes(visit: Parameters<MonitoredSession['preRoutes']>[0]): void {
    for (const [p, a] of this.pre) visitText(p, a, visit);
  }

  postRoutes(visit: Parameters<MonitoredSession['postRoutes']>[0]): void {
    for (const [p, a] of this.post) visitText(p, a, visit);
  }

  accepted(_afi: number, words: ArrayLike<number>, off: number, len: number): readonly AcceptedPath[] {
    const w = words[off]!;
    const text = `${w >>> 24}.${(w >>> 16) & 255}.${(w >>> 8) & 255}.${w & 255}/${len}`;
    const a = this.post.get(text);
    return a ? [{ pathId: 0, attrs: a }] : [];
  }

  stats() {
    return [{ type: 7, value: this.pre.size }];
  }
}

function visitText(p: string, a: PathAttributes, visit: Parameters<MonitoredSession['preRoutes']>[0]): void {
  const [addr, len] = p.split('/');
  visit(1, [parseIpv4(addr!)], 0, Number(len), 0, a);
}

/** An UPDATE announcing `prefixes` with `a`, and withdrawing `withdrawn`, decoded as a session gets it. */
export function update(
  prefixes: readonly string[],
  a: PathAttributes,
  withdrawn: readonly string[] = [],
): UpdateMessage {
  const nlri = new PrefixList(1);
  for (const p of prefixes) nlri.add(p.split('/')[0]!, Number(p.split('/')[1]));
  const w = new PrefixList(1);
  for (const p of withdrawn) w.add(p.split('/')[0]!, Number(p.split('/')[1]));
  const bytes = encodeMessageBytes({ type: 'update', withdrawn: w, attrs: prefixes.length ? a : null, nlri });
  return decodeMessage(bytes) as UpdateMessage;
}

/** The prefixes a Route Monitoring message announces and withdraws (IPv4 unicast). */
export function routesOf(m: BmpMessage): { announced: string[]; withdrawn: string[]; med?: number } {
  if (m.type !== 'route-monitoring') throw new Error(`not route monitoring: ${m.type}`);
  const u = decodeMessage(m.update) as UpdateMessage;
  const text = (l: PrefixList) => l.toArray().map((p) => `${p.addr}/${p.len}`);
  return {
    announced: [...text(u.nlri), ...(u.mpNlri ? text(u.mpNlri) : [])],
    withdrawn: [...text(u.withdrawn), ...(u.mpUnreach ? text(u.mpUnreach.withdrawn) : [])],
    ...(u.attrs?.med !== undefined && { med: u.attrs.med }),
  };
}
