import { isIP } from 'node:net';
import type { NeighborStatus, NotificationInfo, ReceivedRoute } from './daemon.js';
import type { Family } from './spec.js';
import { normaliseState } from './states.js';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);

const AF_KEYS: Record<Family, string> = { ipv4: 'ipv4Unicast', ipv6: 'ipv6Unicast' };

/** "0602" (code and subcode, two hex digits each) → {code: 6, subcode: 2}. */
function codeSubcode(v: string | undefined): { code?: number; subcode?: number } {
  if (v === undefined || !/^[0-9a-f]{4}$/i.test(v)) return {};
  return { code: Number.parseInt(v.slice(0, 2), 16), subcode: Number.parseInt(v.slice(2), 16) };
}

function notification(p: Json): NotificationInfo | undefined {
  const reason = str(p.lastNotificationReason);
  const cs = codeSubcode(str(p.lastErrorCodeSubcode));
  if (reason === undefined && cs.code === undefined) return undefined;
  const due = str(p.lastResetDueTo) ?? '';
  const direction = /received/i.test(due) ? 'received' : /sen[dt]/i.test(due) ? 'sent' : undefined;
  const message = str(p.lastShutdownDescription);
  return {
    ...cs,
    ...(reason !== undefined && { reason }),
    ...(direction !== undefined && { direction }),
    ...(message !== undefined && { message }),
  };
}

/** Parses `show bgp neighbors json` (an object keyed by neighbor address). */
export function parseFrrNeighbors(text: string): NeighborStatus[] {
  const doc: unknown = JSON.parse(text);
  if (!isObject(doc)) return [];
  const out: NeighborStatus[] = [];
  for (const [address, p] of Object.entries(doc)) {
    if (!isIP(address) || !isObject(p)) continue;
    const rawState = str(p.bgpState) ?? 'Idle';
    const prefixesReceived: Partial<Record<Family, number>> = {};
    const afi = isObject(p.addressFamilyInfo) ? p.addressFamilyInfo : {};
    for (const f of ['ipv4', 'ipv6'] as const) {
      const info = afi[AF_KEYS[f]];
      if (isObject(info)) prefixesReceived[f] = num(info.acceptedPrefixCounter) ?? 0;
    }
    // FRR always fills lastResetDueTo (e.g. "Waiting for peer OPEN"); on a session that never
    // dropped and is up, that is no error.
    const neverDropped = rawState === 'Established' && !num(p.connectionsDropped);
    const lastError = neverDropped
      ? ''
      : [str(p.lastResetDueTo), str(p.lastNotificationReason)].filter(Boolean).join(': ');
    const lastNotification = notification(p);
    const remoteAs = num(p.remoteAs);
    out.push({
      address,
      state: normaliseState(rawState),
      rawState,
      adminDown: p.adminShutDown === true,
      prefixesReceived,
      ...(remoteAs !== undefined && { remoteAs }),
      ...(lastError !== '' && { lastError }),
      ...(lastNotification !== undefined && { lastNotification }),
    });
  }
  return out;
}

/** AS numbers of an AS_PATH string such as "65001 {65002,65003}". */
export const asPathNumbers = (path: string): number[] => (path.match(/\d+/g) ?? []).map(Number);

/** Parses `show bgp <afi> unicast json`, keeping routes learned from neighbors. */
export function parseFrrRoutes(text: string, family: Family): ReceivedRoute[] {
  const doc: unknown = JSON.parse(text);
  const routes = isObject(doc) && isObject(doc.routes) ? doc.routes : {};
  const out: ReceivedRoute[] = [];
  for (const [prefix, paths] of Object.entries(routes)) {
    if (!Array.isArray(paths)) continue;
    for (const p of paths) {
      if (!isObject(p)) continue;
      const from = str(p.peerId);
      // Locally originated paths have peerId "(unspec)".
      if (from === undefined || !isIP(from)) continue;
      const nextHops = Array.isArray(p.nexthops)
        ? p.nexthops.flatMap((h) => (isObject(h) && typeof h.ip === 'string' ? [h.ip] : []))
        : [];
      const localPref = num(p.locPrf);
      const med = num(p.metric);
      out.push({
        prefix,
        family,
        from,
        nextHops,
        asPath: asPathNumbers(str(p.path) ?? ''),
        best: p.bestpath === true,
        ...(localPref !== undefined && { localPref }),
        ...(med !== undefined && { med }),
      });
    }
  }
  return out;
}
