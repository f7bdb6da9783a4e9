import { describe, expect, it } from 'vitest';
import type { NeighborSummary, OvnView, PathView, RibEntryView, SummaryView } from '../../src/api/index.js';
import { formatNeighbors } from '../../src/cli/format-neighbor.js';
import { formatOvn, formatOvnProblems, formatSinks } from '../../src/cli/format-ovn.js';
import {
  formatAdjRib,
  formatRibDetail,
  formatRibTable,
  pathColumn,
  statusCode,
} from '../../src/cli/format-rib.js';
import { formatSummary } from '../../src/cli/format-summary.js';
import { formatUpDown } from '../../src/cli/format-time.js';
import { routesJson } from '../../src/cli/show.js';
import { renderTable } from '../../src/cli/table.js';
import { NEIGHBORS, OVN, RIB, RR1, SINKS, SPINE1, SPINE2, SUMMARY } from '../api/fake-control.js';

const lines = (...l: string[]) => l.join('\n');

describe('formatUpDown', () => {
  it.each([
    [0, '00:00:00'],
    [59, '00:00:59'],
    [201, '00:03:21'],
    [86_399, '23:59:59'],
    [86_400, '1d00h00m'],
    [90_061, '1d01h01m'],
    [604_799, '6d23h59m'],
    [604_800, '1w0d00h'],
    [3 * 604_800 + 2 * 86_400 + 4 * 3600 + 59, '3w2d04h'],
    [-5, '00:00:00'],
    [12.9, '00:00:12'],
  ])('%d seconds is %s', (seconds, text) => {
    expect(formatUpDown(seconds)).toBe(text);
  });
});

describe('renderTable', () => {
  it('sizes columns to their widest cell, aligns them, trims line ends', () => {
    const t = renderTable(
      [
        { header: 'Name', align: 'left' },
        { header: 'N', align: 'right' },
        { header: 'Note', align: 'left' },
      ],
      [
        ['a', '1000', ''],
        ['longer', '2', 'x'],
      ],
    );
    expect(t).toEqual(['Name      N Note', 'a      1000', 'longer    2 x']);
  });

  it('takes a full table (the widths were once Math.max over every cell as arguments)', () => {
    const rows = Array.from({ length: 300_000 }, (_, i) => [String(i)]);
    const t = renderTable([{ header: 'N', align: 'right' }], rows);
    expect(t).toHaveLength(300_001);
    expect(t.at(-1)).toBe('299999');
    expect(t[1]).toBe('     0');
  });
});

describe('show summary', () => {
  it('prints one table per family, as vtysh does', () => {
    expect(formatSummary(SUMMARY)).toBe(
      lines(
        'BGP router identifier 198.18.0.1, local AS number 64512',
        'RIB entries: IPv4 Unicast 3, IPv6 Unicast 1',
        '',
        'IPv4 Unicast Summary:',
        'Neighbor      AS MsgRcvd MsgSent  Up/Down State/PfxRcd PfxSnt Desc',
        '198.18.0.2 65001      12      14 00:03:21            3      5 spine1',
        '198.18.0.4 64512       0       0 1d01h01m Idle (Admin)      0 N/A',
        '',
        'Total number of neighbors 2',
        '',
        'IPv6 Unicast Summary:',
        'Neighbor            AS MsgRcvd MsgSent  Up/Down State/PfxRcd PfxSnt Desc',
        '198.18.0.2       65001      12      14 00:03:21            1      2 spine1',
        '2001:db8::2 4200000002       2       3 00:00:05       Active      0 spine2',
        '',
        'Total number of neighbors 2',
      ),
    );
  });

  it('lists a neighbor with no family yet under every family, and says when there is none at all', () => {
    const bare: NeighborSummary = {
      ...RR1,
      name: 'leaf9',
      address: '198.18.0.9',
      adminDown: false,
      prefixes: {},
    };
    const s: SummaryView = { ...SUMMARY, neighbors: [SPINE1, bare] };
    const out = formatSummary(s);
    expect(out.match(/198\.18\.0\.9 +64512 +0 +0 1d01h01m +Idle +0 leaf9/g)).toHaveLength(2);
    expect(formatSummary({ ...SUMMARY, neighbors: [bare] })).toBe(
      lines(
        'BGP router identifier 198.18.0.1, local AS number 64512',
        'RIB entries: IPv4 Unicast 3, IPv6 Unicast 1',
        '',
        'Neighbors (no address family yet):',
        'Neighbor      AS MsgRcvd MsgSent  Up/Down State/PfxRcd PfxSnt Desc',
        '198.18.0.9 64512       0       0 1d01h01m         Idle      0 leaf9',
        '',
        'Total number of neighbors 1',
      ),
    );
    expect(formatSummary({ ...SUMMARY, neighbors: [] })).toBe(
      lines(
        'BGP router identifier 198.18.0.1, local AS number 64512',
        'RIB entries: IPv4 Unicast 3, IPv6 Unicast 1',
        '',
        'No BGP neighbors are configured.',
      ),
    );
  });
});

describe('show neighbors', () => {
  it('prints an established session in full', () => {
    expect(formatNeighbors([SPINE1])).toBe(
      lines(
        'BGP neighbor is 198.18.0.2, remote AS 65001, local AS 64512, external link',
        '  Description: spine1',
        '  BGP version 4, remote router ID 198.18.0.2',
        '  BGP state = Established, up for 00:03:21',
        '  Hold time is 90 seconds, keepalive interval is 30 seconds',
        '  Local host: 198.18.0.1',
        '  Address families: IPv4 Unicast, IPv6 Unicast',
        '  Capabilities in use: multiprotocol, route-refresh, four-octet-as',
        '  Message statistics:',
        '                   Sent Rcvd',
        '    Opens:            1    1',
        '    Notifications:    0    0',
        '    Updates:          6    4',
        '    Keepalives:       7    6',
        '    Route Refresh:    0    1',
        '    Total:           14   12',
        '  Prefixes:',
        '    IPv4 Unicast: received 4, accepted 3, advertised 5',
        '    IPv6 Unicast: received 1, accepted 1, advertised 2',
        '  Connections established 1',
        '  Reconnect: wait 5 seconds after a reset, doubling up to 120',
      ),
    );
  });

  it('names the link of an unnumbered peer and the neighbour found on it, or that none is yet', () => {
    const found = formatNeighbors([{ ...SPINE1, interface: 'eth1', linkNeighbor: 'fe80::2' }]).split('\n');
    expect(found).toContain('  Interface: eth1, neighbour fe80::2');
    const waiting = formatNeighbors([{ ...SPINE1, interface: 'eth1' }]).split('\n');
    expect(waiting).toContain('  Interface: eth1, neighbour not found yet');
    expect(formatNeighbors([SPINE1])).not.toContain('Interface:');
  });

  it('prints the BFD session as FRR’s show bfd peer words it', () => {
    const n = {
      ...SPINE1,
      bfd: {
        state: 'Down',
        remoteState: 'Down',
        multihop: false,
        localDiscriminator: 7,
        remoteDiscriminator: 0,
        configured: { minRx: 300, minTx: 300, multiplier: 3 },
        remote: { minRx: 300, minTx: 200, multiplier: 5 },
        remoteControlPlaneIndependent: true,
        txInterval: 1000,
        detectionTime: 0,
        localDiagnostic: 'control detection time expired',
        remoteDiagnostic: 'no diagnostic',
        transitions: 4,
        lastChange: '2026-01-01T00:00:00.000Z',
        lastDownReason: 'control detection time expired',
        lastSessionDrop: {
          at: '2026-01-01T00:00:00.000Z',
          reason: 'BFD down: control detection time expired',
        },
      },
    };
    const out = formatNeighbors([n]).split('\n');
    const at = out.indexOf('  BFD: single hop, state Down, remote state Down');
    expect(out.slice(at)).toEqual([
      '  BFD: single hop, state Down, remote state Down',
      '    Discriminators: local 7, remote 0',
      '    Configured: receive 300 ms, transmit 300 ms, multiplier 3',
      '    Peer: receive 300 ms, transmit 200 ms, multiplier 5, control plane independent',
      '    Agreed: transmit every 1000 ms, detection time 0 ms',
      '    Diagnostics: local control detection time expired, remote no diagnostic',
      '    Transitions 4, last change at 2026-01-01T00:00:00.000Z',
      '    Last down: control detection time expired',
      '    Closed the BGP session at 2026-01-01T00:00:00.000Z: BFD down: control detection time expired',
    ]);
  });

  it("tells our capabilities from the peer's: advertised, received, or both", () => {
    const n = {
      ...SPINE1,
      localCapabilities: ['multiprotocol', 'route-refresh', 'graceful-restart'],
      remoteCapabilities: ['multiprotocol', 'route-refresh', 'fqdn', 'code 73'],
    };
    const out = formatNeighbors([n]).split('\n');
    const at = out.indexOf('  Capabilities in the OPENs:');
    expect(out.slice(at - 1, at + 6)).toEqual([
      '  Capabilities in use: multiprotocol, route-refresh, four-octet-as',
      '  Capabilities in the OPENs:',
      '    multiprotocol: advertised and received',
      '    route-refresh: advertised and received',
      '    graceful-restart: advertised',
      '    fqdn: received',
      '    code 73: received',
    ]);
  });

  it('prints the last notification with its shutdown communication, the last error, admin down', () => {
    const out = formatNeighbors(NEIGHBORS);
    const blocks = out.split('\n\n');
    expect(blocks).toHaveLength(3);
    expect(blocks[1].split('\n').slice(0, 4)).toEqual([
      'BGP neighbor is 2001:db8::2, remote AS 4200000002, local AS 64512, external link',
      '  Description: spine2',
      '  BGP version 4',
      '  BGP state = Active, in this state for 00:00:05',
    ]);
    expect(blocks[1].split('\n').slice(-5)).toEqual([
      '  Connections established 3',
      '  Reconnect: next start in 17 seconds; wait 5 seconds after a reset, doubling up to 120',
      '  Last notification received: CEASE/ADMINISTRATIVE_SHUTDOWN (6/2) at 2025-01-02T03:04:05.000Z',
      '    Shutdown communication: "maintenance window"',
      '  Last error: connection refused',
    ]);
    expect(blocks[2].split('\n').slice(0, 4)).toEqual([
      'BGP neighbor is 198.18.0.4, remote AS 64512, local AS 64512, internal link',
      '  BGP version 4',
      '  BGP state = Idle, in this state for 1d01h01m',
      '  Administratively shut down',
    ]);
    expect(blocks[2]).toContain('  Reconnect: reconnect at once after a reset');
    expect(formatNeighbors([SPINE2])).toBe(blocks[1]);
  });

  it('says when there are no neighbors', () => {
    expect(formatNeighbors([])).toBe('No BGP neighbors are configured.');
  });
});

describe('show rib', () => {
  it('marks best "*>", multipath "*=", others "* "', () => {
    const p = RIB[0].paths[0];
    expect([
      statusCode(p),
      statusCode({ ...p, best: false }),
      statusCode({ ...p, best: false, multipath: false }),
    ]).toEqual(['*>', '*=', '* ']);
    expect([pathColumn(p), pathColumn(RIB[0].paths[1]), pathColumn(RIB[2].paths[0])]).toEqual([
      '65001 i',
      '65003 65004 ?',
      'i',
    ]);
  });

  it('prints the table as vtysh does, the prefix on its first path only', () => {
    expect(formatRibTable(RIB, 1000)).toBe(
      lines(
        'Status codes: * valid, > best, = multipath',
        'Origin codes: i - IGP, e - EGP, ? - incomplete',
        '',
        '   Network           Next Hop      Metric LocPrf Path',
        '*> 198.18.10.0/24    198.18.0.2         0    100 65001 i',
        '*                    198.18.0.4              100 65003 65004 ?',
        '*> 198.18.20.0/24    198.18.0.2        20        65001 65005 e',
        '*> 198.19.5.7/32     198.18.0.1              100 i',
        '*> 2001:db8:100::/48 2001:db8::1:2               65001 i',
        '',
        'Displayed 4 routes and 5 total paths',
      ),
    );
  });

  it('says when the limit cut the output, and when there is nothing', () => {
    expect(formatRibTable(RIB.slice(0, 2), 2).split('\n').slice(-2)).toEqual([
      'Displayed 2 routes and 3 total paths',
      '(only the first 2 prefixes are shown; --limit N shows more)',
    ]);
    expect(formatRibTable([], 1000)).toBe('No prefixes to display.');
  });

  it('prints one prefix with every path and the best path selection reason', () => {
    expect(formatRibDetail([RIB[0]])).toBe(
      lines(
        'BGP routing table entry for 198.18.10.0/24',
        'Paths: (2 available, best #1)',
        '  65001',
        '    198.18.0.2 from spine1',
        '      Origin IGP, metric 0, localpref 100, valid, multipath, best',
        '      Best path selection reason: AS Path',
        '      Community: 65001:100 no-export',
        '      Large Community: 65001:1:2',
        '      Extended Community: rt:65001:100 0x4300:000000000007',
        '  65003 65004',
        '    198.18.0.4 from 198.18.0.4',
        '      Origin incomplete, localpref 100, valid',
      ),
    );
    expect(formatRibDetail([RIB[2]])).toBe(
      lines(
        'BGP routing table entry for 198.19.5.7/32',
        'Paths: (1 available, best #1)',
        '  Local',
        '    198.18.0.1 from local',
        '      Origin IGP, localpref 100, valid, best',
        '      Best path selection reason: First path received',
      ),
    );
    const noBest = { prefix: RIB[0].prefix, paths: [RIB[0].paths[1]] };
    expect(formatRibDetail([noBest]).split('\n')[1]).toBe('Paths: (1 available, no best path)');
    expect(formatRibDetail([])).toBe('% Network not in table');
  });

  it('names the OVN row of an ovn path and why its next hop was chosen', () => {
    const path = {
      ...RIB[2].paths[0],
      from: 'ovn',
      nextHop: '198.18.100.12',
      ovn: {
        kind: 'floating-ip',
        origin: {
          db: 'nb' as const,
          table: 'NAT',
          uuid: '6f1c2b0e-9a41-4c55-8d0e-2c4b8f3a1d10',
          name: 'router1/198.18.64.100',
        },
        why: 'chassis hv1 (Port_Binding vm1), Encap ip',
      },
    };
    expect(
      formatRibDetail([{ prefix: '198.18.64.100/32', paths: [path] }])
        .split('\n')
        .slice(2),
    ).toEqual([
      '  Local',
      '    198.18.100.12 from ovn',
      '      Origin IGP, localpref 100, valid, best',
      '      Best path selection reason: First path received',
      '      OVN floating-ip: NB NAT router1/198.18.64.100 (6f1c2b0e-9a41-4c55-8d0e-2c4b8f3a1d10)',
      '      Next hop because: chassis hv1 (Port_Binding vm1), Encap ip',
    ]);
  });

  it('prints what one neighbor was sent or sent us', () => {
    expect(formatAdjRib([RIB[2]], 'advertised', 'spine1', 1000)).toBe(
      lines(
        'Status codes: * valid, > best, = multipath',
        'Origin codes: i - IGP, e - EGP, ? - incomplete',
        '',
        '   Network       Next Hop   Metric LocPrf Path',
        '*> 198.19.5.7/32 198.18.0.1           100 i',
        '',
        'Total number of prefixes 1',
      ),
    );
    expect(formatAdjRib([], 'advertised', 'spine2')).toBe('No prefixes advertised to spine2.');
    expect(formatAdjRib([], 'received', 'spine2')).toBe('No prefixes received from spine2.');
  });
});

describe('show received', () => {
  const base = RIB[0].paths[1];
  const path = (pathId: number, verdict: PathView['verdict'], best: boolean): PathView => ({
    ...base,
    from: 'spine2',
    pathId,
    verdict,
    best,
  });

  it('lists an add-path prefix once with each path, one best, and marks rejected and looped paths', () => {
    const entries: RibEntryView[] = [
      { prefix: '198.18.1.0/24', paths: [path(1, 'accepted', false), path(2, 'accepted', true)] },
      { prefix: '198.18.2.0/24', paths: [path(1, 'policy-rejected', false)] },
      { prefix: '198.18.3.0/24', paths: [path(1, 'as-path-loop', false)] },
    ];
    const out = formatAdjRib(entries, 'received', 'spine2').split('\n');
    expect(out[0]).toMatch(/x rejected by import policy/);
    expect(out).toContain('Paths as received, before import policy.');
    const rows = out.filter((l) => /^[*xl]/.test(l));
    expect(rows.map((l) => l.slice(0, 2))).toEqual(['* ', '*>', 'x ', 'l ']);
    expect(rows.filter((l) => l.includes('198.18.1.0/24'))).toHaveLength(1);
    expect(out.at(-1)).toBe(
      "Total number of prefixes 3, paths 4: 2 accepted (show summary's PfxRcd), 1 rejected by policy, 1 denied by a loop rule",
    );
  });

  it('prints --json keyed by prefix, each prefix with all its paths', () => {
    const entries: RibEntryView[] = [
      { prefix: '198.18.1.0/24', paths: [path(1, 'accepted', false), path(2, 'accepted', true)] },
    ];
    expect(routesJson(entries)).toEqual({ routes: { '198.18.1.0/24': entries[0]!.paths } });
  });
});

describe('show ovn, show ovn problems, show sinks', () => {
  it('lists each OVN route with its row and why its next hop, then counts what was not advertised', () => {
    const out = formatOvn(OVN).split('\n');
    expect(out.slice(0, 4)).toEqual([
      'OVN mode central',
      'Northbound: connected (unix:/run/ovn/ovnnb_db.sock)',
      'Southbound: connected (unix:/run/ovn/ovnsb_db.sock)',
      'Routes: 1 (floating-ip 1), last derivation 0.4 ms',
    ]);
    expect(out[5]).toMatch(/^Prefix +Next hop +Kind +From +Next hop because$/);
    expect(out[6]).toMatch(
      /^198\.18\.64\.100\/32 +198\.18\.1\.12 +floating-ip +NAT router1 198\.18\.64\.100 +chassis hv1 \(Port_Binding vm1\), Encap ip$/,
    );
    expect(out.at(-1)).toBe('Not advertised: 1 (show ovn problems)');
    expect(formatOvn(null)).toBe('OVN is not configured (no ovn or ovn_route_tables section)');
  });

  it('OVN route tables: each table, then its routes with their metrics, state, MED and prepends', () => {
    const view: OvnView = {
      mode: 'route tables (OVN 25.03+, per chassis)',
      nb: 'not used',
      sb: 'synced (unix:/run/ovn/ovnsb_db.sock)',
      routes: [],
      problems: [],
      counts: { advertised: 2, held: 1 },
      tables: [
        {
          name: 'lr0',
          table: 2,
          state: 'following, last read 3 s ago (start)',
          learnSink: 'ovn-table lr0',
          routes: [
            { prefix: '198.18.171.0/24', metrics: [1000], state: 'advertised', med: 1000 },
            { prefix: '198.18.171.10/32', metrics: [100, 1000], state: 'advertised', med: 100 },
            { prefix: '198.18.171.20/32', metrics: [], state: 'held', med: 4294967295, heldFor: 12 },
          ],
        },
        { name: 'lr9', state: 'router not in the Southbound', routes: [] },
      ],
    };
    const out = formatOvn(view).split('\n');
    expect(out).toContain(
      'Route table lr0 (table 2): following, last read 3 s ago (start); learned routes written by sink ovn-table lr0',
    );
    expect(out.find((l) => l.startsWith('198.18.171.10/32'))).toMatch(
      /^198\.18\.171\.10\/32 +100,1000 +advertised +100 *$/,
    );
    expect(out.find((l) => l.startsWith('198.18.171.20/32'))).toMatch(
      /^198\.18\.171\.20\/32 +- +held 12 s +4294967295 *$/,
    );
    expect(out).toContain('Route table lr9: router not in the Southbound');
  });

  it('names an Advertised_Route row by router, port and uuid, and says the source', () => {
    const out = formatOvn({
      ...OVN,
      source: 'auto (Advertised_Route in SB)',
      routes: [
        {
          prefix: '198.18.171.10/32',
          nextHop: '198.18.171.11',
          kind: 'nat',
          origin: {
            db: 'sb',
            table: 'Advertised_Route',
            uuid: '65a44c6b-e44a-4ab5-9a33-5ddee65391d7',
            name: 'lr0/lr0-ext',
          },
          why: 'chassis hv1 (tracked port lr0-ext via cr-lr0-ext), Encap ip',
        },
      ],
    }).split('\n');
    expect(out[1]).toBe('Source: auto (Advertised_Route in SB)');
    expect(out[7]).toMatch(
      /^198\.18\.171\.10\/32 +198\.18\.171\.11 +nat +Advertised_Route lr0\/lr0-ext 65a44c6b-e44a-4ab5-9a33-5ddee65391d7 +chassis hv1/,
    );
  });

  it('problems name the row, its uuid and the reason', () => {
    const out = formatOvnProblems(OVN).split('\n');
    expect(out[1]).toMatch(
      /^port-unbound +NAT router1 198\.18\.64\.105 +0b7d5e21-\S+ +logical port vm9 is not bound/,
    );
    expect(formatOvnProblems({ ...OVN, problems: [] })).toBe('Every OVN route could be advertised');
  });

  it('sinks show state, what is pending and the last error', () => {
    const out = formatSinks(SINKS).split('\n');
    expect(out[0]).toMatch(/^Sink +State +Pending +Applied +Failures +Last error$/);
    expect(out[1]).toMatch(/^kernel +in-sync +0 +1204 +0$/);
    expect(out[2]).toMatch(/^zebra +retrying +12 +0 +3 connect ENOENT \/run\/frr\/zserv\.api$/);
    expect(formatSinks([])).toBe('No sinks configured: best paths are not installed anywhere');
  });

  it("sinks show their target's own counters, one line each, in its order", () => {
    const kernel = {
      ...SINKS[0],
      details: [
        { name: 'routes', value: 1204 },
        { name: 'conflicts', value: 1 },
        { name: 'put back', value: 3 },
        { name: 'monitor', value: 'on' },
      ],
    };
    expect(formatSinks([kernel, SINKS[1]]).split('\n').slice(3)).toEqual([
      '',
      'kernel: routes 1204, conflicts 1, put back 3, monitor on',
    ]);
  });

  it('sinks list the prefixes they could not install, with why', () => {
    const kernel = {
      ...SINKS[0],
      notInstalled: [{ prefix: '198.18.20.0/24', reason: 'conflict: a route of protocol static holds it' }],
    };
    expect(formatSinks([kernel, SINKS[1]]).split('\n').slice(3)).toEqual([
      '',
      'Not installed by kernel:',
      '  198.18.20.0/24  conflict: a route of protocol static holds it',
    ]);
  });
});
