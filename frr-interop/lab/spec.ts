import { isIPv4, isIPv6 } from 'node:net';
import { invalid } from './errors.js';

export type Family = 'ipv4' | 'ipv6';
export const FAMILIES: readonly Family[] = ['ipv4', 'ipv6'];

export type DaemonImpl = 'frr' | 'gobgp' | 'bird';

/** RFC 4271 §8.2.2 session states; every daemon's own spelling is mapped onto these. */
export type BgpState = 'Idle' | 'Connect' | 'Active' | 'OpenSent' | 'OpenConfirm' | 'Established';

/** RFC 7911 ADD-PATH: which directions the daemon negotiates. */
export type AddPathMode = 'send' | 'receive' | 'both';

/** One BGP neighbor of a lab daemon. Timers default to DEFAULT_* in constants.ts. */
export interface NeighborSpec {
  readonly address: string;
  readonly remoteAs: number;
  /** Address families (unicast) negotiated on this session. */
  readonly families: readonly Family[];
  /** TCP-MD5 (RFC 2385) key. */
  readonly password?: string;
  /** Never connect; wait for the neighbor to connect. */
  readonly passive?: boolean;
  readonly holdTime?: number;
  readonly keepalive?: number;
  readonly connectRetry?: number;
  readonly routeReflectorClient?: boolean;
  readonly addPath?: AddPathMode;
  /** RFC 8950 extended next hop (IPv4 NLRI with an IPv6 next hop). */
  readonly extendedNextHop?: boolean;
  /** Source address of the session. */
  readonly localAddress?: string;
  /**
   * RFC 5880 BFD tied to the session (FRR: `neighbor X bfd` with bfdd running; BIRD: `bfd on`
   * with `protocol bfd`), at these timers (ms) when given.
   */
  readonly bfd?: {
    readonly minRx?: number;
    readonly minTx?: number;
    readonly multiplier?: number;
    /** FRR `neighbor X bfd check-control-plane-failure`: its packets carry the C bit. */
    readonly checkControlPlaneFailure?: boolean;
  };
  /** eBGP multihop TTL (FRR `ebgp-multihop N`, BIRD `multihop N`). */
  readonly multihop?: number;
  /**
   * RFC 4724 graceful restart on this session: advertised with forwarding state kept for its
   * families (FRR: `bgp graceful-restart` and `preserve-fw-state`; GoBGP: per neighbor and family).
   */
  readonly gracefulRestart?: {
    readonly restartTime?: number;
    /** RFC 9494 long-lived graceful restart with this stale time (seconds). */
    readonly longLivedStaleTime?: number;
  };
}

/** Prefixes a daemon originates, per family. */
export interface Originate {
  readonly ipv4?: readonly string[];
  readonly ipv6?: readonly string[];
}

/** Everything a lab daemon is configured from. */
export interface DaemonSpec {
  readonly routerId: string;
  readonly as: number;
  readonly neighbors: readonly NeighborSpec[];
  readonly originate?: Originate;
  /** Raw lines appended to the daemon's configuration file (escape hatch, not validated). */
  readonly extraConfig?: readonly string[];
}

const MAX_ASN = 0xffff_ffff;
const MAX_U16 = 0xffff;
/** Passwords end up inside quoted config strings: keep them to printable characters without quotes. */
const PASSWORD = /^[\x21\x23-\x26\x28-\x5b\x5d-\x7e]{1,80}$/;

export function familyOfAddress(address: string): Family {
  if (isIPv4(address)) return 'ipv4';
  if (isIPv6(address)) return 'ipv6';
  throw invalid(`not an IP address: ${JSON.stringify(address)}`);
}

/** Family of a prefix in CIDR form, checking address and length. */
export function familyOfPrefix(prefix: string): Family {
  const [addr, len, extra] = prefix.split('/');
  if (addr === undefined || len === undefined || extra !== undefined || !/^\d{1,3}$/.test(len)) {
    throw invalid(`not a prefix: ${JSON.stringify(prefix)}`);
  }
  const family = familyOfAddress(addr);
  const max = family === 'ipv4' ? 32 : 128;
  if (Number(len) > max) throw invalid(`prefix length out of range: ${prefix}`);
  return family;
}

export function checkAsn(as: number, what: string): void {
  if (!Number.isInteger(as) || as < 1 || as > MAX_ASN)
    throw invalid(`${what}: AS number out of range: ${as}`);
}

function checkSeconds(v: number | undefined, min: number, what: string): void {
  if (v === undefined) return;
  if (!Number.isInteger(v) || v < min || v > MAX_U16) throw invalid(`${what} out of range: ${v}`);
}

export function checkRouterId(id: string, what: string): void {
  if (!isIPv4(id)) throw invalid(`${what}: router id must be a dotted quad, got ${JSON.stringify(id)}`);
}

export function checkNeighbor(n: NeighborSpec): void {
  const what = `neighbor ${n.address}`;
  familyOfAddress(n.address);
  checkAsn(n.remoteAs, what);
  if (n.families.length === 0) throw invalid(`${what}: no address family`);
  for (const f of n.families) if (!FAMILIES.includes(f)) throw invalid(`${what}: unknown family ${f}`);
  if (n.password !== undefined && !PASSWORD.test(n.password)) {
    throw invalid(`${what}: password must be 1-80 printable characters without quotes or backslash`);
  }
  // RFC 4271 §4.2: a hold time is zero or at least three seconds.
  if (n.holdTime !== undefined && n.holdTime !== 0) checkSeconds(n.holdTime, 3, `${what}: hold time`);
  checkSeconds(n.keepalive, 1, `${what}: keepalive`);
  checkSeconds(n.connectRetry, 1, `${what}: connect retry`);
  if (n.addPath !== undefined && !['send', 'receive', 'both'].includes(n.addPath)) {
    throw invalid(`${what}: unknown add-path mode ${n.addPath}`);
  }
  const grTime = n.gracefulRestart?.restartTime;
  if (grTime !== undefined && (!Number.isInteger(grTime) || grTime < 1 || grTime > 4095)) {
    throw invalid(`${what}: graceful restart time out of range: ${grTime}`);
  }
  const llst = n.gracefulRestart?.longLivedStaleTime;
  if (llst !== undefined && (!Number.isInteger(llst) || llst < 1 || llst > 0xffffff)) {
    throw invalid(`${what}: long-lived stale time out of range: ${llst}`);
  }
  if (n.localAddress !== undefined && familyOfAddress(n.localAddress) !== familyOfAddress(n.address)) {
    throw invalid(`${what}: local address ${n.localAddress} is not of the neighbor's family`);
  }
}

/** Throws a clear `invalid-spec` LabError for anything a daemon config could not express. */
export function checkDaemonSpec(spec: DaemonSpec): void {
  checkRouterId(spec.routerId, 'daemon');
  checkAsn(spec.as, 'daemon');
  const seen = new Set<string>();
  for (const n of spec.neighbors) {
    checkNeighbor(n);
    if (seen.has(n.address)) throw invalid(`neighbor ${n.address} given twice`);
    seen.add(n.address);
  }
  for (const f of FAMILIES) {
    for (const p of spec.originate?.[f] ?? []) {
      if (familyOfPrefix(p) !== f) throw invalid(`originate.${f}: ${p} is not an ${f} prefix`);
    }
  }
  for (const line of spec.extraConfig ?? []) {
    if (typeof line !== 'string' || line.includes('\n')) throw invalid('extraConfig: one line per entry');
  }
}

/** Prefixes grouped by family (for daemons that take them per family). */
export function splitByFamily(prefixes: readonly string[]): Record<Family, string[]> {
  const out: Record<Family, string[]> = { ipv4: [], ipv6: [] };
  for (const p of prefixes) out[familyOfPrefix(p)].push(p);
  return out;
}
