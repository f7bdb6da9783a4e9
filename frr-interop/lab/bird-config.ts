import {
  BIRD_CONNECT_DELAY_SECONDS,
  BIRD_ERROR_WAIT_SECONDS,
  BIRD_GRACEFUL_RESTART_WAIT_SECONDS,
  DEFAULT_CONNECT_RETRY_SECONDS,
  DEFAULT_HOLD_TIME_SECONDS,
  DEFAULT_KEEPALIVE_SECONDS,
} from './constants.js';
import type { DaemonSpec, Family, NeighborSpec } from './spec.js';

/** BIRD has one protocol per neighbor; its name is derived from the address so queries can find it. */
export const birdProtocolName = (address: string): string => `nb_${address.replace(/[.:]/g, '_')}`;

const STATIC_PROTOCOL: Record<Family, string> = { ipv4: 'lab_static4', ipv6: 'lab_static6' };
const ADD_PATH: Record<string, string> = { send: 'tx', receive: 'rx', both: 'on' };

function channel(n: NeighborSpec, family: Family): string {
  const items = ['import all', 'export filter lab_export'];
  if (n.addPath !== undefined) items.push(`add paths ${ADD_PATH[n.addPath]}`);
  if (n.extendedNextHop && family === 'ipv4') items.push('extended next hop on');
  return `  ${family} { ${items.map((i) => `${i};`).join(' ')} };`;
}

function protocol(n: NeighborSpec, as: number): string[] {
  const local = n.localAddress === undefined ? '' : ` ${n.localAddress}`;
  const out = [
    `protocol bgp ${birdProtocolName(n.address)} {`,
    `  local${local} as ${as};`,
    `  neighbor ${n.address} as ${n.remoteAs};`,
    `  hold time ${n.holdTime ?? DEFAULT_HOLD_TIME_SECONDS};`,
    `  keepalive time ${n.keepalive ?? DEFAULT_KEEPALIVE_SECONDS};`,
    `  connect retry time ${n.connectRetry ?? DEFAULT_CONNECT_RETRY_SECONDS};`,
    // BIRD's defaults (5 s before the first connect, 60-300 s after an error) would stall tests.
    `  connect delay time ${BIRD_CONNECT_DELAY_SECONDS};`,
    `  error wait time ${BIRD_ERROR_WAIT_SECONDS.min}, ${BIRD_ERROR_WAIT_SECONDS.max};`,
  ];
  if (n.password !== undefined) out.push(`  password "${n.password}";`);
  if (n.passive) out.push('  passive on;');
  if (n.routeReflectorClient) out.push('  rr client on;');
  if (n.multihop !== undefined) out.push(`  multihop ${n.multihop};`);
  if (n.bfd) out.push('  bfd on;');
  // RFC 4724 in both roles ("aware", BIRD's default, is the helper role alone). BIRD sets the
  // F bit only while it recovers from its own restart (`bird -R`).
  const gr = n.gracefulRestart;
  if (gr) {
    out.push('  graceful restart on;');
    if (gr.restartTime !== undefined) out.push(`  graceful restart time ${gr.restartTime};`);
    if (gr.longLivedStaleTime !== undefined)
      out.push('  long lived graceful restart on;', `  long lived stale time ${gr.longLivedStaleTime};`);
  }
  for (const f of n.families) out.push(channel(n, f));
  out.push('}');
  return out;
}

export interface BirdConfigOptions {
  readonly logFile: string;
}

/**
 * bird.conf for a lab BIRD 2. No kernel protocol: nothing is exported to the namespace's kernel.
 * `protocol direct` puts the connected subnets in the tables so iBGP next hops resolve; the export
 * filter keeps them (and anything else) from being advertised: only static (originated) and BGP
 * routes go out, the latter so BIRD can act as a route reflector.
 */
export function renderBirdConfig(spec: DaemonSpec, opts: BirdConfigOptions): string {
  const out = [
    `log "${opts.logFile}" all;`,
    `router id ${spec.routerId};`,
    ...(spec.neighbors.some((n) => n.gracefulRestart)
      ? [`graceful restart wait ${BIRD_GRACEFUL_RESTART_WAIT_SECONDS};`]
      : []),
    'protocol device { scan time 10; }',
    'protocol direct { ipv4; ipv6; }',
    'filter lab_export { if source ~ [RTS_STATIC, RTS_BGP] then accept; reject; }',
  ];
  for (const f of ['ipv4', 'ipv6'] as const) {
    const routes = (spec.originate?.[f] ?? []).map((p) => ` route ${p} blackhole;`).join('');
    out.push(`protocol static ${STATIC_PROTOCOL[f]} { ${f};${routes} }`);
  }
  for (const n of spec.neighbors) out.push(...protocol(n, spec.as));
  // BGP's `bfd on` asks this protocol for its sessions, which take the timers of the interface
  // (single hop) or of `multihop`; the lab's neighbors share one set.
  const bfd = spec.neighbors.find((n) => n.bfd)?.bfd;
  if (bfd) {
    const timers = [
      bfd.minRx !== undefined && `min rx interval ${bfd.minRx} ms;`,
      bfd.minTx !== undefined && `min tx interval ${bfd.minTx} ms;`,
      bfd.multiplier !== undefined && `multiplier ${bfd.multiplier};`,
    ].filter(Boolean);
    out.push(
      'protocol bfd lab_bfd {',
      `  interface "*" { ${timers.join(' ')} };`,
      `  multihop { ${timers.join(' ')} };`,
      '}',
    );
  }
  out.push(...(spec.extraConfig ?? []));
  return `${out.join('\n')}\n`;
}
