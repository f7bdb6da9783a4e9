/**
 * A synthetic OVN cloud written straight into NB and SB, no ovn-northd: the rows route
 * derivation reads (src/ovn/tables.ts), shaped as northd and ovn-controller would leave them.
 *
 *   NB  public (localnet ln-public) ── public-lr<r> ── lrp-gw<r> ┐ gateway_chassis gc<r> → gw chassis
 *       lr<r>: ports lrp-gw<r>, lrp-in<r>; nat: FIPs (half distributed, half centralized)
 *       ls<r>: ls<r>-lr (router port of lrp-in<r>), vm<r>-<k> ports (one per distributed FIP, + spares)
 *   SB  Chassis hv<i> + Encap (geneve); Datapath_Binding per router and per tenant switch;
 *       Port_Binding cr-lrp-gw<r> (chassisredirect, bound to its gateway chassis) and vm<r>-<k>
 *       (bound to a chassis, round robin)
 *
 * Addresses are lab-only: FIPs from 198.18.16.0 up (50,000 end at 198.18.211.x), router
 * gateway IPs in 198.18.4.0/22 on a 198.18.0.0/16 provider network, chassis (Encap) IPs in
 * 198.19.240.0/20, tenant addresses in 198.19.0.0/24 (every tenant reuses it, as tenants do).
 * The veth of the lab is 198.18.0.0/30, below all of these.
 */
import { namedUuid, type Operation, OvsdbSession, type ValueInput } from '../../src/ovsdb/index.js';

export interface CloudShape {
  readonly fips: number;
  readonly routers: number;
  readonly chassis: number;
  /** Chassis that host router gateways (the first ones); default min(chassis, 10). */
  readonly gateways?: number;
  /** VMs per router with no FIP yet: targets of single distributed-FIP changes. */
  readonly spareVms?: number;
}

const FIP_BASE = ip4(198, 18, 16, 0);
const GW_BASE = ip4(198, 18, 4, 0);
const ENCAP_BASE = ip4(198, 19, 240, 0);
const TENANT_BASE = ip4(198, 19, 0, 0);
const PROVIDER_LEN = 16;
const TENANT_LEN = 24;
const ROWS_PER_TXN = 4000;

function ip4(a: number, b: number, c: number, d: number): number {
  return ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
}
export function ipText(v: number): string {
  return `${v >>> 24}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`;
}
function mac(prefix: number, n: number): string {
  const b = [prefix, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].map((x) => x.toString(16).padStart(2, '0'));
  return `fa:16:${b.join(':')}`;
}

/** The n-th FIP's external address (n from 0); the batch and single-change samples continue past the cloud's. */
export const fipAddress = (n: number): string => ipText(FIP_BASE + n);
const tenantAddress = (k: number): string => ipText(TENANT_BASE + 10 + k);
export const chassisName = (i: number): string => `hv${i}`;
export const vmName = (r: number, k: number): string => `vm${r}-${k}`;
export const routerName = (r: number): string => `lr${r}`;

/** A reference to a row written by name: the same transaction, or an earlier one. */
interface Ref {
  readonly ref: string;
}
type Cell = ValueInput | Ref | readonly Ref[];
interface Insert {
  readonly kind: 'insert';
  readonly table: string;
  readonly name: string;
  readonly row: Readonly<Record<string, Cell>>;
}
interface AddToSet {
  readonly kind: 'add';
  readonly table: string;
  readonly target: string;
  readonly column: string;
  readonly refs: readonly string[];
}
type Step = Insert | AddToSet;
/** Steps that go in one transaction (non-root rows must be referenced where they are inserted). */
type Unit = readonly Step[];

const ref = (name: string): Ref => ({ ref: name });
const isRef = (v: unknown): v is Ref => typeof v === 'object' && v !== null && 'ref' in v;

/** How FIPs fall on routers: router r holds FIPs [first(r), first(r+1)). */
export function fipsOf(shape: CloudShape, r: number): { first: number; count: number } {
  const per = Math.floor(shape.fips / shape.routers);
  const extra = shape.fips % shape.routers;
  const first = r * per + Math.min(r, extra);
  return { first, count: per + (r < extra ? 1 : 0) };
}

function nbUnits(shape: CloudShape): Unit[] {
  const gateways = Math.min(shape.gateways ?? 10, shape.chassis);
  const spare = shape.spareVms ?? 1;
  const units: Unit[] = [
    [
      {
        kind: 'insert',
        table: 'Logical_Switch_Port',
        name: 'ln_public',
        row: {
          name: 'ln-public',
          type: 'localnet',
          addresses: ['unknown'],
          options: { network_name: 'physnet1' },
        },
      },
      {
        kind: 'insert',
        table: 'Logical_Switch',
        name: 'public',
        row: { name: 'public', ports: [ref('ln_public')] },
      },
    ],
  ];
  for (let r = 0; r < shape.routers; r++) {
    const { first, count } = fipsOf(shape, r);
    const steps: Step[] = [];
    const gw = `lrp-gw${r}`;
    const inner = `lrp-in${r}`;
    const gwChassis = chassisName(r % gateways);
    steps.push(
      {
        kind: 'insert',
        table: 'Gateway_Chassis',
        name: `gc${r}`,
        row: { name: `${gw}-${gwChassis}`, chassis_name: gwChassis, priority: 1 },
      },
      {
        kind: 'insert',
        table: 'Logical_Router_Port',
        name: `lrpgw${r}`,
        row: {
          name: gw,
          mac: mac(1, r),
          networks: [`${ipText(GW_BASE + 1 + r)}/${PROVIDER_LEN}`],
          gateway_chassis: [ref(`gc${r}`)],
        },
      },
      {
        kind: 'insert',
        table: 'Logical_Router_Port',
        name: `lrpin${r}`,
        row: { name: inner, mac: mac(2, r), networks: [`${ipText(TENANT_BASE + 1)}/${TENANT_LEN}`] },
      },
    );
    const nats: string[] = [];
    const vms: string[] = [];
    const vmCount = Math.ceil(count / 2) + spare;
    for (let k = 0; k < vmCount; k++) {
      vms.push(`vm${r}_${k}`);
      steps.push({
        kind: 'insert',
        table: 'Logical_Switch_Port',
        name: `vm${r}_${k}`,
        row: { name: vmName(r, k), addresses: [`${mac(3, r * 64 + k)} ${tenantAddress(k)}`] },
      });
    }
    for (let j = 0; j < count; j++) {
      // Even j: distributed (the VM's chassis answers), odd j: centralized (the gateway's).
      const distributed = j % 2 === 0;
      const k = j >> 1;
      nats.push(`nat${first + j}`);
      steps.push({
        kind: 'insert',
        table: 'NAT',
        name: `nat${first + j}`,
        row: {
          type: 'dnat_and_snat',
          external_ip: fipAddress(first + j),
          logical_ip: distributed ? tenantAddress(k) : tenantAddress(vmCount + k),
          ...(distributed && { logical_port: vmName(r, k), external_mac: mac(4, first + j) }),
        },
      });
    }
    steps.push(
      {
        kind: 'insert',
        table: 'Logical_Router',
        name: `lr${r}`,
        row: { name: routerName(r), ports: [ref(`lrpgw${r}`), ref(`lrpin${r}`)], nat: nats.map(ref) },
      },
      {
        kind: 'insert',
        table: 'Logical_Switch_Port',
        name: `lsrp${r}`,
        row: { name: `ls${r}-lr`, type: 'router', addresses: ['router'], options: { 'router-port': inner } },
      },
      {
        kind: 'insert',
        table: 'Logical_Switch',
        name: `ls${r}`,
        row: { name: `ls${r}`, ports: [ref(`lsrp${r}`), ...vms.map(ref)] },
      },
      {
        kind: 'insert',
        table: 'Logical_Switch_Port',
        name: `pub${r}`,
        row: {
          name: `public-lr${r}`,
          type: 'router',
          addresses: ['router'],
          options: { 'router-port': gw, 'nat-addresses': 'router' },
        },
      },
      { kind: 'add', table: 'Logical_Switch', target: 'public', column: 'ports', refs: [`pub${r}`] },
    );
    units.push(steps);
  }
  return units;
}

function sbUnits(shape: CloudShape): Unit[] {
  const gateways = Math.min(shape.gateways ?? 10, shape.chassis);
  const spare = shape.spareVms ?? 1;
  const units: Unit[] = [];
  for (let i = 0; i < shape.chassis; i++) {
    units.push([
      {
        kind: 'insert',
        table: 'Encap',
        name: `enc${i}`,
        row: {
          type: 'geneve',
          ip: ipText(ENCAP_BASE + 1 + i),
          chassis_name: chassisName(i),
          options: { csum: 'true' },
        },
      },
      {
        kind: 'insert',
        table: 'Chassis',
        name: `ch${i}`,
        row: {
          name: chassisName(i),
          hostname: `${chassisName(i)}.lab.example`,
          encaps: [ref(`enc${i}`)],
          other_config: {
            'ovn-bridge-mappings': 'physnet1:br-ex',
            ...(i < gateways && { 'ovn-cms-options': 'enable-chassis-as-gw' }),
          },
        },
      },
    ]);
  }
  let vmSeq = 0;
  for (let r = 0; r < shape.routers; r++) {
    const { count } = fipsOf(shape, r);
    const vmCount = Math.ceil(count / 2) + spare;
    const steps: Step[] = [
      {
        kind: 'insert',
        table: 'Datapath_Binding',
        name: `dplr${r}`,
        row: { tunnel_key: 1 + r, external_ids: { name: routerName(r) } },
      },
      {
        kind: 'insert',
        table: 'Datapath_Binding',
        name: `dpls${r}`,
        row: { tunnel_key: 1 + shape.routers + r, external_ids: { name: `ls${r}` } },
      },
      {
        kind: 'insert',
        table: 'Port_Binding',
        name: `cr${r}`,
        row: {
          logical_port: `cr-lrp-gw${r}`,
          type: 'chassisredirect',
          chassis: ref(`ch${r % gateways}`),
          datapath: ref(`dplr${r}`),
          tunnel_key: 1,
          options: { 'distributed-port': `lrp-gw${r}` },
        },
      },
    ];
    for (let k = 0; k < vmCount; k++) {
      steps.push({
        kind: 'insert',
        table: 'Port_Binding',
        name: `pb${r}_${k}`,
        row: {
          logical_port: vmName(r, k),
          chassis: ref(`ch${vmSeq++ % shape.chassis}`),
          datapath: ref(`dpls${r}`),
          tunnel_key: 1 + k,
          up: true,
        },
      });
    }
    units.push(steps);
  }
  return units;
}

/** Writes units in transactions of about ROWS_PER_TXN rows; names of earlier transactions resolve to their uuids. */
async function writeUnits(remote: string, database: string, units: readonly Unit[]): Promise<number> {
  const session = await OvsdbSession.open(remote);
  const uuids = new Map<string, string>();
  let rows = 0;
  try {
    const schema = await session.getSchema(database);
    // The switch `public` is written first and only mutated after: look its uuid up by name.
    let batch: Step[] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      const local = new Set(batch.flatMap((s) => (s.kind === 'insert' ? [s.name] : [])));
      const resolve = (name: string): ValueInput => {
        if (local.has(name)) return namedUuid(name);
        const u = uuids.get(name);
        if (!u) throw new Error(`cloud: ${name} referenced before it was written`);
        return u;
      };
      const cell = (v: Cell): ValueInput => {
        if (isRef(v)) return resolve(v.ref);
        if (Array.isArray(v)) return v.map((x) => (isRef(x) ? resolve(x.ref) : x)) as ValueInput;
        return v as ValueInput;
      };
      const ops: Operation[] = batch.map((s): Operation => {
        if (s.kind === 'insert') {
          const row = Object.fromEntries(Object.entries(s.row).map(([k, v]) => [k, cell(v)]));
          return { op: 'insert', table: s.table, uuidName: s.name, row };
        }
        return {
          op: 'mutate',
          table: s.table,
          where: [['_uuid', '==', resolve(s.target) as string]],
          mutations: [[s.column, 'insert', s.refs.map(resolve) as ValueInput]],
        };
      });
      // Several mutations of one row in one transaction are fine; an insert named here and mutated
      // later in the same batch is not possible in OVSDB, so `public` is always in an earlier batch.
      const result = await session.transact(schema, ops, 120_000);
      for (const [name, uuid] of result.uuids) uuids.set(name, uuid);
      rows += batch.filter((s) => s.kind === 'insert').length;
      batch = [];
    };
    for (const [i, unit] of units.entries()) {
      batch.push(...unit);
      if (i === 0 || batch.length >= ROWS_PER_TXN) await flush();
    }
    await flush();
    return rows;
  } finally {
    session.close();
  }
}

/** Writes the cloud into NB and SB; returns the rows written. */
export async function writeCloud(
  nb: string,
  sb: string,
  shape: CloudShape,
): Promise<{ nb: number; sb: number }> {
  const [nbRows, sbRows] = await Promise.all([
    writeUnits(nb, 'OVN_Northbound', nbUnits(shape)),
    writeUnits(sb, 'OVN_Southbound', sbUnits(shape)),
  ]);
  return { nb: nbRows, sb: sbRows };
}

/** The expected advertisements: every FIP, nothing else (tenant networks are off by default). */
export const expectedRoutes = (shape: CloudShape): number => shape.fips;
