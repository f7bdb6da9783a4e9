import { formatIp, type IpFamily } from '../address/index.js';
import type { Row } from '../ovsdb/index.js';
import { ovnIp } from './addr.js';
import { mapGet, opt, set, str } from './rows.js';
import type { Reader } from './store.js';
import type { NextHopPair, OvnDeriveConfig } from './types.js';

/*
 * Next-hop resolution for routes that live on a chassis. In order:
 *   1. config chassis_next_hops[<chassis name>]
 *   2. Chassis other_config, then external_ids, `ovn-bgp-speaker-nexthop-ipv4` / `-ipv6`
 *   3. the chassis' Encap ip of the prefix's family (lowest first, so the choice is stable)
 * An IPv6 prefix needs an IPv6 next hop: no fallback across families.
 * In local mode only our own chassis counts and the next hop is our own configured address,
 * else `self` (our address on each session, as for a static route).
 */

export const NEXTHOP_KEY = { 4: 'ovn-bgp-speaker-nexthop-ipv4', 6: 'ovn-bgp-speaker-nexthop-ipv6' } as const;

export type HopResult =
  | { readonly ok: true; readonly nextHop: string; readonly why: string }
  /** Not advertised, and a problem to report. */
  | { readonly ok: false; readonly problem: string; readonly message: string }
  /** Not advertised, nothing wrong (local mode: another chassis' route). */
  | { readonly ok: false; readonly problem: null };

/** The next hop of a local-mode route without a configured own address: ours on each session. */
export const SELF_NEXT_HOP = 'self';

export const SKIP: HopResult = { ok: false, problem: null };

function pick(pair: NextHopPair | undefined, family: IpFamily): string | undefined {
  const text = family === 4 ? pair?.ipv4 : pair?.ipv6;
  if (text === undefined) return undefined;
  const ip = ovnIp(text);
  return ip && ip.family === family ? formatIp(ip) : undefined;
}

const fam = (f: IpFamily) => (f === 4 ? 'IPv4' : 'IPv6');

/**
 * The next hop of a route bound to chassis `chassisUuid` (null: nothing bound). `context` says
 * what bound it (`Port_Binding vm1`); `unbound` is the problem kind when nothing is.
 */
export function chassisHop(
  r: Reader,
  cfg: OvnDeriveConfig,
  chassisUuid: string | null,
  family: IpFamily,
  context: string,
  unbound: string,
): HopResult {
  if (!chassisUuid) {
    // In local mode a route nobody hosts is not ours either; central mode reports it.
    if (cfg.mode === 'local') return SKIP;
    return { ok: false, problem: unbound, message: `${context} is bound to no chassis` };
  }
  const chassis = r.row('sb.Chassis', chassisUuid);
  if (!chassis) {
    if (cfg.mode === 'local') return SKIP;
    return { ok: false, problem: 'chassis-missing', message: `${context}: chassis ${chassisUuid} not in SB` };
  }
  return hopOfChassis(r, cfg, chassis, family, context);
}

export function hopOfChassis(
  r: Reader,
  cfg: OvnDeriveConfig,
  chassis: Row,
  family: IpFamily,
  context: string,
): HopResult {
  const name = str(chassis, 'name');
  const where = `chassis ${name} (${context})`;
  if (cfg.mode === 'local') {
    if (name !== cfg.localChassis) return SKIP;
    const own = pick(cfg.localNextHop, family);
    if (own) return { ok: true, nextHop: own, why: `local ${where}, own ${fam(family)} next hop` };
    // As a static route with next hop self: export puts our address on each session there.
    return { ok: true, nextHop: SELF_NEXT_HOP, why: `local ${where}, next hop self` };
  }
  const configured = pick(cfg.chassisNextHops[name], family);
  if (configured) return { ok: true, nextHop: configured, why: `${where}, configured next hop` };
  for (const column of ['other_config', 'external_ids']) {
    const text = mapGet(chassis, column, NEXTHOP_KEY[family]);
    const ip = text === undefined ? null : ovnIp(text);
    if (ip && ip.family === family)
      return { ok: true, nextHop: formatIp(ip), why: `${where}, ${column}:${NEXTHOP_KEY[family]}` };
  }
  const encaps: string[] = [];
  for (const uuid of set(chassis, 'encaps')) {
    const encap = r.row('sb.Encap', uuid);
    const ip = encap ? ovnIp(str(encap, 'ip')) : null;
    if (ip && ip.family === family) encaps.push(formatIp(ip));
  }
  if (encaps.length > 0) return { ok: true, nextHop: encaps.sort()[0], why: `${where}, Encap ip` };
  return {
    ok: false,
    problem: 'chassis-no-address',
    message: `${where} has no ${fam(family)} address (config, ${NEXTHOP_KEY[family]} or Encap ip)`,
  };
}

/** The chassis uuid a logical port is bound to (SB Port_Binding.chassis), or null. */
export function boundChassis(r: Reader, logicalPort: string): string | null {
  const pb = r.first('pbPort', logicalPort);
  return pb ? opt(pb, 'chassis') : null;
}

/** Chassis uuid by name (Chassis.name is indexed in the SB schema), or null. */
export function chassisNamed(r: Reader, name: string): string | null {
  return r.find('chassisName', name)[0] ?? null;
}
