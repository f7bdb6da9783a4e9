import type { OvnOriginView, OvnTableView, OvnView, SinkView } from '../api/index.js';
import { renderTable } from './table.js';

/** An SB Advertised_Route row has no name of its own: its uuid goes with the router and port. */
function fromText(o: OvnOriginView): string {
  return o.db === 'sb' ? `${o.table} ${o.name} ${o.uuid}` : `${o.table} ${o.name}`;
}

/** `show ovn`: connection, then every advertised route with the OVN row it came from. */
export function formatOvn(v: OvnView | null): string {
  if (v === null) return 'OVN is not configured (no ovn or ovn_route_tables section)';
  const counts = Object.entries(v.counts)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  const lines = [
    `OVN mode ${v.mode}`,
    ...(v.source === undefined ? [] : [`Source: ${v.source}`]),
    `Northbound: ${v.nb}`,
    `Southbound: ${v.sb}`,
    `Routes: ${v.routes.length}${counts ? ` (${counts})` : ''}${v.lastDerivationMs === undefined ? '' : `, last derivation ${v.lastDerivationMs.toFixed(1)} ms`}`,
    '',
  ];
  const rows = v.routes.map((r) => [r.prefix, r.nextHop, r.kind, fromText(r.origin), r.why]);
  lines.push(
    ...renderTable(
      [
        { header: 'Prefix', align: 'left' },
        { header: 'Next hop', align: 'left' },
        { header: 'Kind', align: 'left' },
        { header: 'From', align: 'left' },
        { header: 'Next hop because', align: 'left' },
      ],
      rows,
    ),
  );
  if (v.problems.length > 0) lines.push('', `Not advertised: ${v.problems.length} (show ovn problems)`);
  for (const t of v.tables ?? []) lines.push('', ...formatTable(t));
  return lines.join('\n');
}

/** One OVN route table: its state, then each route with its metrics and what we advertise. */
function formatTable(t: OvnTableView): string[] {
  const head = `Route table ${t.name}${t.table === undefined ? '' : ` (table ${t.table})`}: ${t.state}${t.learnSink ? `; learned routes written by sink ${t.learnSink}` : ''}`;
  const rows = t.routes.map((r) => [
    r.prefix,
    r.metrics.join(',') || '-',
    r.state === 'held' ? `held ${r.heldFor ?? 0} s` : r.state,
    r.med === undefined ? '' : String(r.med),
    r.prepend === undefined ? '' : String(r.prepend),
  ]);
  return [
    head,
    ...renderTable(
      [
        { header: 'Prefix', align: 'left' },
        { header: 'Metric', align: 'right' },
        { header: 'State', align: 'left' },
        { header: 'MED', align: 'right' },
        { header: 'Prepend', align: 'right' },
      ],
      rows,
    ),
  ];
}

/** `show ovn problems`: what OVN holds that could not be advertised, and why. */
export function formatOvnProblems(v: OvnView | null): string {
  if (v === null) return 'OVN is not configured (no ovn section)';
  if (v.problems.length === 0) return 'Every OVN route could be advertised';
  return renderTable(
    [
      { header: 'Problem', align: 'left' },
      { header: 'From', align: 'left' },
      { header: 'UUID', align: 'left' },
      { header: 'Why', align: 'left' },
    ],
    v.problems.map((p) => [p.kind, `${p.origin.table} ${p.origin.name}`, p.origin.uuid, p.message]),
  ).join('\n');
}

/** `show sinks`: each forwarding plane, its state and what waits for it. */
export function formatSinks(list: readonly SinkView[]): string {
  if (list.length === 0) return 'No sinks configured: best paths are not installed anywhere';
  const lines = renderTable(
    [
      { header: 'Sink', align: 'left' },
      { header: 'State', align: 'left' },
      { header: 'Pending', align: 'right' },
      { header: 'Applied', align: 'right' },
      { header: 'Failures', align: 'right' },
      { header: 'Last error', align: 'left' },
    ],
    list.map((s) => [
      s.name,
      s.state,
      String(s.pending),
      String(s.applied),
      String(s.failures),
      s.lastError ?? '',
    ]),
  );
  for (const s of list) {
    if (!s.details?.length) continue;
    lines.push('', `${s.name}: ${s.details.map((d) => `${d.name} ${d.value}`).join(', ')}`);
  }
  for (const s of list) {
    if (!s.notInstalled?.length) continue;
    lines.push('', `Not installed by ${s.name}:`);
    for (const n of s.notInstalled) lines.push(`  ${n.prefix}  ${n.reason}`);
  }
  return lines.join('\n');
}
