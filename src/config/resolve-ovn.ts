import { KernelSinkDefaults, OvnDefaults, OvnRouteTablesDefaults, ZebraSinkDefaults } from './constants.js';
import type { Context } from './decoders.js';
import { problem } from './problem.js';
import type {
  ConfigPrefix,
  OvnConfig,
  OvnKindConfig,
  OvnRouteTableConfig,
  OvnRouteTablesConfig,
  SinksConfig,
  TenantSelect,
} from './schema.js';
import type { RawOvn, RawOvnRouteTables, RawSinks } from './sections.js';

type RawKind = {
  readonly enabled?: boolean;
  readonly communities?: readonly number[];
  readonly largeCommunities?: readonly (readonly [number, number, number])[];
};

function kind(raw: RawKind | undefined, enabledByDefault: boolean): OvnKindConfig {
  return {
    enabled: raw?.enabled ?? enabledByDefault,
    communities: raw?.communities ?? [],
    largeCommunities: raw?.largeCommunities ?? [],
  };
}

function tenantSelect(
  raw: 'all' | { readonly prefixes?: readonly unknown[]; readonly marker?: string } | undefined,
  ctx: Context,
): TenantSelect {
  if (raw === undefined || raw === 'all') return { kind: 'all' };
  const path = ['ovn', 'routes', 'tenant_networks', 'select'];
  if ((raw.prefixes === undefined) === (raw.marker === undefined)) {
    ctx.problems.push(problem(path, 'needs exactly one of prefixes and marker'));
    return { kind: 'all' };
  }
  if (raw.marker !== undefined) return { kind: 'marker', marker: raw.marker };
  return { kind: 'prefixes', prefixes: raw.prefixes as readonly ConfigPrefix[] };
}

export function resolveOvn(raw: RawOvn, ctx: Context): OvnConfig | undefined {
  const usesSsl = [...(raw.nb ?? []), ...(raw.sb ?? [])].some((r) => r.method === 'ssl');
  if (usesSsl && raw.ssl === undefined) {
    ctx.problems.push(
      problem(['ovn', 'ssl'], 'ssl: remotes need ssl.private_key, ssl.certificate and ssl.ca_cert'),
    );
    return undefined;
  }
  if (!usesSsl && raw.ssl !== undefined) {
    ctx.warnings.push(problem(['ovn', 'ssl'], 'is set but no remote uses ssl:'));
  }
  const ssl = raw.ssl;
  if (raw.nb === undefined || raw.sb === undefined) return undefined;
  if (
    ssl !== undefined &&
    (ssl.privateKey === undefined || ssl.certificate === undefined || ssl.caCert === undefined)
  ) {
    return undefined;
  }
  const mode = raw.mode ?? OvnDefaults.mode;
  const r = raw.routes ?? {};
  const tenant = r.tenantNetworks;
  const floatingIps = kind(r.floatingIps, true);
  const loadBalancerVips = kind(r.loadBalancerVips, true);
  return {
    nb: raw.nb,
    sb: raw.sb,
    ssl: ssl && { privateKey: ssl.privateKey!, certificate: ssl.certificate!, caCert: ssl.caCert! },
    mode,
    source: raw.source ?? OvnDefaults.source,
    chassis: raw.chassis,
    ovs: raw.ovs?.map((r) => r.text).join(',') ?? OvnDefaults.ovs,
    localNextHop: raw.localNextHop ?? {},
    chassisNextHops: raw.chassisNextHops ?? new Map(),
    coalesceMs: raw.coalesceMs ?? OvnDefaults.coalesceMs,
    holdTime: raw.holdTime ?? OvnDefaults.holdTime,
    routes: {
      floatingIps,
      tenantNetworks: { ...kind(tenant, false), select: tenantSelect(tenant?.select, ctx) },
      loadBalancerVips,
      providerPorts: kind(r.providerPorts, true),
      podSubnets: kind(r.podSubnets, true),
      serviceVips: kind(r.serviceVips, true),
      // OVN's NAT and VIP routes are what floating_ips and load_balancer_vips mean when the
      // speaker derives them: a router switching to dynamic routing keeps its communities.
      nat: r.nat ? kind(r.nat, true) : floatingIps,
      lb: r.lb ? kind(r.lb, true) : loadBalancerVips,
      connected: kind(r.connected, true),
      static: kind(r.static, true),
    },
  };
}

export function resolveSinks(
  raw: RawSinks | undefined,
  hasOvnNb: boolean,
  policyNames: ReadonlySet<string>,
  ctx: Context,
): SinksConfig {
  const checkInstall = (names: readonly string[] | undefined, key: string) => {
    names?.forEach((n, i) => {
      if (!policyNames.has(n))
        ctx.problems.push(problem(['sinks', key, 'install', i], `no policy named ${JSON.stringify(n)}`, n));
    });
    return names ?? [];
  };
  const k = raw?.kernel;
  const z = raw?.zebra;
  const o = raw?.ovnNb;
  if (o && !hasOvnNb)
    ctx.problems.push(problem(['sinks', 'ovn_nb'], 'needs the ovn section (its nb connection)'));
  return {
    kernel: k && {
      table: k.table ?? KernelSinkDefaults.table,
      metric: k.metric ?? KernelSinkDefaults.metric,
      protocol: k.protocol ?? KernelSinkDefaults.protocol,
      onStop: k.onStop ?? KernelSinkDefaults.onStop,
      install: checkInstall(k.install, 'kernel'),
    },
    zebra: z && {
      socket: z.socket ?? ZebraSinkDefaults.socket,
      instance: z.instance ?? ZebraSinkDefaults.instance,
      distance: z.distance ?? ZebraSinkDefaults.distance,
      metric: z.metric ?? ZebraSinkDefaults.metric,
      install: checkInstall(z.install, 'zebra'),
    },
    ovnNb: o && {
      router: o.router!,
      outputPort: o.outputPort,
      routeTable: o.routeTable,
      install: checkInstall(o.install, 'ovn_nb'),
    },
  };
}

export function resolveOvnRouteTables(
  raw: RawOvnRouteTables | undefined,
  policyNames: ReadonlySet<string>,
  ctx: Context,
): OvnRouteTablesConfig | undefined {
  if (raw === undefined) return undefined;
  const path = ['ovn_route_tables'];
  const names = new Set<string>();
  const tables: OvnRouteTableConfig[] = [];
  (raw.tables ?? []).forEach((t, i) => {
    const at = [...path, 'tables', i];
    if ((t.router === undefined) === (t.table === undefined)) {
      ctx.problems.push(problem(at, 'needs exactly one of router and table'));
      return;
    }
    if (t.router !== undefined && raw.sb === undefined)
      ctx.problems.push(
        problem([...at, 'router'], 'needs ovn_route_tables.sb to find the router’s table', t.router),
      );
    const name = t.router ?? `table ${t.table}`;
    if (names.has(name)) ctx.problems.push(problem(at, `${name} is listed twice`, name));
    names.add(name);
    t.learn?.forEach((n, j) => {
      if (!policyNames.has(n))
        ctx.problems.push(problem([...at, 'learn', j], `no policy named ${JSON.stringify(n)}`, n));
    });
    tables.push({ name, router: t.router, table: t.table, learn: t.learn ?? [] });
  });
  if ((raw.tables ?? []).length === 0) ctx.problems.push(problem([...path, 'tables'], 'lists no table'));
  const D = OvnRouteTablesDefaults;
  return {
    sb: raw.sb,
    tables,
    preference: raw.preference ?? D.preference,
    localMetric: raw.localMetric ?? D.localMetric,
    prepend: raw.prepend ?? D.prepend,
    holdTime: raw.holdTime ?? D.holdTime,
    protocol: raw.protocol ?? D.protocol,
    learnProtocol: raw.learnProtocol ?? D.learnProtocol,
    learnMetric: raw.learnMetric ?? D.learnMetric,
    onStop: raw.onStop ?? D.onStop,
    communities: raw.communities ?? [],
    largeCommunities: raw.largeCommunities ?? [],
  };
}
