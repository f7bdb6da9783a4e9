import { formatPrefix, versionOf } from './addresses.js';
import { FAMILIES, type IpVersion, NEXT_HOP_SELF } from './constants.js';
import { type Path, type Problem, problem } from './problem.js';
import type { ConfigPrefix, StaticRoute } from './schema.js';
import type { RawRoute } from './sections.js';

/** Where a route's prefix and next hop sit, for the problems that name them. */
export interface RoutePaths {
  readonly prefix: Path;
  /** Absent when the route has no next hop of its own (`networks`). */
  readonly nextHop?: Path;
}

/**
 * What makes an originated route unusable beyond its own fields: a family the speaker leaves
 * out, or a next hop of the other family. Shared by the file's routes and the control API's.
 */
export function routeFamilyProblems(
  p: ConfigPrefix,
  nextHop: string,
  ipVersions: readonly IpVersion[],
  paths: RoutePaths,
): Problem[] {
  const key = formatPrefix(p);
  const version = p.afi === FAMILIES['ipv4-unicast'].afi ? 4 : 6;
  const out: Problem[] = [];
  if (!ipVersions.includes(version)) {
    const versions = `[${ipVersions.join(', ')}]`;
    out.push(
      problem(paths.prefix, `${key} is IPv${version}, which speaker.ip_versions ${versions} leaves out`, key),
    );
  }
  if (paths.nextHop && nextHop !== NEXT_HOP_SELF && versionOf(nextHop) !== version) {
    out.push(problem(paths.nextHop, `${nextHop} is not IPv${version} like the prefix ${key}`, nextHop));
  }
  return out;
}

/** A `routes:` entry with its defaults: next hop self, ORIGIN IGP, no communities. */
export function staticRoute(r: RawRoute, prefix: ConfigPrefix): StaticRoute {
  return {
    prefix,
    nextHop: r.nextHop ?? NEXT_HOP_SELF,
    origin: r.origin ?? 'igp',
    med: r.med,
    localPref: r.localPref,
    communities: r.communities ?? [],
    largeCommunities: r.largeCommunities ?? [],
    extendedCommunities: r.extendedCommunities ?? [],
  };
}
