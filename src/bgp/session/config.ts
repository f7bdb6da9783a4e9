import { normalizeAddress, tryParseIpv4 } from '../../address/index.js';
import { MS_PER_SECOND } from '../../components/index.js';
import { type FsmConfig, FsmConfigError, resolveFsmConfig } from '../fsm/index.js';
import type { TtlOptions } from '../transport/index.js';
import { BGP_PORT, type ExpectedRemoteAs, isExternal, LONG_LIVED_STALE_TIME_MAX } from '../wire/index.js';
import { FAMILY_NAMES, type FamilyName, SessionDefaults } from './constants.js';
import { SessionConfigError } from './errors.js';

/** RFC 7911 Send/Receive as configured per family. */
export type AddPathSetting = 'receive' | 'send' | 'both';
const ADD_PATH_SETTINGS: readonly AddPathSetting[] = ['receive', 'send', 'both'];

/**
 * One configured peer, as an operator writes it. The FSM settings (hold time, keepalive,
 * connect retry, passive, idle hold, damping, DelayOpen) sit at the top level and default as
 * FRR and GoBGP do: hold 90 s, keepalive 30 s, connect retry 120 s, active.
 */
export interface SessionPeerInit extends Partial<FsmConfig> {
  /** The peer's address: where we connect, and how its incoming connections are recognised. */
  readonly address: string;
  /** The peer's AS; `external`: any AS but ours, `internal`: ours (checked on its OPEN). */
  readonly remoteAs: ExpectedRemoteAs;
  readonly localAs: number;
  /** Our BGP Identifier, a dotted quad (RFC 6286: any non-zero 32-bit value). */
  readonly routerId: string;
  /** Where the peer listens; default 179. */
  readonly port?: number;
  /** Source address of our connections (the address the peer has configured for us). */
  readonly localAddress?: string;
  /** RFC 2385 TCP-MD5 password. */
  readonly password?: string | null;
  /** TTL / RFC 5082 GTSM on our connections. */
  readonly ttl?: TtlOptions;
  /** Families to negotiate; default the unicast family of the peer's address. */
  readonly families?: readonly FamilyName[];
  /** Advertise RFC 8654 Extended Message (off by default). */
  readonly extendedMessage?: boolean;
  /**
   * Advertise RFC 7313 Enhanced Route Refresh (off by default). FRR 8.4 leaves a ROUTE-REFRESH
   * unanswered when it was agreed but FRR has sent no End-of-RIB, which it sends only to
   * peers that advertise graceful restart (we do with speaker.graceful_restart).
   */
  readonly enhancedRouteRefresh?: boolean;
  /**
   * RFC 9494 long-lived graceful restart: seconds the peer may keep our routes after our
   * Restart Time, and at most how long we keep its (0 or absent: off). Needs graceful restart.
   */
  readonly longLivedStaleTime?: number;
  /** Advertise RFC 7911 ADD-PATH per family (off by default). */
  readonly addPath?: Readonly<Partial<Record<FamilyName, AddPathSetting>>>;
  /**
   * Advertise RFC 8950 extended next hop for IPv4 unicast with IPv6 next hops (off by default):
   * over an IPv6 session, IPv4 routes then go with our IPv6 address as next hop. Needs
   * ipv4-unicast among the families.
   */
  readonly extendedNextHop?: boolean;
  /** Bound of one outgoing connection attempt; default the connect retry time. */
  readonly connectTimeoutMs?: number;
  /** See SessionDefaults.MAX_WRITE_QUEUE_BYTES. */
  readonly maxWriteQueueBytes?: number;
  /** For logs; default the address. */
  readonly name?: string;
}

/** A checked SessionPeerInit with every default filled in. */
export interface SessionPeerConfig {
  /** Normalized (RFC 5952, IPv4 never v4-mapped). */
  readonly address: string;
  readonly name: string;
  readonly remoteAs: ExpectedRemoteAs;
  readonly localAs: number;
  readonly routerId: string;
  /** routerId as an unsigned 32-bit number. */
  readonly bgpId: number;
  readonly ebgp: boolean;
  readonly port: number;
  readonly localAddress: string | undefined;
  readonly password: string | null;
  readonly ttl: TtlOptions | undefined;
  readonly families: readonly FamilyName[];
  readonly extendedMessage: boolean;
  readonly enhancedRouteRefresh: boolean;
  /** RFC 9494 Long-lived Stale Time in seconds; 0: long-lived graceful restart off. */
  readonly longLivedStaleTime: number;
  readonly addPath: Readonly<Partial<Record<FamilyName, AddPathSetting>>>;
  readonly extendedNextHop: boolean;
  readonly fsm: FsmConfig;
  readonly connectTimeoutMs: number;
  readonly maxWriteQueueBytes: number;
}

const MAX_AS = 0xffffffff;
const MAX_PORT = 0xffff;

function asNumber(field: string, v: unknown): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > MAX_AS) {
    throw new SessionConfigError(field, `must be an AS number in 1..${MAX_AS}, got ${String(v)}`);
  }
  return v;
}

function address(field: string, v: unknown): string {
  if (typeof v !== 'string') throw new SessionConfigError(field, `must be an IP address, got ${String(v)}`);
  try {
    return normalizeAddress(v);
  } catch {
    throw new SessionConfigError(field, `must be an IP address, got ${JSON.stringify(v)}`);
  }
}

/** RFC 6286 section 2.1: the BGP Identifier is a non-zero 32-bit value, written as a dotted quad. */
function routerId(v: unknown): number {
  const id = typeof v === 'string' ? tryParseIpv4(v) : undefined;
  if (id === undefined) {
    throw new SessionConfigError('routerId', `must be a dotted quad, got ${JSON.stringify(v)}`);
  }
  if (id === 0) throw new SessionConfigError('routerId', 'must not be 0.0.0.0 (RFC 6286)');
  return id;
}

function positiveInt(field: string, v: unknown, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > max) {
    throw new SessionConfigError(field, `must be a whole number in 1..${max}, got ${String(v)}`);
  }
  return v;
}

function flag(field: string, v: unknown, fallback: boolean): boolean {
  if (v === undefined) return fallback;
  if (typeof v !== 'boolean') throw new SessionConfigError(field, `must be true or false, got ${String(v)}`);
  return v;
}

function families(v: unknown, peerAddress: string): FamilyName[] {
  if (v === undefined) return [peerAddress.includes(':') ? 'ipv6-unicast' : 'ipv4-unicast'];
  if (!Array.isArray(v) || v.length === 0) {
    throw new SessionConfigError('families', `must list at least one of ${FAMILY_NAMES.join(', ')}`);
  }
  const out: FamilyName[] = [];
  for (const f of v) {
    if (!FAMILY_NAMES.includes(f)) {
      throw new SessionConfigError(
        'families',
        `unknown family ${JSON.stringify(f)} (${FAMILY_NAMES.join(', ')})`,
      );
    }
    if (!out.includes(f)) out.push(f);
  }
  return out;
}

function addPath(v: unknown, configured: readonly FamilyName[]): Partial<Record<FamilyName, AddPathSetting>> {
  if (v === undefined) return {};
  if (typeof v !== 'object' || v === null)
    throw new SessionConfigError('addPath', 'must map families to modes');
  const out: Partial<Record<FamilyName, AddPathSetting>> = {};
  for (const [family, mode] of Object.entries(v)) {
    if (!configured.includes(family as FamilyName)) {
      throw new SessionConfigError(`addPath.${family}`, 'names a family the peer is not configured for');
    }
    if (!ADD_PATH_SETTINGS.includes(mode as AddPathSetting)) {
      throw new SessionConfigError(`addPath.${family}`, `must be one of ${ADD_PATH_SETTINGS.join(', ')}`);
    }
    out[family as FamilyName] = mode as AddPathSetting;
  }
  return out;
}

/** Fills defaults and checks every field; throws SessionConfigError naming the first bad one. */
export function resolvePeerConfig(init: SessionPeerInit): SessionPeerConfig {
  if (typeof init !== 'object' || init === null) throw new SessionConfigError('peer', 'must be an object');
  const addr = address('address', init.address);
  const remoteAs =
    init.remoteAs === 'external' || init.remoteAs === 'internal'
      ? init.remoteAs
      : asNumber('remoteAs', init.remoteAs);
  const localAs = asNumber('localAs', init.localAs);
  const bgpId = routerId(init.routerId);
  let fsm: FsmConfig;
  try {
    fsm = resolveFsmConfig(init);
  } catch (e) {
    if (e instanceof FsmConfigError)
      throw new SessionConfigError(e.field, e.message.replace(/^fsm config: \S+ /, ''));
    throw e;
  }
  const localAddress =
    init.localAddress === undefined ? undefined : address('localAddress', init.localAddress);
  if (localAddress !== undefined && localAddress.includes(':') !== addr.includes(':')) {
    throw new SessionConfigError('localAddress', `${localAddress} is not of the family of ${addr}`);
  }
  const password = init.password ?? null;
  if (password !== null && (typeof password !== 'string' || password.length === 0)) {
    throw new SessionConfigError('password', 'must be a non-empty string or null');
  }
  const fams = families(init.families, addr);
  const extendedNextHop = flag('extendedNextHop', init.extendedNextHop, false);
  if (extendedNextHop && !fams.includes('ipv4-unicast')) {
    throw new SessionConfigError('extendedNextHop', 'needs ipv4-unicast among the families (RFC 8950)');
  }
  return {
    address: addr,
    name: typeof init.name === 'string' && init.name !== '' ? init.name : addr,
    remoteAs,
    localAs,
    routerId: init.routerId,
    bgpId,
    ebgp: isExternal(remoteAs, localAs),
    port: init.port === undefined ? BGP_PORT : positiveInt('port', init.port, MAX_PORT),
    localAddress,
    password,
    ttl: init.ttl,
    families: fams,
    extendedMessage: flag('extendedMessage', init.extendedMessage, false),
    enhancedRouteRefresh: flag('enhancedRouteRefresh', init.enhancedRouteRefresh, false),
    longLivedStaleTime:
      init.longLivedStaleTime === undefined || init.longLivedStaleTime === 0
        ? 0
        : positiveInt('longLivedStaleTime', init.longLivedStaleTime, LONG_LIVED_STALE_TIME_MAX),
    addPath: addPath(init.addPath, fams),
    extendedNextHop,
    fsm,
    connectTimeoutMs:
      init.connectTimeoutMs === undefined
        ? fsm.connectRetryTime * MS_PER_SECOND
        : positiveInt('connectTimeoutMs', init.connectTimeoutMs),
    maxWriteQueueBytes:
      init.maxWriteQueueBytes === undefined
        ? SessionDefaults.MAX_WRITE_QUEUE_BYTES
        : positiveInt('maxWriteQueueBytes', init.maxWriteQueueBytes),
  };
}
