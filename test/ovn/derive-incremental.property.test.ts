/*
 * After any sequence of row changes, the incremental deriver holds exactly what derivation
 * from scratch gives for the final tables, and the diffs it returned, replayed, reach that
 * same set.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type Advertisement,
  DEFAULT_OVN_DERIVE_CONFIG,
  deriveOvnRoutes,
  type OvnDeriveConfig,
  OvnDeriver,
  type OvnRowChange,
} from '../../src/ovn/index.js';
import { labModel, type Model } from './model.js';

type Step = (m: Model, ids: Record<string, string>) => OvnRowChange[];

const chassisKeys = ['gw1', 'hv1', 'hv2', ''];
const pick = (ids: Record<string, string>, k: string) => (k === '' ? null : ids[k]);

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ port: fc.constantFrom('pbVm1', 'pbPvm', 'pbCr'), to: fc.constantFrom(...chassisKeys) }).map(
    ({ port, to }): Step =>
      (m, ids) => [m.update('sb', 'Port_Binding', ids[port], { chassis: pick(ids, to) })],
  ),
  fc.constantFrom('gw1', 'hv1', 'hv2').map(
    (c): Step =>
      (m, ids) => [
        m.update('sb', 'Chassis', ids[c], {
          other_config: { 'ovn-bgp-speaker-nexthop-ipv4': '198.18.99.1' },
        }),
      ],
  ),
  fc.constantFrom('gw1', 'hv1', 'hv2').map(
    (c): Step =>
      (m, ids) => [m.update('sb', 'Chassis', ids[c], { encaps: [] })],
  ),
  fc.constantFrom('198.18.64.200:80', '198.18.64.101:80', '[2001:db8:64::200]:80').map(
    (vip): Step =>
      (m, ids) => [m.update('nb', 'Load_Balancer', ids.lb1, { vips: { [vip]: '198.19.1.10:80' } })],
  ),
  fc.constant<Step>((m, ids) => [m.update('nb', 'Logical_Switch', ids.tenant1, { load_balancer: [] })]),
  fc.constant<Step>((m, ids) => [m.update('nb', 'Logical_Router', ids.router1, { load_balancer: [] })]),
  fc.constant<Step>((m, ids) => {
    const r = m.get('nb', 'Logical_Router', ids.router1);
    if (!r) return [];
    return [
      m.update('nb', 'Logical_Router', ids.router1, {
        nat: (r.nat as string[]).filter((n) => n !== ids.snat1),
      }),
    ];
  }),
  fc.constant<Step>((m, ids) =>
    m.sb.get('Port_Binding')!.has(ids.pbVm1) ? [m.remove('sb', 'Port_Binding', ids.pbVm1)] : [],
  ),
  fc.constant<Step>((m, ids) => [
    m.update('nb', 'Logical_Router_Port', ids.lrpPublic, { gateway_chassis: [] }),
  ]),
  fc.constant<Step>((m, ids) => [
    m.update('nb', 'Logical_Router', ids.router1, { options: { chassis: 'hv2' } }),
  ]),
  fc.constant<Step>((m, ids) => [m.update('nb', 'Logical_Switch_Port', ids.lnPublic, { type: '' })]),
  fc.constantFrom('198.18.64.60', '2001:db8:64::60').map(
    (ip): Step =>
      (m, ids) => [
        m.update('nb', 'Logical_Switch_Port', ids.pvm, { addresses: [`50:54:00:00:09:01 ${ip}`] }),
      ],
  ),
  fc.constant<Step>((m, ids) => [m.update('nb', 'NAT', ids.fipD, { external_mac: null })]),
  fc.constant<Step>((m, ids) => [m.update('nb', 'Logical_Switch', ids.tenant3, { ports: [] })]),
  fc.constant<Step>((m, ids) => {
    const r = m.get('nb', 'Logical_Router', ids.router1);
    if (!r) return [];
    return [
      m.update('nb', 'Logical_Router', ids.router1, {
        ports: (r.ports as string[]).filter((p) => p !== ids.lrpPublic),
      }),
    ];
  }),
  // A floating IP added to router1: the router's `nat` changes under its other floating IPs.
  fc.constantFrom('198.18.64.120', '198.18.64.121').map(
    (ip): Step =>
      (m, ids) => {
        if (!m.nb.get('Logical_Router')!.has(ids.router1)) return [];
        const id = m.put('nb', 'NAT', { type: 'dnat_and_snat', external_ip: ip, logical_ip: '198.19.3.20' });
        const r = m.get('nb', 'Logical_Router', ids.router1);
        return [
          { db: 'nb', table: 'NAT', uuid: id, old: null, new: m.get('nb', 'NAT', id) },
          m.update('nb', 'Logical_Router', ids.router1, { nat: [...(r.nat as string[]), id] }),
        ];
      },
  ),
  fc.constant<Step>((m, ids) =>
    m.nb.get('Logical_Router')!.has(ids.router1)
      ? [m.update('nb', 'Logical_Router', ids.router1, { name: 'router1-renamed' })]
      : [],
  ),
  fc.constant<Step>((m, ids) =>
    m.nb.get('Logical_Router')!.has(ids.router1) ? [m.remove('nb', 'Logical_Router', ids.router1)] : [],
  ),
  // Columns the router reads of the switches behind it: load balancers and the marker.
  fc.constant<Step>((m, ids) => {
    const id = m.put('nb', 'Load_Balancer', { name: 'lb3', vips: { '198.18.64.210:80': '198.19.3.10:80' } });
    return [
      { db: 'nb', table: 'Load_Balancer', uuid: id, old: null, new: m.get('nb', 'Load_Balancer', id) },
      m.update('nb', 'Logical_Switch', ids.tenant3, { load_balancer: [id] }),
    ];
  }),
  fc.constantFrom('true', 'false').map(
    (v): Step =>
      (m, ids) => [m.update('nb', 'Logical_Switch', ids.tenant3, { external_ids: { 'bgp-expose': v } })],
  ),
);

const key = (a: Advertisement) => `${a.prefix} ${a.nextHop} ${a.kind} ${a.origin.uuid} ${a.why}`;

function check(config: OvnDeriveConfig) {
  fc.assert(
    fc.property(fc.array(fc.array(step, { minLength: 1, maxLength: 3 }), { maxLength: 12 }), (batches) => {
      const { m, ids } = labModel();
      const d = new OvnDeriver(config);
      const replay = new Map<string, Advertisement>();
      const play = (diff: { announce: Advertisement[]; withdraw: Advertisement[] }) => {
        for (const w of diff.withdraw) replay.delete(w.prefix);
        for (const a of diff.announce) replay.set(a.prefix, a);
      };
      play(d.load(m.snapshot()));
      for (const batch of batches) play(d.apply(batch.flatMap((s) => s(m, ids))));
      const scratch = deriveOvnRoutes(m.snapshot(), config);
      expect(d.advertisements.map(key)).toEqual(scratch.advertisements.map(key));
      expect(d.problems).toEqual(scratch.problems);
      const routes = (ads: Iterable<Advertisement>) => [...ads].map((a) => `${a.prefix} ${a.nextHop}`).sort();
      expect(routes(replay.values())).toEqual(routes(scratch.advertisements));
    }),
    { numRuns: 300 },
  );
}

describe('incremental = from scratch', () => {
  it('central mode', () => check(DEFAULT_OVN_DERIVE_CONFIG));
  it('tenant networks selected by an external_ids marker', () =>
    check({
      ...DEFAULT_OVN_DERIVE_CONFIG,
      kinds: {
        ...DEFAULT_OVN_DERIVE_CONFIG.kinds,
        tenantNetworks: {
          ...DEFAULT_OVN_DERIVE_CONFIG.kinds.tenantNetworks,
          select: { marker: 'bgp-expose' },
        },
      },
    }));
  it('local mode', () =>
    check({
      ...DEFAULT_OVN_DERIVE_CONFIG,
      mode: 'local',
      localChassis: 'gw1',
      localNextHop: { ipv4: '198.18.0.9' },
    }));
});
