import { formatAddress, formatIpv4 } from '../address/index.js';
import {
  AttrType,
  type BgpMessage,
  capabilitiesOf,
  describeNotification,
  endOfRib,
  formatAttribute,
  fourOctetAs,
  type PathAttributes,
  type PrefixList,
} from '../bgp/wire/index.js';

const FAMILY: Record<number, string> = { 1: 'ipv4', 2: 'ipv6' };

/** One line per message, in the spirit of `tshark -O bgp` but short. */
export function describeMessage(m: BgpMessage): string {
  switch (m.type) {
    case 'open': {
      const caps = capabilitiesOf(m).map((c) =>
        c.name === 'multiprotocol' ? `mp(${FAMILY[c.afi] ?? c.afi})` : c.name,
      );
      return `OPEN as ${fourOctetAs(m)} hold ${m.holdTime} id ${formatIpv4(m.bgpId)} caps [${caps.join(' ')}]`;
    }
    case 'update': {
      const eor = endOfRib(m);
      if (eor) return `UPDATE End-of-RIB ${FAMILY[eor.afi] ?? eor.afi}`;
      const parts = ['UPDATE'];
      if (m.withdrawn.count) parts.push(`withdraw ${prefixes(m.withdrawn)}`);
      if (m.mpUnreach?.withdrawn.count) parts.push(`withdraw ${prefixes(m.mpUnreach.withdrawn)}`);
      if (m.nlri.count) parts.push(`announce ${prefixes(m.nlri)}`);
      if (m.mpNlri?.count) parts.push(`announce ${prefixes(m.mpNlri)}`);
      if (m.attrs && (m.nlri.count || m.mpNlri?.count)) parts.push(attributes(m.attrs));
      if (m.action !== 'ok') parts.push(`[${m.action}: ${m.issues.map((i) => i.kind).join(', ')}]`);
      return parts.join(' ');
    }
    case 'notification':
      return `NOTIFICATION ${describeNotification(m)}`;
    case 'keepalive':
      return 'KEEPALIVE';
    case 'route-refresh':
      return `ROUTE-REFRESH ${FAMILY[m.afi] ?? m.afi} subtype ${m.subtype}`;
  }
}

function prefixes(list: PrefixList, max = 3): string {
  const shown = list
    .toArray()
    .slice(0, max)
    .map((p) => `${p.addr}/${p.len}${p.pathId !== undefined ? `#${p.pathId}` : ''}`);
  return list.count > max ? `${shown.join(' ')} (+${list.count - max})` : shown.join(' ');
}

/** The attributes in short: each value as its row prints it, long lists as counts. */
function attributes(a: PathAttributes): string {
  const out: string[] = [];
  const text = (code: number) => formatAttribute(code, a).join(' ');
  if (a.asPath) out.push(`path "${text(AttrType.AS_PATH)}"`);
  if (a.nextHop !== undefined) out.push(`nh ${text(AttrType.NEXT_HOP)}`);
  if (a.mpReach) out.push(`nh ${describeNextHop(a.mpReach.nextHop)}`);
  if (a.med !== undefined) out.push(`med ${text(AttrType.MULTI_EXIT_DISC)}`);
  if (a.localPref !== undefined) out.push(`lp ${text(AttrType.LOCAL_PREF)}`);
  if (a.communities) out.push(`comm ${a.communities.map((c) => `${c >>> 16}:${c & 0xffff}`).join(',')}`);
  if (a.largeCommunities) out.push(`large ${a.largeCommunities.length / 3}`);
  if (a.extCommunities) out.push(`ext ${a.extCommunities.length / 8}`);
  return out.join(' ');
}

function describeNextHop(bytes: Uint8Array): string {
  if (bytes.length === 32)
    return `${formatAddress(bytes.subarray(0, 16))}+${formatAddress(bytes.subarray(16))}`;
  return formatAddress(bytes);
}
