import type { PathView } from '../api/index.js';
import {
  Afi,
  type AfiCode,
  type AsPathSegment,
  AsPathSegmentType,
  formatAsPath,
  Origin,
  type PathAttributes,
} from '../bgp/wire/index.js';
import { EXT_COMMUNITY_BYTES } from '../policy/constants.js';
import { extHi, extLo, formatCommunity, formatExtCommunity, formatLargeCommunity } from '../policy/index.js';
import { effectiveAsPath, nextHopText } from '../rib/index.js';
import { UNSPECIFIED_NEXT_HOP } from './constants.js';

const ORIGIN_NAME: Readonly<Record<number, PathView['origin']>> = {
  [Origin.IGP]: 'igp',
  [Origin.EGP]: 'egp',
  [Origin.INCOMPLETE]: 'incomplete',
};
const LARGE_COMMUNITY_FIELDS = 3;

/** AS_PATH as vtysh prints it; an empty AS_SEQUENCE (a locally built path) prints nothing. */
function asPathText(path: readonly AsPathSegment[]): string {
  return formatAsPath(path.filter((s) => s.asns.length > 0 || s.type !== AsPathSegmentType.AS_SEQUENCE));
}

function largeCommunities(flat: readonly number[] | undefined): string[] {
  const out: string[] = [];
  if (!flat) return out;
  for (let i = 0; i + LARGE_COMMUNITY_FIELDS <= flat.length; i += LARGE_COMMUNITY_FIELDS) {
    out.push(formatLargeCommunity(flat[i]!, flat[i + 1]!, flat[i + 2]!));
  }
  return out;
}

function extendedCommunities(bytes: Uint8Array | undefined): string[] {
  const out: string[] = [];
  if (!bytes) return out;
  for (let at = 0; at + EXT_COMMUNITY_BYTES <= bytes.length; at += EXT_COMMUNITY_BYTES)
    out.push(formatExtCommunity(extHi(bytes, at), extLo(bytes, at)));
  return out;
}

/** One path's attributes as `show` prints them. */
export function attributesView(
  attrs: PathAttributes,
  afi: AfiCode,
  from: string,
  flags: { best: boolean; multipath: boolean; reason?: string },
): PathView {
  return {
    from,
    nextHop: nextHopText(attrs, afi) ?? UNSPECIFIED_NEXT_HOP[afi === Afi.IPV4 ? 4 : 6],
    asPath: asPathText(effectiveAsPath(attrs)),
    origin: ORIGIN_NAME[attrs.origin ?? Origin.INCOMPLETE] ?? 'incomplete',
    ...(attrs.med !== undefined && { med: attrs.med }),
    ...(attrs.localPref !== undefined && { localPref: attrs.localPref }),
    communities: (attrs.communities ?? []).map(formatCommunity),
    largeCommunities: largeCommunities(attrs.largeCommunities),
    extendedCommunities: extendedCommunities(attrs.extCommunities),
    best: flags.best,
    multipath: flags.multipath,
    ...(flags.best && flags.reason !== undefined && { reason: flags.reason }),
  };
}
