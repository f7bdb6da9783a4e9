import { describe, expect, it } from 'vitest';
import { ovnPaths, ovnStats, ovnView } from '../../src/control/index.js';
import type { OvnWatcherStatus } from '../../src/ovn/index.js';
import type { OvnPublishing } from '../../src/routing/index.js';

// What `show ovn`, `show rib` and the metrics say of the OVN origin, from its state alone.

const config = {
  mode: 'local',
  ovs: 'unix:/run/openvswitch/db.sock',
  nb: [{ text: 'tcp:192.0.2.1:6641' }, { text: 'tcp:192.0.2.2:6641' }],
  sb: [{ text: 'tcp:192.0.2.1:6642' }],
};

const status = {
  state: 'synced',
  nb: { state: 'synced', remote: 'tcp:192.0.2.1:6641' },
  sb: { state: 'connecting', remote: 'tcp:192.0.2.1:6642', attempt: 2 },
  advertisements: [
    {
      prefix: '198.18.64.100/32',
      nextHop: '192.0.2.11',
      kind: 'floatingIps',
      origin: { table: 'NAT', uuid: 'u1' },
      why: 'chassis hv1',
    },
  ],
  problems: [
    { kind: 'no-chassis', origin: { table: 'NAT', uuid: 'u2' }, message: 'm1' },
    { kind: 'no-chassis', origin: { table: 'NAT', uuid: 'u3' }, message: 'm2' },
  ],
  counts: { floatingIps: 1, tenantNetworks: 0 },
  lastDerivationMs: 3,
  lastChangeMs: 12,
} as unknown as OvnWatcherStatus;

const origin = (s: OvnWatcherStatus | undefined, chassisLookupError?: string) =>
  ({ config, status: s, chassisLookupError }) as unknown as OvnPublishing;

describe('OVN views', () => {
  it('before the watcher runs, says it is reading our chassis name, and why that failed', () => {
    expect(ovnView(origin(undefined, 'no system-id'))).toEqual({
      mode: 'local (reading our chassis name from unix:/run/openvswitch/db.sock: no system-id)',
      nb: 'not started (tcp:192.0.2.1:6641,tcp:192.0.2.2:6641)',
      sb: 'not started (tcp:192.0.2.1:6642)',
      routes: [],
      problems: [],
      counts: {},
    });
    expect(ovnPaths(undefined)).toEqual(new Map());
    expect(ovnStats(origin(undefined))).toEqual({
      connected: { nb: false, sb: false },
      routes: {},
      problems: {},
      lastDerivationMs: 0,
    });
  });

  it('names route kinds as show ovn does and counts problems per kind', () => {
    const view = ovnView(origin(status));
    expect(view.mode).toBe('local (synced)');
    expect(view.sb).toBe('connecting (tcp:192.0.2.1:6642)');
    expect(view.routes[0]).toMatchObject({ prefix: '198.18.64.100/32', kind: 'floating-ip' });
    expect(view.counts).toEqual({ 'floating-ip': 1, 'tenant-network': 0 });
    expect(ovnPaths(origin(status)).get('198.18.64.100/32')).toMatchObject({ kind: 'floating-ip' });
    expect(ovnStats(origin(status))).toEqual({
      connected: { nb: true, sb: false },
      routes: { 'floating-ip': 1, 'tenant-network': 0 },
      problems: { 'no-chassis': 2 },
      lastDerivationMs: 3,
      lastChangeMs: 12,
    });
  });

  it('says where routes come from and whether the SB has Advertised_Route; OVN’s own kinds by their names', () => {
    const ar = {
      prefix: '198.18.171.10/32',
      nextHop: '198.18.171.11',
      kind: 'nat',
      origin: { db: 'sb', table: 'Advertised_Route', uuid: 'u4', name: 'lr0/lr0-ext' },
      why: 'chassis hv1 (tracked port lr0-ext via cr-lr0-ext), Encap ip',
    };
    const dr = (source: string, advertisedRoutes: boolean | undefined) =>
      ({
        config: { ...config, mode: 'central', source },
        status: { ...status, advertisements: [ar], counts: { nat: 1, lb: 0 }, advertisedRoutes },
      }) as unknown as OvnPublishing;
    expect(ovnView(dr('auto', true)).source).toBe('auto (Advertised_Route in SB)');
    expect(ovnView(dr('auto', false)).source).toBe(
      'auto (no Advertised_Route in SB: OVN before 25.03, every router derived)',
    );
    expect(ovnView(dr('advertised_routes', false)).source).toMatch(
      /^advertised_routes \(no Advertised_Route in SB/,
    );
    expect(ovnView(dr('derive', true)).source).toBe('derive');
    expect(ovnView(dr('auto', undefined)).source).toBe('auto');
    expect(ovnView(dr('auto', true)).routes[0]).toMatchObject({ kind: 'nat', origin: ar.origin });
    expect(ovnPaths(dr('auto', true)).get(ar.prefix)).toEqual({
      kind: 'nat',
      origin: ar.origin,
      why: ar.why,
    });
    expect(ovnStats(dr('auto', true)).routes).toEqual({ nat: 1, lb: 0 });
  });
});
