/** `show summary`: vtysh's `show bgp summary`, one table per address family. */
import type { FamilyName, MessageCounts, NeighborSummary, SummaryView } from '../api/index.js';
import { formatUpDown } from './format-time.js';
import { type Column, renderTable } from './table.js';

/** In the order vtysh prints them. */
export const FAMILY_TITLE: Readonly<Record<FamilyName, string>> = {
  'ipv4-unicast': 'IPv4 Unicast',
  'ipv6-unicast': 'IPv6 Unicast',
};
const FAMILIES = Object.keys(FAMILY_TITLE) as FamilyName[];

const COLUMNS: readonly Column[] = [
  { header: 'Neighbor', align: 'left' },
  { header: 'AS', align: 'right' },
  { header: 'MsgRcvd', align: 'right' },
  { header: 'MsgSent', align: 'right' },
  { header: 'Up/Down', align: 'right' },
  { header: 'State/PfxRcd', align: 'right' },
  { header: 'PfxSnt', align: 'right' },
  { header: 'Desc', align: 'left' },
];

export function totalMessages(c: MessageCounts): number {
  return c.open + c.update + c.notification + c.keepalive + c.routeRefresh;
}

/** Established shows the accepted prefix count, as FRR's State/PfxRcd does; otherwise the state. */
export function stateOrPrefixes(n: NeighborSummary, family: FamilyName | null): string {
  if (n.adminDown) return 'Idle (Admin)';
  if (n.state !== 'Established') return n.state;
  return String(family ? (n.prefixes[family]?.accepted ?? 0) : 0);
}

/** The name, unless it is only the address again. */
export function description(n: NeighborSummary): string {
  return n.name === n.address ? 'N/A' : n.name;
}

function row(n: NeighborSummary, family: FamilyName | null): string[] {
  return [
    n.address,
    String(n.remoteAs),
    String(totalMessages(n.messages.received)),
    String(totalMessages(n.messages.sent)),
    formatUpDown(n.stateSeconds),
    stateOrPrefixes(n, family),
    String(family ? (n.prefixes[family]?.advertised ?? 0) : 0),
    description(n),
  ];
}

function section(title: string, neighbors: readonly NeighborSummary[], family: FamilyName | null): string[] {
  return [
    `${title}:`,
    ...renderTable(
      COLUMNS,
      neighbors.map((n) => row(n, family)),
    ),
    '',
    `Total number of neighbors ${neighbors.length}`,
  ];
}

/**
 * A neighbor is listed under each family it has counts for; one with none at all (nothing
 * configured or known yet) under every family printed, so no neighbor is ever left out.
 */
export function formatSummary(s: SummaryView): string {
  const head = [
    `BGP router identifier ${s.routerId}, local AS number ${s.localAs}`,
    `RIB entries: ${FAMILIES.map((f) => `${FAMILY_TITLE[f]} ${s.rib[f] ?? 0}`).join(', ')}`,
  ];
  if (s.neighbors.length === 0) return [...head, '', 'No BGP neighbors are configured.'].join('\n');
  const familyless = (n: NeighborSummary) => !FAMILIES.some((f) => n.prefixes[f]);
  const families = FAMILIES.filter((f) => s.neighbors.some((n) => n.prefixes[f]));
  const sections = families.length
    ? families.map((f) =>
        section(
          `${FAMILY_TITLE[f]} Summary`,
          s.neighbors.filter((n) => n.prefixes[f] || familyless(n)),
          f,
        ),
      )
    : [section('Neighbors (no address family yet)', s.neighbors, null)];
  return [...head, ...sections.flatMap((lines) => ['', ...lines])].join('\n');
}
