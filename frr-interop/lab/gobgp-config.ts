import {
  ADD_PATH_SEND_MAX,
  BGP_PORT,
  DEFAULT_CONNECT_RETRY_SECONDS,
  DEFAULT_HOLD_TIME_SECONDS,
  DEFAULT_KEEPALIVE_SECONDS,
  GOBGP_IDLE_HOLD_AFTER_RESET_SECONDS,
} from './constants.js';
import type { DaemonSpec, Family, NeighborSpec } from './spec.js';

export const GOBGP_FAMILY: Record<Family, string> = { ipv4: 'ipv4-unicast', ipv6: 'ipv6-unicast' };

/** Strings are validated upstream (addresses, prefixes, passwords without quotes or backslashes). */
const q = (s: string): string => `"${s}"`;

function neighborToml(n: NeighborSpec, routerId: string): string[] {
  const out = [
    '',
    '[[neighbors]]',
    '  [neighbors.config]',
    `    neighbor-address = ${q(n.address)}`,
    `    peer-as = ${n.remoteAs}`,
  ];
  if (n.password !== undefined) out.push(`    auth-password = ${q(n.password)}`);
  out.push(
    '  [neighbors.timers.config]',
    `    hold-time = ${n.holdTime ?? DEFAULT_HOLD_TIME_SECONDS}`,
    `    keepalive-interval = ${n.keepalive ?? DEFAULT_KEEPALIVE_SECONDS}`,
    `    connect-retry = ${n.connectRetry ?? DEFAULT_CONNECT_RETRY_SECONDS}`,
    `    idle-hold-time-after-reset = ${GOBGP_IDLE_HOLD_AFTER_RESET_SECONDS}`,
  );
  if (n.passive || n.localAddress !== undefined) {
    out.push('  [neighbors.transport.config]');
    if (n.passive) out.push('    passive-mode = true');
    if (n.localAddress !== undefined) out.push(`    local-address = ${q(n.localAddress)}`);
  }
  if (n.routeReflectorClient) {
    out.push(
      '  [neighbors.route-reflector.config]',
      '    route-reflector-client = true',
      `    route-reflector-cluster-id = ${q(routerId)}`,
    );
  }
  if (n.gracefulRestart) {
    out.push(
      '  [neighbors.graceful-restart.config]',
      '    enabled = true',
      '    notification-enabled = true',
      ...(n.gracefulRestart.restartTime !== undefined
        ? [`    restart-time = ${n.gracefulRestart.restartTime}`]
        : []),
      ...(n.gracefulRestart.longLivedStaleTime !== undefined ? ['    long-lived-enabled = true'] : []),
    );
  }
  for (const f of n.families) {
    out.push(
      '  [[neighbors.afi-safis]]',
      '    [neighbors.afi-safis.config]',
      `      afi-safi-name = ${q(GOBGP_FAMILY[f])}`,
    );
    if (n.gracefulRestart)
      out.push('    [neighbors.afi-safis.mp-graceful-restart.config]', '      enabled = true');
    const llst = n.gracefulRestart?.longLivedStaleTime;
    if (llst !== undefined) {
      out.push(
        '    [neighbors.afi-safis.long-lived-graceful-restart.config]',
        '      enabled = true',
        `      restart-time = ${llst}`,
      );
    }
    if (n.addPath !== undefined) {
      out.push('    [neighbors.afi-safis.add-paths.config]');
      if (n.addPath !== 'send') out.push('      receive = true');
      if (n.addPath !== 'receive') out.push(`      send-max = ${ADD_PATH_SEND_MAX}`);
    }
  }
  return out;
}

/**
 * gobgpd.toml. gobgpd has no static routes in its config: the lab adds originated prefixes with
 * `gobgp global rib add` once it runs. gobgpd always offers the extended next hop capability
 * for IPv4 unicast, so `extendedNextHop` needs no line here.
 */
export function renderGobgpConfig(spec: DaemonSpec): string {
  const out = [
    '[global.config]',
    `  as = ${spec.as}`,
    `  router-id = ${q(spec.routerId)}`,
    `  port = ${BGP_PORT}`,
  ];
  for (const n of spec.neighbors) out.push(...neighborToml(n, spec.routerId));
  out.push(...(spec.extraConfig ?? []));
  return `${out.join('\n')}\n`;
}
