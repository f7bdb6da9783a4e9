import { type ApiRouteView, ControlError, type RouteActionResult } from '../api/index.js';
import {
  type Config,
  decodeRoute,
  formatPrefix,
  formatProblem,
  parsePrefix,
  type StaticRoute,
} from '../config/index.js';
import { formatCommunity, formatLargeCommunity } from '../policy/index.js';
import type { Rib, RibPeer } from '../rib/index.js';
import type { RouteFlow } from './route-flow.js';
import { staticAttributes } from './static-origin.js';

/**
 * The routes the control API announced: the RIB's `api` origin, by prefix. They are checked
 * as entries of the file's `routes:` section, outlive reloads, and go when withdrawn or when
 * the speaker stops. Announcing a prefix again replaces its path in place (one UPDATE).
 */
export class ApiRoutes {
  readonly #rib: Rib;
  readonly #origin: RibPeer;
  readonly #flow: RouteFlow;
  readonly #routes = new Map<string, StaticRoute>();

  constructor(rib: Rib, flow: RouteFlow) {
    this.#rib = rib;
    this.#origin = rib.origin('api');
    this.#flow = flow;
  }

  announce(raw: unknown, config: Config): RouteActionResult {
    const input = decodeRoute(raw, config.speaker.ipVersions);
    if (!input.ok) {
      throw new ControlError('bad-request', input.problems.map((p) => formatProblem(p)).join('; '));
    }
    const route = input.route;
    const key = formatPrefix(route.prefix);
    const held = this.#routes.get(key);
    if (held && JSON.stringify(held) === JSON.stringify(route)) return { prefix: key, action: 'unchanged' };
    this.#rib.originate(route.prefix, staticAttributes(route), 0, this.#origin);
    this.#routes.set(key, route);
    this.#flow.schedule();
    return { prefix: key, action: held ? 'replaced' : 'announced' };
  }

  withdraw(text: string): RouteActionResult {
    const parsed = parsePrefix(text);
    const key = 'prefix' in parsed ? formatPrefix(parsed.prefix) : text;
    const held = this.#routes.get(key);
    if (!held) throw new ControlError('unknown-route', `no route ${text} announced through the API`);
    this.#routes.delete(key);
    this.#rib.unoriginate(held.prefix, 0, this.#origin);
    this.#flow.schedule();
    return { prefix: key, action: 'withdrawn' };
  }

  list(): ApiRouteView[] {
    return [...this.#routes.entries()].map(([prefix, r]) => ({
      prefix,
      nextHop: r.nextHop,
      origin: r.origin,
      ...(r.med !== undefined && { med: r.med }),
      ...(r.localPref !== undefined && { localPref: r.localPref }),
      communities: r.communities.map(formatCommunity),
      largeCommunities: r.largeCommunities.map(([a, b, c]) => formatLargeCommunity(a, b, c)),
    }));
  }
}
