/* A small hand-built NB/SB model for derivation tests: rows in the replica's shapes. */

import type { OvnRowChange, OvnSnapshot } from '../../src/ovn/index.js';
import type { Row } from '../../src/ovsdb/index.js';

let counter = 0;
export const uuid = (): string => {
  counter++;
  return `00000000-0000-4000-8000-${counter.toString(16).padStart(12, '0')}`;
};

type Cells = Record<string, unknown>;

export class Model {
  readonly nb = new Map<string, Map<string, Row>>();
  readonly sb = new Map<string, Map<string, Row>>();

  put(db: 'nb' | 'sb', table: string, cells: Cells, id = uuid()): string {
    const tables = this[db];
    if (!tables.has(table)) tables.set(table, new Map());
    const row: Record<string, unknown> = { _uuid: id };
    for (const [k, v] of Object.entries(cells))
      row[k] = v !== null && typeof v === 'object' && !Array.isArray(v) ? new Map(Object.entries(v)) : v;
    tables.get(table)!.set(id, Object.freeze(row) as Row);
    return id;
  }

  get(db: 'nb' | 'sb', table: string, id: string): Row {
    return this[db].get(table)!.get(id)!;
  }

  /** A change that sets some cells of a row (returned, and applied to the model). */
  update(db: 'nb' | 'sb', table: string, id: string, cells: Cells): OvnRowChange {
    const old = this[db].get(table)?.get(id);
    // A row removed by an earlier step: nothing to set (a change that changes nothing).
    if (!old) return { db, table, uuid: id, old: null, new: null };
    const merged: Cells = { ...old };
    for (const [k, v] of Object.entries(cells))
      merged[k] = v !== null && typeof v === 'object' && !Array.isArray(v) ? new Map(Object.entries(v)) : v;
    const next = Object.freeze(merged) as Row;
    this[db].get(table)!.set(id, next);
    return { db, table, uuid: id, old, new: next };
  }

  remove(db: 'nb' | 'sb', table: string, id: string): OvnRowChange {
    const old = this.get(db, table, id);
    this[db].get(table)!.delete(id);
    return { db, table, uuid: id, old, new: null };
  }

  snapshot(): OvnSnapshot {
    return { nb: Object.fromEntries(this.nb), sb: Object.fromEntries(this.sb) };
  }

  chassis(name: string, encapIp: string | string[], extra: Cells = {}): string {
    const ips = Array.isArray(encapIp) ? encapIp : [encapIp];
    const encaps = ips.map((ip) => this.put('sb', 'Encap', { type: 'geneve', ip, chassis_name: name }));
    return this.put('sb', 'Chassis', { name, hostname: `${name}.lab.example`, encaps, ...extra });
  }

  binding(port: string, chassis: string | null, type = ''): string {
    return this.put('sb', 'Port_Binding', { logical_port: port, type, chassis });
  }
}

/**
 * The lab topology in miniature: provider switch `public` (localnet), router1 with DGP
 * lrp-public (198.18.64.1/24, 2001:db8:64::1/64) bound on gw1, tenant1 (SNATed), tenant3
 * (routable, dual stack), vm1 on hv1, a distributed and a centralized FIP, lb1 on router1.
 */
export function labModel(): { m: Model; ids: Record<string, string> } {
  const m = new Model();
  const ids: Record<string, string> = {};
  ids.gw1 = m.chassis('gw1', '198.18.100.11');
  ids.hv1 = m.chassis('hv1', ['198.18.100.12', '2001:db8:100::12']);
  ids.hv2 = m.chassis('hv2', '198.18.100.13');
  ids.lnPublic = m.put('nb', 'Logical_Switch_Port', {
    name: 'ln-public',
    type: 'localnet',
    addresses: ['unknown'],
  });
  ids.publicR1 = m.put('nb', 'Logical_Switch_Port', {
    name: 'public-router1',
    type: 'router',
    addresses: ['router'],
    options: { 'router-port': 'lrp-public' },
  });
  ids.pvm = m.put('nb', 'Logical_Switch_Port', {
    name: 'pvm1',
    addresses: ['50:54:00:00:09:01 198.18.64.50 2001:db8:64::50'],
  });
  ids.public = m.put('nb', 'Logical_Switch', {
    name: 'public',
    ports: [ids.lnPublic, ids.publicR1, ids.pvm],
  });
  ids.lrpPublic = m.put('nb', 'Logical_Router_Port', {
    name: 'lrp-public',
    networks: ['198.18.64.1/24', '2001:db8:64::1/64'],
    gateway_chassis: [uuid()],
  });
  ids.t1r = m.put('nb', 'Logical_Switch_Port', {
    name: 't1-r1',
    type: 'router',
    options: { 'router-port': 'lrp-t1' },
  });
  ids.vm1 = m.put('nb', 'Logical_Switch_Port', { name: 'vm1', addresses: ['50:54:00:00:01:10 198.19.1.10'] });
  ids.lb1 = m.put('nb', 'Load_Balancer', { name: 'lb1', vips: { '198.18.64.200:80': '198.19.1.10:8080' } });
  ids.tenant1 = m.put('nb', 'Logical_Switch', {
    name: 'tenant1',
    ports: [ids.t1r, ids.vm1],
    load_balancer: [ids.lb1],
  });
  ids.lrpT1 = m.put('nb', 'Logical_Router_Port', { name: 'lrp-t1', networks: ['198.19.1.1/24'] });
  ids.t3r = m.put('nb', 'Logical_Switch_Port', {
    name: 't3-r1',
    type: 'router',
    options: { 'router-port': 'lrp-t3' },
  });
  ids.tenant3 = m.put('nb', 'Logical_Switch', {
    name: 'tenant3',
    ports: [ids.t3r],
    external_ids: { 'bgp-expose': 'true' },
  });
  ids.lrpT3 = m.put('nb', 'Logical_Router_Port', {
    name: 'lrp-t3',
    networks: ['198.19.3.1/24', '2001:db8:3::1/64'],
  });
  ids.fipD = m.put('nb', 'NAT', {
    type: 'dnat_and_snat',
    external_ip: '198.18.64.100',
    logical_ip: '198.19.1.10',
    logical_port: 'vm1',
    external_mac: '50:54:00:00:fe:10',
  });
  ids.fipC = m.put('nb', 'NAT', {
    type: 'dnat_and_snat',
    external_ip: '198.18.64.101',
    logical_ip: '198.19.1.11',
  });
  ids.snat1 = m.put('nb', 'NAT', { type: 'snat', external_ip: '198.18.64.1', logical_ip: '198.19.1.0/24' });
  ids.router1 = m.put('nb', 'Logical_Router', {
    name: 'router1',
    ports: [ids.lrpPublic, ids.lrpT1, ids.lrpT3],
    nat: [ids.fipD, ids.fipC, ids.snat1],
    load_balancer: [ids.lb1],
  });
  ids.pbVm1 = m.binding('vm1', ids.hv1);
  ids.pbPvm = m.binding('pvm1', ids.hv2);
  ids.pbCr = m.binding('cr-lrp-public', ids.gw1, 'chassisredirect');
  return { m, ids };
}

/**
 * The lab topology with OVN 25.03's dynamic routing on router1, as ovn-northd writes it: a
 * Datapath_Binding for router1, patch Port_Bindings for its ports (lrp-public's pointing at
 * cr-lrp-public), and Advertised_Route rows for connected networks (no tracked port), both
 * FIPs (once per router port, host routes without a length, the centralized one tracking the
 * gateway port, the distributed one vm1), the LB VIP, and a static route of each family.
 */
export function drModel(): { m: Model; ids: Record<string, string> } {
  const { m, ids } = labModel();
  m.update('nb', 'Logical_Router', ids.router1, {
    options: { 'dynamic-routing': 'true', 'dynamic-routing-redistribute': 'connected,nat,lb,static' },
  });
  ids.dp1 = m.put('sb', 'Datapath_Binding', {
    external_ids: { 'logical-router': ids.router1, name: 'router1' },
  });
  ids.pbPublic = m.put('sb', 'Port_Binding', {
    logical_port: 'lrp-public',
    type: 'patch',
    chassis: null,
    options: { 'chassis-redirect-port': 'cr-lrp-public', peer: 'public-router1' },
  });
  ids.pbT1 = m.put('sb', 'Port_Binding', { logical_port: 'lrp-t1', type: 'patch', chassis: null });
  const ar = (prefix: string, port: string, tracked: string | null = null) =>
    m.put('sb', 'Advertised_Route', {
      datapath: ids.dp1,
      logical_port: port,
      ip_prefix: prefix,
      tracked_port: tracked,
    });
  ids.arNet = ar('198.18.64.0/24', ids.pbPublic);
  ids.arNet6 = ar('2001:db8:64::/64', ids.pbPublic);
  ids.arT1 = ar('198.19.1.0/24', ids.pbT1);
  ids.arFipC1 = ar('198.18.64.101', ids.pbPublic, ids.pbPublic);
  ids.arFipC2 = ar('198.18.64.101', ids.pbT1, ids.pbPublic);
  ids.arFipD = ar('198.18.64.100', ids.pbT1, ids.pbVm1);
  ids.arLb = ar('198.18.64.200', ids.pbPublic, ids.pbPublic);
  ids.arStatic = ar('198.18.90.0/24', ids.pbT1);
  ids.arStatic6 = ar('2001:db8:90::/64', ids.pbT1);
  return { m, ids };
}
