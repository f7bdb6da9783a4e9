import { isIP } from 'node:net';
import type { NeighborStatus, NotificationInfo, ReceivedRoute } from './daemon.js';
import type { Family } from './spec.js';
import { normaliseState } from './states.js';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const obj = (v: unknown): Json => (isObject(v) ? v : {});

/** RFC 4760 AFI numbers as gobgp reports them in `family.afi`. */
const AFI_FAMILY: Readonly<Record<number, Family>> = { 1: 'ipv4', 2: 'ipv6' };
/** Path attribute type codes (RFC 4271 §5, RFC 4760) as they appear in gobgp's `attrs[].type`. */
const ATTR = { AS_PATH: 2, NEXT_HOP: 3, MED: 4, LOCAL_PREF: 5, MP_REACH_NLRI: 14 } as const;

/** What gobgpd's log says about a neighbor's last session end (its API does not keep it). */
export interface GobgpLogFacts {
  readonly lastError?: string;
  readonly lastNotification?: NotificationInfo;
}

/** `key=value` / `key="quoted value"` pairs of one logrus text line. */
export function parseLogfmt(line: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of line.matchAll(/([\w.-]+)=("(?:[^"\\]|\\.)*"|\S*)/g)) {
    const [, key, raw] = m;
    if (key === undefined || raw === undefined) continue;
    let value = raw;
    if (raw.startsWith('"')) {
      try {
        value = JSON.parse(raw) as string;
      } catch {
        value = raw.slice(1, -1);
      }
    }
    out[key] = value;
  }
  return out;
}

/** Scans gobgpd's plain-format log for "Peer Down" reasons and NOTIFICATIONs, per neighbor address. */
export function parseGobgpLog(text: string): Map<string, GobgpLogFacts> {
  const facts = new Map<string, GobgpLogFacts>();
  for (const line of text.split('\n')) {
    if (!line.includes('msg=')) continue;
    const f = parseLogfmt(line);
    const key = f.Key;
    if (key === undefined || !isIP(key)) continue;
    const prev = facts.get(key) ?? {};
    if (f.msg === 'Peer Down' && f.Reason !== undefined) {
      facts.set(key, { ...prev, lastError: f.Reason });
    } else if (f.msg === 'received notification' || f.msg === 'sent notification') {
      const message = f['Communicated-Reason'];
      const n: NotificationInfo = {
        direction: f.msg === 'received notification' ? 'received' : 'sent',
        ...(f.Code !== undefined && { code: Number(f.Code) }),
        ...(f.Subcode !== undefined && { subcode: Number(f.Subcode) }),
        ...(message !== undefined && message !== '' && { message }),
      };
      facts.set(key, { ...prev, lastNotification: n });
    }
  }
  return facts;
}

/** Parses `gobgp neighbor -j` (an array of peers), adding what the log knows. */
export function parseGobgpNeighbors(
  text: string,
  log: Map<string, GobgpLogFacts> = new Map(),
): NeighborStatus[] {
  const doc: unknown = JSON.parse(text);
  if (!Array.isArray(doc)) return [];
  const out: NeighborStatus[] = [];
  for (const p of doc) {
    if (!isObject(p)) continue;
    const conf = obj(p.conf);
    const state = obj(p.state);
    const address = str(conf.neighbor_address) ?? str(state.neighbor_address);
    if (address === undefined) continue;
    const raw = state.session_state;
    const rawState = typeof raw === 'number' || typeof raw === 'string' ? String(raw) : 'UNKNOWN';
    const prefixesReceived: Partial<Record<Family, number>> = {};
    for (const a of Array.isArray(p.afi_safis) ? p.afi_safis : []) {
      const s = obj(obj(a).state);
      const family = AFI_FAMILY[num(obj(s.family).afi) ?? 0];
      if (family !== undefined) prefixesReceived[family] = num(s.accepted) ?? 0;
    }
    const remoteAs = num(conf.peer_asn);
    const admin = state.admin_state;
    const facts = log.get(address) ?? {};
    out.push({
      address,
      state: normaliseState(typeof raw === 'number' || typeof raw === 'string' ? raw : undefined),
      rawState,
      adminDown: admin === 1 || admin === 'DOWN',
      prefixesReceived,
      ...(remoteAs !== undefined && { remoteAs }),
      ...facts,
    });
  }
  return out;
}

/** Parses `gobgp global rib -a <family> -j` (prefix → paths), keeping paths learned from neighbors. */
export function parseGobgpRib(text: string, family: Family): ReceivedRoute[] {
  const doc: unknown = text.trim() === '' ? {} : JSON.parse(text);
  if (!isObject(doc)) return [];
  const out: ReceivedRoute[] = [];
  for (const [prefix, paths] of Object.entries(doc)) {
    if (!Array.isArray(paths)) continue;
    for (const p of paths) {
      if (!isObject(p)) continue;
      const from = str(p['neighbor-ip']);
      if (from === undefined || !isIP(from)) continue;
      const asPath: number[] = [];
      const nextHops: string[] = [];
      let localPref: number | undefined;
      let med: number | undefined;
      for (const a of Array.isArray(p.attrs) ? p.attrs : []) {
        const at = obj(a);
        switch (at.type) {
          case ATTR.AS_PATH:
            for (const seg of Array.isArray(at.as_paths) ? at.as_paths : []) {
              const asns = obj(seg).asns;
              if (Array.isArray(asns)) asPath.push(...asns.filter((x): x is number => typeof x === 'number'));
            }
            break;
          case ATTR.NEXT_HOP:
          case ATTR.MP_REACH_NLRI: {
            const nh = str(at.nexthop);
            if (nh !== undefined) nextHops.push(nh);
            break;
          }
          case ATTR.MED:
            med = num(at.metric);
            break;
          case ATTR.LOCAL_PREF:
            localPref = num(at.value);
            break;
        }
      }
      out.push({
        prefix,
        family,
        from,
        nextHops,
        asPath,
        best: p.best === true,
        ...(localPref !== undefined && { localPref }),
        ...(med !== undefined && { med }),
      });
    }
  }
  return out;
}
