import { addressBytes, parseIpv4 } from '../../src/address/index.js';
import type { PathAttributes } from '../../src/bgp/wire/attributes/types.js';
import { Afi, type AfiCode } from '../../src/bgp/wire/constants.js';
import { PrefixList } from '../../src/bgp/wire/prefix-list.js';
import { encodeUpdate, type UpdateInput, type UpdateMessage } from '../../src/bgp/wire/update.js';
import type { UpdateContext } from '../../src/bgp/wire/update-context.js';
import { UpdateDecoder } from '../../src/bgp/wire/update-decode.js';
import { Writer } from '../../src/bgp/wire/writer.js';
import type { RibPeerInit, RouteChange } from '../../src/rib/index.js';

export const LOCAL_AS = 65000;
export const ROUTER_ID = parseIpv4('198.18.0.1');

export const EBGP_A: RibPeerInit = {
  id: 'a',
  kind: 'ebgp',
  asn: 65001,
  routerId: parseIpv4('198.18.1.1'),
  address: '198.18.0.2',
};
export const EBGP_B: RibPeerInit = {
  id: 'b',
  kind: 'ebgp',
  asn: 65002,
  routerId: parseIpv4('198.18.1.2'),
  address: '198.18.0.3',
};
export const EBGP_A2: RibPeerInit = {
  id: 'a2',
  kind: 'ebgp',
  asn: 65001,
  routerId: parseIpv4('198.18.1.3'),
  address: '198.18.0.4',
};
export const CLIENT: RibPeerInit = {
  id: 'c',
  kind: 'ibgp-client',
  asn: LOCAL_AS,
  routerId: parseIpv4('198.18.1.4'),
  address: '198.18.0.5',
};
export const NONCLIENT: RibPeerInit = {
  id: 'n',
  kind: 'ibgp-nonclient',
  asn: LOCAL_AS,
  routerId: parseIpv4('198.18.1.5'),
  address: '198.18.0.6',
};

/** IPv4 prefixes from text ("198.18.10.0/24"), optionally with path ids. */
export function v4(...prefixes: string[]): PrefixList {
  return PrefixList.from(Afi.IPV4, prefixes.map(split));
}

export function v6(...prefixes: string[]): PrefixList {
  return PrefixList.from(Afi.IPV6, prefixes.map(split));
}

export function withPathIds(afi: AfiCode, prefixes: readonly [string, number][]): PrefixList {
  return PrefixList.from(
    afi,
    prefixes.map(([p, pathId]) => ({ ...split(p), pathId })),
    true,
  );
}

function split(text: string): { addr: string; len: number } {
  const [addr, len] = text.split('/');
  return { addr, len: Number(len) };
}

/** IPv4 unicast attributes: AS_PATH of one sequence, NEXT_HOP. */
export function attrs(asns: number[], extra: PathAttributes = {}, nextHop = '198.18.0.2'): PathAttributes {
  return { origin: 0, asPath: asns.length ? [{ type: 2, asns }] : [], nextHop: parseIpv4(nextHop), ...extra };
}

/** IPv6 unicast attributes: MP_REACH_NLRI next hop. */
export function attrs6(asns: number[], extra: PathAttributes = {}, nextHop = '2001:db8::2'): PathAttributes {
  return {
    origin: 0,
    asPath: asns.length ? [{ type: 2, asns }] : [],
    mpReach: { afi: Afi.IPV6, safi: 1, nextHop: addressBytes(nextHop), reserved: 0 },
    ...extra,
  };
}

/** Encodes and decodes an UPDATE, as a session would hand it to the RIB. */
export function wireUpdate(u: UpdateInput, ctx: Partial<UpdateContext> = {}): UpdateMessage {
  const c: UpdateContext = { as4: true, addPathIpv4: false, addPathIpv6: false, ebgp: true, ...ctx };
  const w = new Writer(256);
  encodeUpdate(w, u, c);
  return new UpdateDecoder(c).decode(w.buf, 0, w.pos);
}

/** Changes as short strings for readable assertions: "+198.18.10.0/24 a" / "-198.18.10.0/24 a". */
export function summary(changes: readonly RouteChange[]): string[] {
  return changes.map((c) =>
    c.kind === 'add'
      ? `+${c.prefix} ${c.multipath.map((p) => p.source.id + (p.pathId ? `#${p.pathId}` : '')).join(',')}`
      : `-${c.prefix} ${c.source.id}`,
  );
}
