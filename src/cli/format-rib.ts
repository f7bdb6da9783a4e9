/** `show rib`, `show advertised`, `show received`: vtysh's `show bgp ipv4 unicast` tables and entry details. */
import type { PathView, RibEntryView } from '../api/index.js';
import { type Column, renderTable } from './table.js';

const ORIGIN_CODE: Readonly<Record<PathView['origin'], string>> = { igp: 'i', egp: 'e', incomplete: '?' };
const ORIGIN_NAME: Readonly<Record<PathView['origin'], string>> = {
  igp: 'IGP',
  egp: 'EGP',
  incomplete: 'incomplete',
};

export const RIB_LEGEND = [
  'Status codes: * valid, > best, = multipath',
  'Origin codes: i - IGP, e - EGP, ? - incomplete',
];

const COLUMNS: readonly Column[] = [
  { header: '', align: 'left' },
  { header: 'Network', align: 'left' },
  { header: 'Next Hop', align: 'left' },
  { header: 'Metric', align: 'right' },
  { header: 'LocPrf', align: 'right' },
  { header: 'Path', align: 'left' },
];

/** What `show received` marks a path that did not become a candidate with, by verdict. */
const NOT_ACCEPTED_CODE: Readonly<Record<string, string>> = {
  'policy-rejected': 'x ',
  'as-path-loop': 'l ',
  'originator-id-loop': 'l ',
  'cluster-list-loop': 'l ',
};

const RECEIVED_LEGEND = [
  'Status codes: * valid (accepted), > best, x rejected by import policy,',
  '              l denied by a loop rule (AS path, originator ID, cluster list)',
  'Origin codes: i - IGP, e - EGP, ? - incomplete',
  'Paths as received, before import policy.',
];

/** "*>" best, "*=" multipath, "* " any other valid path; on `show received`, "x " and "l " too. */
export function statusCode(p: PathView): string {
  const rejected = p.verdict === undefined ? undefined : NOT_ACCEPTED_CODE[p.verdict];
  if (rejected !== undefined) return rejected;
  return p.best ? '*>' : p.multipath ? '*=' : '* ';
}

/** The AS path then the origin code, as the Path column shows it: "65001 65002 i". */
export function pathColumn(p: PathView): string {
  return p.asPath ? `${p.asPath} ${ORIGIN_CODE[p.origin]}` : ORIGIN_CODE[p.origin];
}

const optional = (n: number | undefined) => (n === undefined ? '' : String(n));

function tableLines(entries: readonly RibEntryView[]): string[] {
  // The prefix is printed on its first path only, as vtysh does.
  const rows = entries.flatMap((e) =>
    e.paths.map((p, i) => [
      statusCode(p),
      i === 0 ? e.prefix : '',
      p.nextHop,
      optional(p.med),
      optional(p.localPref),
      pathColumn(p),
    ]),
  );
  return renderTable(COLUMNS, rows);
}

function limitNote(count: number, limit: number | undefined): string[] {
  return limit !== undefined && count >= limit
    ? [`(only the first ${limit} prefixes are shown; --limit N shows more)`]
    : [];
}

const pathCount = (entries: readonly RibEntryView[]) => entries.reduce((n, e) => n + e.paths.length, 0);

/** The Loc-RIB as a table; `limit` is the limit the query used, to say when the output was cut. */
export function formatRibTable(entries: readonly RibEntryView[], limit?: number): string {
  if (entries.length === 0) return 'No prefixes to display.';
  return [
    ...RIB_LEGEND,
    '',
    ...tableLines(entries),
    '',
    `Displayed ${entries.length} routes and ${pathCount(entries)} total paths`,
    ...limitNote(entries.length, limit),
  ].join('\n');
}

function pathDetail(p: PathView): string[] {
  const flags = [
    `Origin ${ORIGIN_NAME[p.origin]}`,
    ...(p.med !== undefined ? [`metric ${p.med}`] : []),
    ...(p.localPref !== undefined ? [`localpref ${p.localPref}`] : []),
    'valid',
    ...(p.multipath ? ['multipath'] : []),
    ...(p.best ? ['best'] : []),
  ];
  const lines = [`  ${p.asPath || 'Local'}`, `    ${p.nextHop} from ${p.from}`, `      ${flags.join(', ')}`];
  if (p.best && p.reason) lines.push(`      Best path selection reason: ${p.reason}`);
  if (p.communities.length) lines.push(`      Community: ${p.communities.join(' ')}`);
  if (p.largeCommunities.length) lines.push(`      Large Community: ${p.largeCommunities.join(' ')}`);
  if (p.extendedCommunities?.length)
    lines.push(`      Extended Community: ${p.extendedCommunities.join(' ')}`);
  if (p.ovn) {
    const o = p.ovn.origin;
    lines.push(`      OVN ${p.ovn.kind}: ${o.db.toUpperCase()} ${o.table} ${o.name} (${o.uuid})`);
    lines.push(`      Next hop because: ${p.ovn.why}`);
  }
  return lines;
}

/** One prefix with every path in full, as `show bgp ipv4 unicast PREFIX` prints it. */
export function formatRibEntry(e: RibEntryView): string {
  const best = e.paths.findIndex((p) => p.best);
  const bestText = best === -1 ? 'no best path' : `best #${best + 1}`;
  return [
    `BGP routing table entry for ${e.prefix}`,
    `Paths: (${e.paths.length} available, ${bestText})`,
    ...e.paths.flatMap(pathDetail),
  ].join('\n');
}

export const NOT_IN_TABLE = '% Network not in table';

export function formatRibDetail(entries: readonly RibEntryView[]): string {
  return entries.length ? entries.map(formatRibEntry).join('\n\n') : NOT_IN_TABLE;
}

/** What was advertised to, or received from, one neighbor. */
export function formatAdjRib(
  entries: readonly RibEntryView[],
  direction: 'advertised' | 'received',
  peer: string,
  limit?: number,
): string {
  if (entries.length === 0) {
    return direction === 'advertised'
      ? `No prefixes advertised to ${peer}.`
      : `No prefixes received from ${peer}.`;
  }
  const paths = pathCount(entries);
  const total =
    direction === 'advertised'
      ? [`Total number of prefixes ${entries.length}`]
      : [
          `Total number of prefixes ${entries.length}, paths ${paths}: ` +
            `${acceptedCount(entries)} accepted (show summary's PfxRcd), ` +
            `${countVerdict(entries, 'policy-rejected')} rejected by policy, ${loopCount(entries)} denied by a loop rule`,
        ];
  return [
    ...(direction === 'received' ? RECEIVED_LEGEND : RIB_LEGEND),
    '',
    ...tableLines(entries),
    '',
    ...total,
    ...limitNote(entries.length, limit),
  ].join('\n');
}

const countVerdict = (entries: readonly RibEntryView[], verdict: PathView['verdict']) =>
  entries.reduce((n, e) => n + e.paths.filter((p) => p.verdict === verdict).length, 0);
const acceptedCount = (entries: readonly RibEntryView[]) => countVerdict(entries, 'accepted');
const loopCount = (entries: readonly RibEntryView[]) =>
  pathCount(entries) - acceptedCount(entries) - countVerdict(entries, 'policy-rejected');
