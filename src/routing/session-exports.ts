import type { ChangeBatch, Rib, UpdateGroups } from '../rib/index.js';
import type { RouteConsumer } from './route-flow.js';
import type { SessionExport } from './session-export.js';

/**
 * The `bgp` route consumer and the live sessions it feeds: each flush goes to the update
 * groups, which compute every group's Adj-RIB-Out once, then each Established session's
 * export is kicked to send its share. Sessions register here while they are up, so an
 * outbound change goes from the RIB to the sessions without leaving the route pipeline.
 *
 * While held (our own graceful restart, RFC 4724 section 4.1), a session that comes up sends
 * nothing until `release`.
 */
export class SessionExports implements RouteConsumer {
  readonly name = 'bgp';
  readonly #rib: Pick<Rib, 'touched'>;
  readonly #groups: UpdateGroups;
  readonly #live = new Set<SessionExport>();
  #held = false;

  constructor(rib: Pick<Rib, 'touched'>, groups: UpdateGroups) {
    this.#rib = rib;
    this.#groups = groups;
  }

  /** Whether a session that comes up now waits for `release` before it sends. */
  get held(): boolean {
    return this.#held;
  }

  accept(changes: ChangeBatch): void {
    const touched = this.#rib.touched;
    // RFC 7911: add-path peers also follow prefixes whose best path stayed (rib.touched).
    if (changes.count > 0 || touched[0].count + touched[1].count > 0) this.#groups.applyBatch(changes);
    for (const e of this.#live) e.kick();
  }

  /** A session is Established: it is kicked on every flush until `delete`. */
  add(e: SessionExport): void {
    this.#live.add(e);
  }

  delete(e: SessionExport): void {
    this.#live.delete(e);
  }

  /** Sessions that come up from now on wait for `release`. */
  hold(): void {
    this.#held = true;
  }

  /** Every waiting session sends its routes and End-of-RIB now; later ones send at once. */
  release(): void {
    this.#held = false;
    for (const e of this.#live) e.release();
  }
}
