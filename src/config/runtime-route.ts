import { type Context, INVALID } from './decoders.js';
import type { Problem } from './problem.js';
import { routeFamilyProblems, staticRoute } from './route-checks.js';
import type { IpVersion, StaticRoute } from './schema.js';
import { routeSchema } from './sections.js';

export type RouteInput =
  | { readonly ok: true; readonly route: StaticRoute }
  | { readonly ok: false; readonly problems: readonly Problem[] };

/**
 * A route given at run time (the control API), read by the same rules as an entry of the
 * file's `routes:` section; problems name the fields under `route` ("route.next_hop").
 */
export function decodeRoute(raw: unknown, ipVersions: readonly IpVersion[]): RouteInput {
  const ctx: Context = { problems: [], warnings: [] };
  const r = routeSchema.decode(raw, ['route'], ctx);
  if (r === INVALID || r.prefix === undefined || ctx.problems.length > 0)
    return { ok: false, problems: ctx.problems };
  const route = staticRoute(r, r.prefix);
  const wrong = routeFamilyProblems(r.prefix, route.nextHop, ipVersions, {
    prefix: ['route', 'prefix'],
    nextHop: ['route', 'next_hop'],
  });
  return wrong.length > 0 ? { ok: false, problems: wrong } : { ok: true, route };
}
