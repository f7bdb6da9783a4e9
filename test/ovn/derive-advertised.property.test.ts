/*
 * OVN's own routes under any sequence of changes to both databases (source auto): the
 * incremental deriver holds what derivation from scratch gives; what it advertises of router1
 * is a model computed straight from the rows (every Advertised_Route prefix once, while OVN
 * serves the router, via the chassis its tracked port lives on or the gateway address), never
 * a derived route of router1 beside it; and a prefix advertised before and after a change is
 * never withdrawn in between (a replace at the peers).
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
import type { Row } from '../../src/ovsdb/index.js';
import { drModel, type Model } from './model.js';

type Step = (m: Model, ids: Record<string, string>) => OvnRowChange[];

const ENCAP: Record<string, string> = { gw1: '198.18.100.11', hv1: '198.18.100.12', hv2: '198.18.100.13' };
const AR_KEYS = ['arNet', 'arNet6', 'arT1', 'arFipC1', 'arFipC2', 'arFipD', 'arLb', 'arStatic', 'arStatic6'];

/** Rows taken away by a step, to be put back by another. */
const parked = new Map<string, Row>();

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.constantFrom('true', 'false', '').map(
    (v): Step =>
      (m, ids) => [
        m.update('nb', 'Logical_Router', ids.router1, { options: v === '' ? {} : { 'dynamic-routing': v } }),
      ],
  ),
  fc.constantFrom(...AR_KEYS).map(
    (k): Step =>
      (m, ids) => {
        const rows = m.sb.get('Advertised_Route')!;
        const id = ids[k];
        const row = rows.get(id);
        if (row) {
          parked.set(id, row);
          return [m.remove('sb', 'Advertised_Route', id)];
        }
        const back = parked.get(id);
        if (!back) return [];
        rows.set(id, back);
        return [{ db: 'sb', table: 'Advertised_Route', uuid: id, old: null, new: back }];
      },
  ),
  // northd's whole transaction at once: every row of the router goes, or comes back.
  fc.constant<Step>((m, ids) => {
    const rows = m.sb.get('Advertised_Route')!;
    const present = AR_KEYS.filter((k) => rows.has(ids[k]));
    if (present.length > 0)
      return present.map((k) => {
        parked.set(ids[k], rows.get(ids[k])!);
        return m.remove('sb', 'Advertised_Route', ids[k]);
      });
    return AR_KEYS.flatMap((k) => {
      const back = parked.get(ids[k]);
      if (!back) return [];
      rows.set(ids[k], back);
      return [{ db: 'sb' as const, table: 'Advertised_Route', uuid: ids[k], old: null, new: back }];
    });
  }),
  fc.record({ port: fc.constantFrom('pbCr', 'pbVm1'), to: fc.constantFrom('gw1', 'hv1', 'hv2', '') }).map(
    ({ port, to }): Step =>
      (m, ids) => [m.update('sb', 'Port_Binding', ids[port], { chassis: to === '' ? null : ids[to] })],
  ),
  fc.constantFrom('198.18.64.200:80', '198.18.64.90:80').map(
    (vip): Step =>
      (m, ids) => [m.update('nb', 'Load_Balancer', ids.lb1, { vips: { [vip]: '198.19.1.10:80' } })],
  ),
  fc.constantFrom('198.18.64.101', '198.18.64.90').map(
    (ip): Step =>
      (m, ids) => [m.update('nb', 'NAT', ids.fipC, { external_ip: ip })],
  ),
  fc.constantFrom(true, false).map(
    (mapped): Step =>
      (m, ids) => [
        m.update('sb', 'Datapath_Binding', ids.dp1, {
          external_ids: mapped ? { 'logical-router': ids.router1 } : { name: 'router1' },
        }),
      ],
  ),
);

const key = (a: Advertisement) => `${a.prefix} ${a.nextHop} ${a.kind} ${a.origin.uuid} ${a.why}`;

/** What router1's Advertised_Route rows must give, computed from the rows alone. */
function model(m: Model, ids: Record<string, string>): Map<string, string> | null {
  const options = m.get('nb', 'Logical_Router', ids.router1).options as Map<string, string>;
  const dp = m.get('sb', 'Datapath_Binding', ids.dp1).external_ids as Map<string, string>;
  const rows = [...m.sb.get('Advertised_Route')!.values()];
  if (
    options.get('dynamic-routing') !== 'true' ||
    dp.get('logical-router') !== ids.router1 ||
    rows.length === 0
  )
    return null;
  const chassisName = (uuid: unknown) =>
    [...m.sb.get('Chassis')!.values()].find((c) => c._uuid === uuid)?.name as string | undefined;
  const out = new Map<string, string>();
  for (const row of rows) {
    const text = row.ip_prefix as string;
    const v6 = text.includes(':');
    const prefix = text.includes('/') ? text : `${text}/${v6 ? 128 : 32}`;
    const gateway = v6 ? '2001:db8:64::1' : '198.18.64.1';
    let hop = gateway;
    if (row.tracked_port) {
      const via = row.tracked_port === ids.pbVm1 ? ids.pbVm1 : ids.pbCr;
      const name = chassisName(m.get('sb', 'Port_Binding', via).chassis);
      // Every chassis has an IPv4 Encap ip; only hv1 an IPv6 one (none is tracked in IPv6 here).
      if (name) hop = ENCAP[name];
    }
    out.set(prefix, hop);
  }
  return out;
}

const ROUTER1_DERIVED = new Set(['floatingIps', 'loadBalancerVips', 'tenantNetworks']);
const OVN_KINDS = new Set(['nat', 'lb', 'connected', 'static']);

function check(config: OvnDeriveConfig) {
  fc.assert(
    fc.property(fc.array(fc.array(step, { minLength: 1, maxLength: 3 }), { maxLength: 12 }), (batches) => {
      parked.clear();
      const { m, ids } = drModel();
      const d = new OvnDeriver(config);
      const replay = new Map<string, Advertisement>();
      d.load(m.snapshot());
      for (const a of d.advertisements) replay.set(a.prefix, a);
      for (const batch of batches) {
        const before = new Set(d.advertisements.map((a) => a.prefix));
        const diff = d.apply(batch.flatMap((s) => s(m, ids)));
        const after = new Set(d.advertisements.map((a) => a.prefix));
        // A prefix that stays is replaced, never withdrawn first.
        for (const w of diff.withdraw) expect(before.has(w.prefix) && after.has(w.prefix)).toBe(false);
        for (const w of diff.withdraw) replay.delete(w.prefix);
        for (const a of diff.announce) replay.set(a.prefix, a);
      }
      const scratch = deriveOvnRoutes(m.snapshot(), config);
      expect(d.advertisements.map(key)).toEqual(scratch.advertisements.map(key));
      expect(d.problems).toEqual(scratch.problems);
      // Replayed, the diffs give the same routes (a new row or reason alone is no new announce).
      const route = (a: Advertisement) => `${a.prefix} ${a.nextHop} ${a.kind} ${a.communities.join()}`;
      expect([...replay.values()].map(route).sort()).toEqual(scratch.advertisements.map(route).sort());
      const want = model(m, ids);
      const ovn = scratch.advertisements.filter((a) => OVN_KINDS.has(a.kind));
      expect(new Map(ovn.map((a) => [a.prefix, a.nextHop]))).toEqual(want ?? new Map());
      if (want) expect(scratch.advertisements.filter((a) => ROUTER1_DERIVED.has(a.kind))).toEqual([]);
      // Not served by OVN (yet): the router is derived exactly as with source derive.
      else
        expect(scratch.advertisements.map(key)).toEqual(
          deriveOvnRoutes(m.snapshot(), { ...config, source: 'derive' }).advertisements.map(key),
        );
    }),
    { numRuns: 300 },
  );
}

describe('Advertised_Route: incremental = from scratch = the model', () => {
  it('central mode, source auto', () => check({ ...DEFAULT_OVN_DERIVE_CONFIG, source: 'auto' }));
});
