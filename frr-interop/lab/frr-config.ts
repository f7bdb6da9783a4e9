import {
  DEFAULT_CONNECT_RETRY_SECONDS,
  DEFAULT_HOLD_TIME_SECONDS,
  DEFAULT_KEEPALIVE_SECONDS,
} from './constants.js';
import type { DaemonSpec, Family, NeighborSpec } from './spec.js';

const AFI_BLOCK: Record<Family, string> = { ipv4: 'ipv4 unicast', ipv6: 'ipv6 unicast' };

/** Session-level lines of one neighbor, inside `router bgp` (no indentation: also used over vtysh). */
export function frrNeighborLines(n: NeighborSpec): string[] {
  const a = n.address;
  const lines = [
    `neighbor ${a} remote-as ${n.remoteAs}`,
    `neighbor ${a} timers ${n.keepalive ?? DEFAULT_KEEPALIVE_SECONDS} ${n.holdTime ?? DEFAULT_HOLD_TIME_SECONDS}`,
    // FRR's default connect-retry is 120 s, which makes every reconnect in a test slow.
    `neighbor ${a} timers connect ${n.connectRetry ?? DEFAULT_CONNECT_RETRY_SECONDS}`,
  ];
  if (n.password !== undefined) lines.push(`neighbor ${a} password ${n.password}`);
  if (n.passive) lines.push(`neighbor ${a} passive`);
  if (n.localAddress !== undefined) lines.push(`neighbor ${a} update-source ${n.localAddress}`);
  if (n.extendedNextHop) lines.push(`neighbor ${a} capability extended-nexthop`);
  if (n.multihop !== undefined) lines.push(`neighbor ${a} ebgp-multihop ${n.multihop}`);
  if (n.bfd)
    lines.push(
      `neighbor ${a} bfd`,
      ...(n.bfd.minRx !== undefined ? [`neighbor ${a} bfd profile ${bfdProfileName(a)}`] : []),
      ...(n.bfd.checkControlPlaneFailure ? [`neighbor ${a} bfd check-control-plane-failure`] : []),
    );
  return lines;
}

/** The bfdd profile carrying one neighbor's BFD timers. */
export const bfdProfileName = (address: string): string => `lab_${address.replace(/[.:]/g, '_')}`;

/**
 * bfdd.conf: one profile per neighbor with BFD timers, which `neighbor X bfd profile` names;
 * undefined when no neighbor runs BFD (bfdd is then not started).
 */
export function renderBfddConfig(spec: DaemonSpec, opts: FrrConfigOptions): string | undefined {
  const withBfd = spec.neighbors.filter((n) => n.bfd);
  if (withBfd.length === 0) return undefined;
  const out = [`log file ${opts.logFile} informational`, `hostname ${opts.hostname}`, '!', 'bfd'];
  for (const n of withBfd) {
    const b = n.bfd!;
    if (b.minRx === undefined) continue;
    out.push(
      ` profile ${bfdProfileName(n.address)}`,
      `  receive-interval ${b.minRx}`,
      `  transmit-interval ${b.minTx ?? b.minRx}`,
      `  detect-multiplier ${b.multiplier ?? 3}`,
      ' exit',
    );
  }
  out.push('exit', '!');
  return `${out.join('\n')}\n`;
}

/** Per-family lines of one neighbor, inside `address-family`. FRR offers ADD-PATH receive by default. */
export function frrNeighborFamilyLines(n: NeighborSpec, family: Family): string[] {
  if (!n.families.includes(family)) return [];
  const a = n.address;
  const lines = [`neighbor ${a} activate`];
  if (n.routeReflectorClient) lines.push(`neighbor ${a} route-reflector-client`);
  if (n.addPath === 'send' || n.addPath === 'both') lines.push(`neighbor ${a} addpath-tx-all-paths`);
  if (n.addPath === 'send') lines.push(`neighbor ${a} disable-addpath-rx`);
  return lines;
}

/** The vtysh command sequence (inside `router bgp`) that adds one neighbor to a running bgpd. */
export function frrAddNeighborCommands(n: NeighborSpec): string[] {
  const out = frrNeighborLines(n);
  for (const f of n.families) {
    out.push(`address-family ${AFI_BLOCK[f]}`, ...frrNeighborFamilyLines(n, f), 'exit-address-family');
  }
  return out;
}

export function frrAddressFamilyCommand(family: Family): string {
  return `address-family ${AFI_BLOCK[family]}`;
}

export interface FrrConfigOptions {
  readonly hostname: string;
  readonly logFile: string;
}

/** bgpd.conf for a lab FRR: FRR 8 defaults that would get in the way are turned off. */
export function renderFrrConfig(spec: DaemonSpec, opts: FrrConfigOptions): string {
  const out: string[] = [
    // First, so that errors in the lines below are logged where the lab looks for them.
    `log file ${opts.logFile} informational`,
    `hostname ${opts.hostname}`,
    '!',
    `router bgp ${spec.as}`,
    ` bgp router-id ${spec.routerId}`,
    // Without this, eBGP routes are neither accepted nor sent unless route-maps are configured.
    ' no bgp ebgp-requires-policy',
    // Lets `network` originate prefixes that are not in the RIB.
    ' no bgp network import-check',
    // Otherwise IPv6 neighbors get ipv4-unicast activated as well.
    ' no bgp default ipv4-unicast',
  ];
  // RFC 4724 is a bgpd-wide mode in FRR: on when any neighbor asks for it, F bit included.
  const gr = spec.neighbors.find((n) => n.gracefulRestart)?.gracefulRestart;
  if (gr) {
    out.push(' bgp graceful-restart', ' bgp graceful-restart preserve-fw-state');
    if (gr.restartTime !== undefined) out.push(` bgp graceful-restart restart-time ${gr.restartTime}`);
    if (gr.longLivedStaleTime !== undefined)
      out.push(` bgp long-lived-graceful-restart stale-time ${gr.longLivedStaleTime}`);
  }
  for (const n of spec.neighbors) out.push(...frrNeighborLines(n).map((l) => ` ${l}`));
  for (const f of ['ipv4', 'ipv6'] as const) {
    const body = [
      ...(spec.originate?.[f] ?? []).map((p) => `network ${p}`),
      ...spec.neighbors.flatMap((n) => frrNeighborFamilyLines(n, f)),
    ];
    if (body.length === 0) continue;
    out.push(` ${frrAddressFamilyCommand(f)}`, ...body.map((l) => `  ${l}`), ' exit-address-family');
  }
  out.push('exit', '!', ...(spec.extraConfig ?? []));
  return `${out.join('\n')}\n`;
}
