import { describe, expect, it } from 'vitest';
import { parseIpv4 } from '../../src/address/index.js';
import { makeAttributes, type PathAttributes } from '../../src/bgp/wire/attributes/types.js';
import { Afi, Origin } from '../../src/bgp/wire/constants.js';
import { Framer } from '../../src/bgp/wire/framer.js';
import { decodeMessage } from '../../src/bgp/wire/message.js';
import type { UpdateMessage } from '../../src/bgp/wire/update.js';
import { UpdatePacker } from '../../src/bgp/wire/update-packer.js';
import { Writer } from '../../src/bgp/wire/writer.js';
import { AcceptAll, compileLists, compilePolicy, type RouteFilter } from '../../src/policy/index.js';
import { parsePrefix, Rib, RibDefaults, UpdateGroups } from '../../src/rib/index.js';
import { Exporter } from '../../src/routing/index.js';

// The exporter between an add-path Adj-RIB-Out and the wire: path ids go out as the
// Adj-RIB-Out gave them, a policy's record of what was sent is kept per (prefix, path id),
// and a resync withdraws only the ids the peer has and was not sent again.

const LOCAL_AS = 65000;
const OUR_IPV4 = parseIpv4('198.18.1.1');
const PREFIX = '198.18.10.0/24';
const CTX = {
  update: { as4: true, addPathIpv4: true, addPathIpv6: false, ebgp: true },
  maxLength: 4096,
  enhancedRouteRefresh: false,
};
const tag = compilePolicy(
  { name: 'tag', statements: [{ set: { communities: { add: ['65000:9'] } }, action: 'accept' }] },
  compileLists({}),
);

function world(filter: RouteFilter) {
  const rib = new Rib({ localAs: LOCAL_AS, routerId: parseIpv4('198.18.0.1') });
  const groups = new UpdateGroups({
    localAs: LOCAL_AS,
    clusterId: rib.clusterId,
    defaultLocalPref: RibDefaults.LOCAL_PREF,
  });
  const target = { kind: 'ebgp' as const, localIpv4: OUR_IPV4 };
  const peerSpec = {
    id: 'peer',
    routerId: 2,
    target,
    addPath: { select: 'all' as const, families: [true, false] as [boolean, boolean] },
  };
  let out = groups.join(peerSpec, rib);
  const exporter = new Exporter(filter, {
    packer: new UpdatePacker({ as4: true }),
    families: new Set([Afi.IPV4]),
    addPathSend: [true, false],
    localIpv4: OUR_IPV4,
    localIpv6: undefined,
  });
  exporter.track(out);
  /** What the peer holds: "prefix#id" → MED. */
  const peer = new Map<string, number | undefined>();
  const spurious: string[] = [];
  const w = new Writer();
  const pump = () => {
    groups.apply(rib.flush());
    for (;;) {
      const work = out.take(1);
      w.reset();
      if (work.count > 0) exporter.encode(work, w);
      if (exporter.resyncing && out.pending === 0) exporter.finishResync(w);
      const framer = new Framer();
      framer.push(w.finish());
      for (let m = framer.next(); m; m = framer.next()) {
        const u = decodeMessage(m.slice(), CTX) as UpdateMessage;
        for (const p of u.withdrawn?.toArray() ?? []) {
          const key = `${p.addr}/${p.len}#${p.pathId}`;
          if (!peer.delete(key)) spurious.push(key);
        }
        for (const p of u.nlri?.toArray() ?? []) peer.set(`${p.addr}/${p.len}#${p.pathId}`, u.attrs!.med);
      }
      if (work.count === 0) break;
    }
  };
  const rejoin = () => {
    exporter.beginResync();
    groups.leave('peer');
    out = groups.join(peerSpec, rib);
    exporter.track(out);
  };
  return { rib, exporter, peer, spurious, pump, rejoin };
}

const local = (med: number): PathAttributes => makeAttributes({ origin: Origin.IGP, asPath: [], med });

describe.each([
  ['an accept-all policy', new AcceptAll('all')],
  ['a policy that changes attributes', tag],
])('Exporter with add-path send, %s', (_name, filter) => {
  it('sends each path under its id, withdraws one by its id, and a resync leaves the peer as it was', () => {
    const x = world(filter);
    x.rib.originate(parsePrefix(PREFIX), local(1), 1);
    x.rib.originate(parsePrefix(PREFIX), local(2), 2);
    x.pump();
    expect([...x.peer.values()].sort()).toEqual([1, 2]);
    const idOfMed2 = [...x.peer].find(([, med]) => med === 2)![0];
    x.rib.unoriginate(parsePrefix(PREFIX), 1);
    x.pump();
    expect([...x.peer]).toEqual([[idOfMed2, 2]]);
    expect(x.exporter.advertised.lookup(parsePrefix(PREFIX))).toHaveLength(1);
    x.rejoin();
    x.pump();
    expect([...x.peer.values()]).toEqual([2]);
    expect(x.spurious).toEqual([]);
  });
});
