import type { NeighborStatus, NotificationInfo, ReceivedRoute } from './daemon.js';
import type { Family } from './spec.js';
import { normaliseState } from './states.js';

/** "Name Proto Table State Since Info" row that opens a protocol's block. */
const PROTOCOL_ROW = /^(\S+)\s+(\S+)\s+(\S+)\s+(up|down|start|stop|flush)\s/;
const CHANNEL_ROW = /^\s+Channel (ipv4|ipv6)\b/;
const FIELD = /^\s+([A-Za-z][A-Za-z .-]*?):\s*(.*)$/;

function notificationOf(
  lastError: string | undefined,
  message: string | undefined,
): NotificationInfo | undefined {
  // BIRD words NOTIFICATIONs it received as "Received: <reason>" and ones it sent as "Error: <reason>".
  const m = lastError?.match(/^(Received|Error): (.*)$/);
  if (!m) return message === undefined ? undefined : { message };
  return {
    direction: m[1] === 'Received' ? 'received' : 'sent',
    reason: m[2] ?? '',
    ...(message !== undefined && { message }),
  };
}

interface Block {
  name: string;
  proto: string;
  protoState: string;
  fields: Map<string, string>;
  imported: Partial<Record<Family, number>>;
}

/** Splits `birdc show protocols all` output into one block per protocol. */
function blocks(text: string): Block[] {
  const out: Block[] = [];
  let cur: Block | undefined;
  let channel: Family | undefined;
  for (const line of text.split('\n')) {
    const row = line.match(PROTOCOL_ROW);
    if (row && row[1] !== 'Name') {
      cur = {
        name: row[1] ?? '',
        proto: row[2] ?? '',
        protoState: row[4] ?? '',
        fields: new Map(),
        imported: {},
      };
      channel = undefined;
      out.push(cur);
      continue;
    }
    if (!cur) continue;
    const ch = line.match(CHANNEL_ROW);
    if (ch) {
      channel = ch[1] as Family;
      continue;
    }
    const f = line.match(FIELD);
    if (!f) continue;
    const [, key = '', value = ''] = f;
    if (channel !== undefined && key === 'Routes') {
      cur.imported[channel] = Number(value.match(/(\d+) imported/)?.[1] ?? 0);
    } else if (channel === undefined && !cur.fields.has(key)) {
      cur.fields.set(key, value.trim());
    }
  }
  return out;
}

/** Parses `birdc show protocols all`: one status per BGP protocol with a neighbor address. */
export function parseBirdProtocols(text: string): NeighborStatus[] {
  const out: NeighborStatus[] = [];
  for (const b of blocks(text)) {
    if (b.proto !== 'BGP') continue;
    const address = b.fields.get('Neighbor address');
    if (address === undefined) continue;
    const rawState = b.fields.get('BGP state') ?? 'Down';
    const lastError = b.fields.get('Last error');
    const lastNotification = notificationOf(lastError, b.fields.get('Message'));
    const remoteAs = Number(b.fields.get('Neighbor AS'));
    out.push({
      address,
      state: normaliseState(rawState),
      rawState,
      adminDown: b.protoState === 'down',
      prefixesReceived: b.imported,
      ...(Number.isInteger(remoteAs) && remoteAs > 0 && { remoteAs }),
      ...(lastError !== undefined && { lastError }),
      ...(lastNotification !== undefined && { lastNotification }),
    });
  }
  return out;
}

/**
 * A route's BGP attributes as `show route all` names them: BIRD 2 as `BGP.as_path: 65001`, BIRD 3
 * as `bgp_path: 65001` (its attributes got the names filters use; BIRD 2 printed them differently).
 */
const ROUTE_ATTRIBUTE: Record<string, 'asPath' | 'nextHops' | 'localPref' | 'med' | 'extCommunities'> = {
  'BGP.as_path': 'asPath',
  bgp_path: 'asPath',
  'BGP.next_hop': 'nextHops',
  bgp_next_hop: 'nextHops',
  'BGP.local_pref': 'localPref',
  bgp_local_pref: 'localPref',
  'BGP.med': 'med',
  bgp_med: 'med',
  'BGP.ext_community': 'extCommunities',
  bgp_ext_community: 'extCommunities',
};

/** BIRD's word for an extended community's kind where it is not the usual one: ro is RFC 4360's site of origin. */
const EXT_KIND: Record<string, string> = { ro: 'soo' };

/** "(rt, 65001, 100) (ro, 198.18.0.1, 7)" -> ["rt 65001:100", "soo 198.18.0.1:7"]. */
function extCommunities(value: string): string[] {
  return [...value.matchAll(/\(([^,()]+),\s*([^,()]+),\s*([^,()]+)\)/g)].map(
    ([, kind = '', a = '', b = '']) => `${EXT_KIND[kind.trim()] ?? kind.trim()} ${a.trim()}:${b.trim()}`,
  );
}

/** Route header: "<prefix> unicast [proto time] * (pref) [ASxi]"; further paths omit the prefix. */
const ROUTE_ROW = /^(\S+)?\s+(\w+)\s+\[(\S+)[^\]]*\](\s+\*)?/;

/**
 * Parses `birdc show route all` (minimally): prefix, originating protocol, best mark, BGP next
 * hops, AS path, local pref and MED. Only routes of protocols `addressOf` knows are kept.
 */
export function parseBirdRoutes(
  text: string,
  family: Family,
  addressOf: (protocol: string) => string | undefined,
): ReceivedRoute[] {
  const out: ReceivedRoute[] = [];
  let prefix: string | undefined;
  let cur: { -readonly [K in keyof ReceivedRoute]: ReceivedRoute[K] } | undefined;
  const flush = (): void => {
    if (cur) out.push(cur);
    cur = undefined;
  };
  for (const line of text.split('\n')) {
    if (line.startsWith('\t')) {
      if (!cur) continue;
      const [key = '', ...rest] = line.trim().split(': ');
      const value = rest.join(': ');
      const field = ROUTE_ATTRIBUTE[key];
      if (field === 'asPath') cur.asPath = (value.match(/\d+/g) ?? []).map(Number);
      else if (field === 'nextHops') cur.nextHops = value.split(/\s+/).filter(Boolean);
      else if (field === 'localPref') cur.localPref = Number(value);
      else if (field === 'med') cur.med = Number(value);
      else if (field === 'extCommunities') cur.extCommunities = extCommunities(value);
      continue;
    }
    const m = line.match(ROUTE_ROW);
    if (!m || line.startsWith('Table ') || line.startsWith('BIRD ')) continue;
    flush();
    if (m[1] !== undefined) prefix = m[1];
    const from = addressOf(m[3] ?? '');
    if (prefix === undefined || from === undefined) continue;
    cur = { prefix, family, from, nextHops: [], asPath: [], best: m[4] !== undefined };
  }
  flush();
  return out;
}
