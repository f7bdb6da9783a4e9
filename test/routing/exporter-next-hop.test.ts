import { describe, expect, it } from 'vitest';
import { addressBytes, formatAddress, formatIpv4, parseIpv4 } from '../../src/address/index.js';
import { makeAttributes, type PathAttributes } from '../../src/bgp/wire/attributes/types.js';
import { Afi, type AfiCode, Origin } from '../../src/bgp/wire/constants.js';
import { Framer } from '../../src/bgp/wire/framer.js';
import { decodeMessage } from '../../src/bgp/wire/message.js';
import type { UpdateMessage } from '../../src/bgp/wire/update.js';
import { UpdatePacker } from '../../src/bgp/wire/update-packer.js';
import { Writer } from '../../src/bgp/wire/writer.js';
import { AcceptAll, compileLists, compilePolicy, type RouteFilter } from '../../src/policy/index.js';
import {
  type ExportTarget,
  type PeerKind,
  parsePrefix,
  Rib,
  RibDefaults,
  UpdateGroups,
} from '../../src/rib/index.js';
import { Exporter, nextHopPlan } from '../../src/routing/index.js';
import { v4, v6 } from '../rib/routes.js';

// Central OVN mode across a routed hop: routes whose next hop is a chassis (originated, as the
// `ovn` origin does, or learned from another peer) go to a peer whose export policy keeps the
// next hop (`next_hop: unchanged`), or to a peer with `next_hop_unchanged`. The update group
// exports once for many peers; what the peer finally gets is checked here on decoded UPDATEs.

const LOCAL_AS = 65320;
const OUR_V4 = '198.18.160.1';
const OUR_V6 = '2001:db8:160::1';
const CHASSIS = { v4: '198.18.140.5', v6: '2001:db8:140::5' };
/** The next hop of a learned route, off the chassis subnets. */
const LEARNED = { v4: '198.18.180.7', v6: '2001:db8:180::7' };
const SET_BY_POLICY = { v4: '198.18.150.9', v6: '2001:db8:150::9' };
const CTX = {
  update: { as4: true, addPathIpv4: false, addPathIpv6: false, ebgp: true },
  maxLength: 4096,
  enhancedRouteRefresh: false,
};

const LISTS = compileLists({
  prefixLists: [
    { name: 'chassis4', entries: [{ action: 'permit', prefix: '198.18.140.0/23', le: 32 }] },
    { name: 'chassis6', entries: [{ action: 'permit', prefix: '2001:db8:140::/64', le: 128 }] },
  ],
});
const POLICIES = {
  /** Accepts everything, adds a community: evaluated per route, never looks at the next hop. */
  tag: compilePolicy(
    { name: 'tag', statements: [{ set: { communities: { add: ['65320:1'] } }, action: 'accept' }] },
    LISTS,
  ),
  unchanged: compilePolicy(
    { name: 'unchanged', statements: [{ set: { nextHop: 'unchanged' }, action: 'accept' }] },
    LISTS,
  ),
  self: compilePolicy({ name: 'self', statements: [{ set: { nextHop: 'self' }, action: 'accept' }] }, LISTS),
  address: compilePolicy(
    {
      name: 'address',
      statements: [
        { match: { family: 'ipv4' }, set: { nextHop: SET_BY_POLICY.v4 }, action: 'accept' },
        { match: { family: 'ipv6' }, set: { nextHop: SET_BY_POLICY.v6 }, action: 'accept' },
      ],
    },
    LISTS,
  ),
  /** Keeps chassis next hops only: the match sees the route's own next hop. */
  chassis: compilePolicy(
    {
      name: 'chassis',
      statements: [
        { match: { nextHop: 'chassis4' }, set: { nextHop: 'unchanged' }, action: 'accept' },
        { match: { nextHop: 'chassis6' }, set: { nextHop: 'unchanged' }, action: 'accept' },
      ],
      defaultAction: 'accept',
    },
    LISTS,
  ),
};
type PolicyName = keyof typeof POLICIES | 'accept-all';

/** The routes: prefix → its own next hop (undefined: originated without one, "self"). */
const ROUTES: Record<string, string | undefined> = {
  '198.18.170.0/24': LEARNED.v4,
  '2001:db8:170::/48': LEARNED.v6,
  '198.18.171.10/32': CHASSIS.v4,
  '2001:db8:171::10/128': CHASSIS.v6,
  '198.18.172.0/24': undefined,
  '2001:db8:172::/48': undefined,
};

function originated(nextHop: string | undefined, afi: AfiCode): PathAttributes {
  if (nextHop === undefined) return makeAttributes({ origin: Origin.IGP, asPath: [] });
  if (afi === Afi.IPV4)
    return makeAttributes({ origin: Origin.IGP, asPath: [], nextHop: parseIpv4(nextHop) });
  return makeAttributes({
    origin: Origin.IGP,
    asPath: [],
    mpReach: { afi: Afi.IPV6, safi: 1, nextHop: addressBytes(nextHop), reserved: 0 },
  });
}

interface Setup {
  readonly kind: PeerKind;
  readonly policy: PolicyName;
  readonly shared?: boolean;
  readonly perPeer?: boolean;
  readonly localIpv6?: boolean;
}

/** A RIB with routes from peer `a` and the `ovn`-like local origin, and one peer fed through its update group. */
function world(s: Setup) {
  const rib = new Rib({ localAs: LOCAL_AS, routerId: parseIpv4('198.18.0.1') });
  const groups = new UpdateGroups({
    localAs: LOCAL_AS,
    clusterId: rib.clusterId,
    defaultLocalPref: RibDefaults.LOCAL_PREF,
  });
  const a = rib.addPeer({ id: 'a', kind: 'ebgp', asn: 65001, routerId: 2, address: '198.18.161.2' });
  const target: ExportTarget = {
    kind: s.kind,
    localIpv4: parseIpv4(OUR_V4),
    ...(s.localIpv6 !== false && { localIpv6: addressBytes(OUR_V6) }),
    ...(s.shared && { sharedSubnets: [parsePrefix('198.18.140.0/23'), parsePrefix('2001:db8:140::/64')] }),
    ...(s.perPeer && { nextHopUnchanged: true }),
  };
  const filter: RouteFilter = s.policy === 'accept-all' ? new AcceptAll('all') : POLICIES[s.policy];
  const exporter = new Exporter(filter, {
    packer: new UpdatePacker({ as4: true }),
    families: new Set([Afi.IPV4, Afi.IPV6]),
    addPathSend: [false, false],
    localIpv4: target.localIpv4,
    localIpv6: target.localIpv6,
    ebgp: s.kind === 'ebgp',
  });
  const join = () => {
    const plan = nextHopPlan(target, exporter.filter);
    exporter.nextHopRule = plan.rule;
    const out = groups.join({ id: 'peer', routerId: 3, target: plan.group }, rib);
    exporter.track(out);
    return out;
  };
  let out = join();
  const peer = new Map<string, PathAttributes>();
  const withdrawals: string[] = [];
  const w = new Writer();
  const pump = () => {
    groups.apply(rib.flush());
    for (;;) {
      const work = out.take(100);
      w.reset();
      if (work.count > 0) exporter.encode(work, w);
      if (exporter.resyncing && out.pending === 0) exporter.finishResync(w);
      const framer = new Framer();
      framer.push(w.finish());
      for (let m = framer.next(); m; m = framer.next()) {
        const u = decodeMessage(m.slice(), CTX) as UpdateMessage;
        for (const list of [u.withdrawn, u.mpUnreach?.withdrawn])
          for (const p of list?.toArray() ?? []) {
            withdrawals.push(`${p.addr}/${p.len}`);
            peer.delete(`${p.addr}/${p.len}`);
          }
        for (const list of [u.nlri, u.mpNlri])
          for (const p of list?.toArray() ?? []) peer.set(`${p.addr}/${p.len}`, u.attrs!);
      }
      if (work.count === 0) return;
    }
  };
  const announce = (prefix: string, nextHop: string | undefined) => {
    const six = prefix.includes(':');
    const afi = six ? Afi.IPV6 : Afi.IPV4;
    if (prefix.startsWith('198.18.170.') || prefix.startsWith('2001:db8:170:')) {
      const attrs = originated(nextHop, afi);
      rib.announce(a, six ? v6(prefix) : v4(prefix), { ...attrs, asPath: [{ type: 2, asns: [65001] }] });
    } else rib.originate(parsePrefix(prefix), originated(nextHop, afi));
  };
  for (const [prefix, nh] of Object.entries(ROUTES)) announce(prefix, nh);
  pump();
  return {
    peer,
    withdrawals,
    exporter,
    pump,
    announce,
    /** A new export policy, as a reload's soft out does it. */
    setFilter(f: RouteFilter) {
      exporter.filter = f;
      exporter.beginResync();
      groups.leave('peer');
      out = join();
    },
    nextHop(prefix: string): string | undefined {
      const got = peer.get(prefix);
      if (!got) return undefined;
      if (got.mpReach) return formatAddress(got.mpReach.nextHop.subarray(0, 16));
      return got.nextHop === undefined ? undefined : formatIpv4(got.nextHop);
    },
  };
}

/**
 * What the peer should get, in words: an address the policy set; ours for `self`; the route's
 * own for `unchanged` (ours when it has none), for a policy that keeps chassis next hops when
 * it is one, and by default when the peer keeps next hops; otherwise RFC 4271 5.1.3: an iBGP
 * peer gets the route's own, an eBGP peer ours unless the chassis is on a subnet we share.
 */
function expected(s: Setup, prefix: string): string {
  const six = prefix.includes(':');
  const own = ROUTES[prefix];
  const ours = six ? OUR_V6 : OUR_V4;
  if (s.policy === 'address') return six ? SET_BY_POLICY.v6 : SET_BY_POLICY.v4;
  if (s.policy === 'self' || own === undefined) return ours;
  if (s.policy === 'unchanged') return own;
  if (s.policy === 'chassis' && (own === CHASSIS.v4 || own === CHASSIS.v6)) return own;
  if (s.perPeer || s.kind !== 'ebgp') return own;
  const onShared = own === CHASSIS.v4 || own === CHASSIS.v6;
  return s.shared && onShared ? own : ours;
}

describe('next hops towards a peer: every combination of peer, family, subnet, policy and option', () => {
  const kinds: PeerKind[] = ['ebgp', 'ibgp-nonclient'];
  const policies: PolicyName[] = ['accept-all', 'tag', 'unchanged', 'self', 'address', 'chassis'];
  for (const kind of kinds)
    for (const policy of policies)
      for (const shared of [false, true])
        for (const perPeer of [false, true]) {
          const s: Setup = { kind, policy, shared, perPeer };
          it(`${kind}, policy ${policy}${shared ? ', chassis subnet shared' : ''}${perPeer ? ', next_hop_unchanged' : ''}`, () => {
            const x = world(s);
            const got = Object.fromEntries(Object.keys(ROUTES).map((p) => [p, x.nextHop(p)]));
            const want = Object.fromEntries(Object.keys(ROUTES).map((p) => [p, expected(s, p)]));
            expect(got).toEqual(want);
          });
        }
});

describe('the exporter deciding next hops after the policy', () => {
  it('is used only for a policy that reads the next hop, and not when the peer keeps them anyway', () => {
    const t: ExportTarget = { kind: 'ebgp', localIpv4: parseIpv4(OUR_V4) };
    expect(nextHopPlan(t, POLICIES.tag)).toEqual({ group: t, rule: null });
    expect(nextHopPlan(t, new AcceptAll('all'))).toEqual({ group: t, rule: null });
    expect(nextHopPlan(t, POLICIES.unchanged)).toEqual({ group: { ...t, nextHopUnchanged: true }, rule: t });
    expect(nextHopPlan(t, POLICIES.chassis).rule).toBe(t);
    const keeps = { ...t, nextHopUnchanged: true };
    expect(nextHopPlan(keeps, POLICIES.unchanged)).toEqual({ group: keeps, rule: null });
  });

  it('never replaces an address the policy set, beside a statement that keeps next hops', () => {
    const mixed = compilePolicy(
      {
        name: 'mixed',
        statements: [
          { match: { nextHop: 'chassis4' }, set: { nextHop: 'unchanged' }, action: 'accept' },
          { match: { family: 'ipv4' }, set: { nextHop: SET_BY_POLICY.v4 }, action: 'accept' },
        ],
        defaultAction: 'accept',
      },
      LISTS,
    );
    const x = world({ kind: 'ebgp', policy: 'tag' });
    x.setFilter(mixed);
    x.pump();
    expect(x.nextHop('198.18.171.10/32')).toBe(CHASSIS.v4);
    expect(x.nextHop('198.18.170.0/24')).toBe(SET_BY_POLICY.v4);
    expect(x.nextHop('198.18.172.0/24')).toBe(SET_BY_POLICY.v4);
    expect(x.nextHop('2001:db8:171::10/128')).toBe(OUR_V6);
  });

  it('follows a chassis move with one replacing UPDATE, no withdrawal', () => {
    for (const policy of ['unchanged', 'tag'] as const) {
      const x = world({ kind: 'ebgp', policy });
      x.announce('198.18.171.10/32', '198.18.140.99');
      x.pump();
      expect(x.nextHop('198.18.171.10/32')).toBe(policy === 'unchanged' ? '198.18.140.99' : OUR_V4);
      expect(x.withdrawals).toEqual([]);
    }
  });

  it('a reload from a tagging policy to one that keeps next hops re-sends them, and back', () => {
    const x = world({ kind: 'ebgp', policy: 'tag' });
    expect(x.nextHop('198.18.171.10/32')).toBe(OUR_V4);
    x.setFilter(POLICIES.unchanged);
    x.pump();
    expect(x.nextHop('198.18.171.10/32')).toBe(CHASSIS.v4);
    expect(x.nextHop('2001:db8:170::/48')).toBe(LEARNED.v6);
    expect(x.nextHop('198.18.172.0/24')).toBe(OUR_V4);
    x.setFilter(POLICIES.tag);
    x.pump();
    expect(x.nextHop('198.18.171.10/32')).toBe(OUR_V4);
    expect(x.peer.size).toBe(Object.keys(ROUTES).length);
    expect(x.withdrawals).toEqual([]);
  });

  it('a route the rule cannot send (no IPv6 address of ours) is not sent, or withdrawn', () => {
    // Kept, the chassis IPv6 next hop can go; by the rule it would need ours, which we lack.
    const x = world({ kind: 'ebgp', policy: 'chassis', localIpv6: false });
    expect(x.nextHop('2001:db8:171::10/128')).toBe(CHASSIS.v6);
    expect(x.peer.has('2001:db8:172::/48')).toBe(false);
    // The chassis moves off the listed subnet: the policy leaves the next hop to the rule.
    x.announce('2001:db8:171::10/128', '2001:db8:99::1');
    x.pump();
    expect(x.peer.has('2001:db8:171::10/128')).toBe(false);
    expect(x.withdrawals).toEqual(['2001:db8:171::10/128']);
  });
});
