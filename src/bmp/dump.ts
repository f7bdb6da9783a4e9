import { Afi, type PathAttributes, PrefixList } from '../bgp/wire/index.js';
import { BmpDefaults } from './constants.js';
import { appendPrefix, type RibView, type RouteMessages } from './route-messages.js';
import type { MonitoredSession } from './session.js';

/** Routes of one view, grouped by attribute set per family (interned sets group themselves). */
function collect(s: MonitoredSession, view: RibView): Map<PathAttributes, PrefixList>[] {
  const families = [new Map<PathAttributes, PrefixList>(), new Map<PathAttributes, PrefixList>()];
  const addPath = [s.peer.context.update.addPathIpv4, s.peer.context.update.addPathIpv6];
  const visit = (
    afi: number,
    words: ArrayLike<number>,
    off: number,
    len: number,
    pathId: number,
    attrs: PathAttributes,
  ) => {
    const slot = afi === Afi.IPV4 ? 0 : 1;
    const groups = families[slot]!;
    let list = groups.get(attrs);
    if (!list) {
      list = new PrefixList(afi === Afi.IPV4 ? Afi.IPV4 : Afi.IPV6, addPath[slot]);
      groups.set(attrs, list);
    }
    appendPrefix(list, words, off, len, pathId);
  };
  if (view === 'pre') s.preRoutes(visit);
  else s.postRoutes(visit);
  return families;
}

/**
 * One session's state as a collector that has never seen it needs it: Peer Up, then each
 * view's routes as they are now (section 5: the initial dump), each closed by End-of-RIB per
 * family. Yields a slice of messages at a time, so the caller paces it by its socket.
 */
export function* dumpSession(
  messages: RouteMessages,
  s: MonitoredSession,
  views: readonly RibView[],
  now: () => number,
  sliceRoutes: number = BmpDefaults.DUMP_SLICE_ROUTES,
): Generator<Uint8Array[]> {
  yield [messages.peerUp(s.peer)];
  for (const view of views) {
    // The table as it is when its dump begins; later changes follow as live messages.
    const families = collect(s, view);
    for (const groups of families) {
      for (const [attrs, list] of groups) {
        for (let from = 0; from < list.count; from += sliceRoutes) {
          const out: Uint8Array[] = [];
          messages.routes(s.peer, view, new Map([[attrs, list]]), now(), out, from, from + sliceRoutes);
          yield out;
        }
      }
    }
    const out: Uint8Array[] = [];
    for (const afi of s.peer.families) messages.endOfRib(s.peer, view, afi, now(), out);
    yield out;
  }
}
