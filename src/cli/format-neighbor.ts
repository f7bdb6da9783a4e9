/** `show neighbors`: vtysh's `show bgp neighbors`, one block per neighbor. */
import type { BfdView, MessageCounts, NeighborDetail, NotificationView } from '../api/index.js';
import { BGP_VERSION } from '../bgp/wire/index.js';
import { description, FAMILY_TITLE, totalMessages } from './format-summary.js';
import { formatUpDown } from './format-time.js';
import { renderTable } from './table.js';

const INDENT = '  ';

const MESSAGE_ROWS: readonly [string, keyof MessageCounts][] = [
  ['Opens:', 'open'],
  ['Notifications:', 'notification'],
  ['Updates:', 'update'],
  ['Keepalives:', 'keepalive'],
  ['Route Refresh:', 'routeRefresh'],
];

function messageStatistics(n: NeighborDetail): string[] {
  const { sent, received } = n.messages;
  const rows = [
    ...MESSAGE_ROWS.map(([label, key]) => [label, String(sent[key]), String(received[key])]),
    ['Total:', String(totalMessages(sent)), String(totalMessages(received))],
  ];
  const table = renderTable(
    [
      { header: '', align: 'left' },
      { header: 'Sent', align: 'right' },
      { header: 'Rcvd', align: 'right' },
    ],
    rows,
  );
  return ['Message statistics:', ...table.map((l) => `${INDENT}${l}`)];
}

function notificationLines(n: NotificationView): string[] {
  const lines = [`Last notification ${n.direction}: ${n.description} at ${n.at}`];
  if (n.message !== undefined) lines.push(`${INDENT}Shutdown communication: ${JSON.stringify(n.message)}`);
  return lines;
}

/** Each capability of either OPEN, as FRR words it: advertised (ours), received (the peer's), or both. */
function openCapabilityLines(n: NeighborDetail): string[] {
  const ours = new Set(n.localCapabilities ?? []);
  const theirs = new Set(n.remoteCapabilities ?? []);
  if (ours.size === 0 && theirs.size === 0) return [];
  const lines = ['Capabilities in the OPENs:'];
  for (const name of new Set([...ours, ...theirs])) {
    const how =
      ours.has(name) && theirs.has(name)
        ? 'advertised and received'
        : ours.has(name)
          ? 'advertised'
          : 'received';
    lines.push(`${INDENT}${name}: ${how}`);
  }
  return lines;
}

function stateLine(n: NeighborDetail): string {
  const time = formatUpDown(n.stateSeconds);
  return n.state === 'Established'
    ? `BGP state = Established, up for ${time}`
    : `BGP state = ${n.state}, in this state for ${time}`;
}

/** FRR's "Next start timer due in", with the back-off as configured. */
function reconnectLine(n: NeighborDetail): string {
  const backoff =
    n.idleHoldTime === 0
      ? 'reconnect at once after a reset'
      : n.maxIdleHoldTime > n.idleHoldTime
        ? `wait ${n.idleHoldTime} seconds after a reset, doubling up to ${n.maxIdleHoldTime}`
        : `wait ${n.idleHoldTime} seconds after a reset`;
  const due = n.reconnectIn !== undefined ? `next start in ${n.reconnectIn} seconds; ` : '';
  return `Reconnect: ${due}${backoff}`;
}

/** The BFD session, as FRR's `show bfd peer` words it. */
function bfdLines(b: BfdView): string[] {
  const lines = [
    `BFD: ${b.multihop ? 'multihop' : 'single hop'}, state ${b.state}, remote state ${b.remoteState}`,
    `${INDENT}Discriminators: local ${b.localDiscriminator}, remote ${b.remoteDiscriminator}`,
    `${INDENT}Configured: receive ${b.configured.minRx} ms, transmit ${b.configured.minTx} ms, multiplier ${b.configured.multiplier}`,
    `${INDENT}Peer: receive ${b.remote.minRx} ms, transmit ${b.remote.minTx} ms, multiplier ${b.remote.multiplier}${b.remoteControlPlaneIndependent ? ', control plane independent' : ''}`,
    `${INDENT}Agreed: transmit every ${b.txInterval} ms, detection time ${b.detectionTime} ms`,
    `${INDENT}Diagnostics: local ${b.localDiagnostic}, remote ${b.remoteDiagnostic}`,
    `${INDENT}Transitions ${b.transitions}, last change at ${b.lastChange}`,
  ];
  if (b.lastDownReason) lines.push(`${INDENT}Last down: ${b.lastDownReason}`);
  if (b.lastSessionDrop)
    lines.push(`${INDENT}Closed the BGP session at ${b.lastSessionDrop.at}: ${b.lastSessionDrop.reason}`);
  return lines;
}

export function formatNeighbor(n: NeighborDetail): string {
  const body: string[] = [];
  if (description(n) !== 'N/A') body.push(`Description: ${n.name}`);
  body.push(`BGP version ${BGP_VERSION}${n.remoteRouterId ? `, remote router ID ${n.remoteRouterId}` : ''}`);
  body.push(stateLine(n));
  if (n.adminDown) body.push('Administratively shut down');
  if (n.holdTime !== undefined) {
    const keepalive =
      n.keepaliveTime !== undefined ? `, keepalive interval is ${n.keepaliveTime} seconds` : '';
    body.push(`Hold time is ${n.holdTime} seconds${keepalive}`);
  }
  if (n.localAddress) body.push(`Local host: ${n.localAddress}`);
  if (n.families.length)
    body.push(`Address families: ${n.families.map((f) => FAMILY_TITLE[f] ?? f).join(', ')}`);
  if (n.capabilities.length) body.push(`Capabilities in use: ${n.capabilities.join(', ')}`);
  body.push(...openCapabilityLines(n));
  body.push(...messageStatistics(n));
  const counted = Object.entries(n.prefixes).filter(([, c]) => c !== undefined);
  if (counted.length) {
    body.push('Prefixes:');
    for (const [family, c] of counted) {
      const title = FAMILY_TITLE[family as keyof typeof FAMILY_TITLE] ?? family;
      body.push(
        `${INDENT}${title}: received ${c.received}, accepted ${c.accepted}, advertised ${c.advertised}`,
      );
    }
  }
  body.push(`Connections established ${n.establishedTransitions}`);
  body.push(reconnectLine(n));
  if (n.lastNotification) body.push(...notificationLines(n.lastNotification));
  if (n.lastError) body.push(`Last error: ${n.lastError}`);
  if (n.bfd) body.push(...bfdLines(n.bfd));
  const link = n.ebgp ? 'external link' : 'internal link';
  return [
    `BGP neighbor is ${n.address}, remote AS ${n.remoteAs}, local AS ${n.localAs}, ${link}`,
    ...body.map((l) => `${INDENT}${l}`),
  ].join('\n');
}

export function formatNeighbors(list: readonly NeighborDetail[]): string {
  if (list.length === 0) return 'No BGP neighbors are configured.';
  return list.map(formatNeighbor).join('\n\n');
}
