import type { PathView } from '../api/index.js';
import {
  Afi,
  type AfiCode,
  AttrType,
  effectiveAsPath,
  formatAsPath,
  formatAttribute,
  Origin,
  originText,
  type PathAttributes,
} from '../bgp/wire/index.js';
import { nextHopText } from '../rib/index.js';
import { UNSPECIFIED_NEXT_HOP } from './constants.js';

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
    asPath: formatAsPath(effectiveAsPath(attrs)),
    origin: originText(attrs.origin ?? Origin.INCOMPLETE),
    ...(attrs.med !== undefined && { med: attrs.med }),
    ...(attrs.localPref !== undefined && { localPref: attrs.localPref }),
    communities: formatAttribute(AttrType.COMMUNITIES, attrs),
    largeCommunities: formatAttribute(AttrType.LARGE_COMMUNITY, attrs),
    extendedCommunities: formatAttribute(AttrType.EXTENDED_COMMUNITIES, attrs),
    best: flags.best,
    multipath: flags.multipath,
    ...(flags.best && flags.reason !== undefined && { reason: flags.reason }),
  };
}
