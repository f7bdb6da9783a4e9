import {
  AddPathMode,
  Afi,
  BgpError,
  buildOpen,
  type Capability,
  ErrorCode,
  encodeCapabilities,
  GracefulRestartAfFlag,
  gracefulRestartCapability,
  type Negotiated,
  type OpenMessage,
  OpenSubcode,
  Safi,
  Writer,
} from '../wire/index.js';
import type { AddPathSetting, SessionPeerConfig } from './config.js';
import { FAMILY, type FamilyName } from './constants.js';

/**
 * Our RFC 4724 state as the OPEN of each new connection advertises it (the speaker's: the R
 * bit lasts while our restart is not done, the F bits say which families kept forwarding).
 */
export interface GracefulRestartState {
  /** Seconds a peer should keep our routes (the capability's Restart Time, 0..4095). */
  readonly restartTime: number;
  /** R bit: we restarted and have not sent our End-of-RIBs yet. */
  readonly restarting: boolean;
  /** Families with the F bit: their forwarding state survived our restart. */
  readonly forwarding: ReadonlySet<FamilyName>;
}

const ADD_PATH_MODE: Readonly<Record<AddPathSetting, (typeof AddPathMode)[keyof typeof AddPathMode]>> = {
  receive: AddPathMode.RECEIVE,
  send: AddPathMode.SEND,
  both: AddPathMode.BOTH,
};

/**
 * What we advertise: multiprotocol for each configured family (RFC 4760), route refresh
 * (RFC 2918), the 4-octet AS (RFC 6793), and, when configured, enhanced route refresh
 * (RFC 7313), extended message (RFC 8654), ADD-PATH (RFC 7911), extended next hop for IPv4
 * unicast over IPv6 (RFC 8950), and graceful restart (RFC 4724 for every configured family, with
 * the RFC 8538 N bit: we do both).
 */
export function localCapabilities(
  config: SessionPeerConfig,
  gr: GracefulRestartState | null = null,
): Capability[] {
  const caps: Capability[] = config.families.map((f) => ({
    name: 'multiprotocol',
    afi: FAMILY[f].afi,
    reserved: 0,
    safi: FAMILY[f].safi,
  }));
  caps.push({ name: 'route-refresh' });
  if (config.enhancedRouteRefresh) caps.push({ name: 'enhanced-route-refresh' });
  caps.push({ name: 'four-octet-as', as: config.localAs });
  if (config.extendedMessage) caps.push({ name: 'extended-message' });
  const addPath = config.families.flatMap((f) => {
    const mode = config.addPath[f];
    return mode === undefined ? [] : [{ ...FAMILY[f], mode: ADD_PATH_MODE[mode] }];
  });
  if (addPath.length > 0) caps.push({ name: 'add-path', families: addPath });
  if (gr) {
    caps.push(
      gracefulRestartCapability({
        restartTime: gr.restartTime,
        restarting: gr.restarting,
        notification: true,
        families: config.families.map((f) => ({ ...FAMILY[f], forwarding: gr.forwarding.has(f) })),
      }),
    );
    // RFC 9494 section 3: long-lived only beside graceful restart, the same F bits.
    if (config.longLivedStaleTime > 0) {
      caps.push({
        name: 'long-lived-graceful-restart',
        families: config.families.map((f) => ({
          ...FAMILY[f],
          flags: gr.forwarding.has(f) ? GracefulRestartAfFlag.FORWARDING_STATE : 0,
          staleTime: config.longLivedStaleTime,
        })),
      });
    }
  }
  if (config.extendedNextHop) {
    // RFC 8950 section 3: IPv4 unicast NLRI may come with an IPv6 next hop (both ways once
    // both sides advertise it; each direction follows the receiver's advertisement).
    caps.push({
      name: 'extended-next-hop',
      families: [{ afi: Afi.IPV4, safi: Safi.UNICAST, nextHopAfi: Afi.IPV6 }],
    });
  }
  return caps;
}

/** Our OPEN for this peer (AS_TRANS in My AS when our AS needs 4 octets, RFC 6793 section 3). */
export function localOpen(config: SessionPeerConfig, gr: GracefulRestartState | null = null): OpenMessage {
  return buildOpen({
    as: config.localAs,
    bgpId: config.bgpId,
    holdTime: config.fsm.holdTime,
    capabilities: localCapabilities(config, gr),
  });
}

/**
 * A session that shares none of our families carries nothing. RFC 5492 section 3 lets us end
 * it with OPEN Message Error / Unsupported Capability, the Data field holding the capabilities
 * we wanted (our multiprotocol capabilities); FRR does the same.
 */
export function checkFamilies(negotiated: Negotiated, config: SessionPeerConfig): void {
  if (negotiated.families.length > 0) return;
  const wanted = localCapabilities(config).filter((c) => c.name === 'multiprotocol');
  const w = new Writer(64);
  encodeCapabilities(w, wanted);
  throw new BgpError(
    'open-no-common-family',
    ErrorCode.OPEN_MESSAGE,
    OpenSubcode.UNSUPPORTED_CAPABILITY,
    w.finish(),
    `no family in common (we want ${config.families.join(', ')})`,
  );
}
