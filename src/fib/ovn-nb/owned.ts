import type { Atom, Row } from '../../ovsdb/index.js';
import { type OwnedRow, ownedRow, type RouteSettings } from './rows.js';

/**
 * Our rows by prefix, kept from the replica's change events so a batch of k changes is planned
 * in O(k), not by scanning the router's whole route set. Whether a row is on our router is
 * asked of the router's `static_routes`, made a Set once per version of that row.
 */
export class OwnedRoutes {
  readonly #settings: RouteSettings;
  readonly #rows = new Map<string, OwnedRow>();
  readonly #byKey = new Map<string, Set<string>>();
  #members: { readonly source: readonly Atom[]; readonly set: ReadonlySet<Atom> } | undefined;

  constructor(settings: RouteSettings) {
    this.#settings = settings;
  }

  /** Takes every row of a table (a client already synced before we listened). */
  load(table: ReadonlyMap<string, Row>): void {
    for (const [uuid, row] of table) this.update(uuid, row);
  }

  /** A row's new state; null when it is gone. */
  update(uuid: string, row: Row | null): void {
    const old = this.#rows.get(uuid);
    if (old) {
      this.#rows.delete(uuid);
      const set = this.#byKey.get(old.key);
      set?.delete(uuid);
      if (set?.size === 0) this.#byKey.delete(old.key);
    }
    const owned = row && ownedRow(row, this.#settings);
    if (!owned) return;
    this.#rows.set(uuid, owned);
    let set = this.#byKey.get(owned.key);
    if (!set) {
      set = new Set();
      this.#byKey.set(owned.key, set);
    }
    set.add(uuid);
  }

  /** Our rows for `key` that are in `routes` (the router's static_routes). */
  on(key: string, routes: readonly Atom[]): OwnedRow[] {
    const uuids = this.#byKey.get(key);
    if (!uuids) return [];
    const members = this.#membersOf(routes);
    const out: OwnedRow[] = [];
    for (const uuid of uuids) if (members.has(uuid)) out.push(this.#rows.get(uuid)!);
    return out;
  }

  /** Keys with at least one of our rows in `routes`. */
  keysOn(routes: readonly Atom[]): string[] {
    const members = this.#membersOf(routes);
    const out: string[] = [];
    for (const [key, uuids] of this.#byKey) {
      for (const uuid of uuids)
        if (members.has(uuid)) {
          out.push(key);
          break;
        }
    }
    return out;
  }

  /** How many of our rows are in `routes`. */
  countOn(routes: readonly Atom[]): number {
    const members = this.#membersOf(routes);
    let n = 0;
    for (const uuid of this.#rows.keys()) if (members.has(uuid)) n++;
    return n;
  }

  #membersOf(routes: readonly Atom[]): ReadonlySet<Atom> {
    if (this.#members?.source !== routes) this.#members = { source: routes, set: new Set(routes) };
    return this.#members.set;
  }
}
