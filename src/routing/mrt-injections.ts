import { createReadStream } from 'node:fs';
import {
  Afi,
  type AttrInterner,
  type PathAttributes,
  PrefixList,
  Safi,
  type UpdateMessage,
} from '../bgp/wire/index.js';
import { nextTurn } from '../components/index.js';
import { MrtDefaults, type MrtReadResult, readMrtRoutes } from '../mrt/index.js';
import type { Rib, RibPeer } from '../rib/index.js';
import { RoutingDefaults } from './constants.js';
import type { RouteFlow } from './route-flow.js';

/** What `mrt list` shows of one injected file. */
export interface MrtInjectionView {
  readonly name: string;
  readonly path: string;
  /** Routes originated: IPv4 and IPv6 prefixes. */
  readonly ipv4: number;
  readonly ipv6: number;
  readonly records: number;
  /** Records not read as routes (other types, multicast, messages other than UPDATE). */
  readonly skipped: number;
  /** Routes whose attributes RFC 7606 turns into a withdrawal. */
  readonly invalid: number;
  /** Milliseconds the file took to read and originate. */
  readonly ms: number;
}

interface Injection {
  readonly view: MrtInjectionView;
  readonly pathId: number;
  readonly v4: PrefixList;
  readonly v6: PrefixList;
}

/** Opens a file as chunks (tests pass their own). */
export type ChunkSource = (path: string) => AsyncIterable<Uint8Array>;

const readFileChunks: ChunkSource = (path) =>
  createReadStream(path, { highWaterMark: MrtDefaults.READ_CHUNK });

export interface MrtInjectionsComponents {
  readonly rib: Rib;
  readonly flow: RouteFlow;
  /** The sessions' attribute interner: an injected table shares its attribute sets. */
  readonly interner?: AttrInterner;
  readonly now: () => number;
  readonly open?: ChunkSource;
}

/**
 * The `mrt` origin: MRT files injected by name (`mrt inject NAME FILE`), each the first entry
 * of every TABLE_DUMP_V2 RIB record and every BGP4MP UPDATE, originated with the file's own
 * attributes (AS_PATH, next hop, communities, LOCAL_PREF and MED as written; export treats
 * them as any local route's). The routes go into the RIB as a received UPDATE's do: decoded
 * and interned once per attribute set, prefixes as columns. Each injection's prefixes are
 * kept as columns too, under a path id of its own, so injecting a name again originates the
 * new file before the old one's routes go (a prefix in both never leaves the peers), and
 * `withdraw` takes a whole file away. One injection or withdrawal runs at a time.
 */
export class MrtInjections {
  readonly #c: MrtInjectionsComponents;
  readonly #origin: RibPeer;
  readonly #byName = new Map<string, Injection>();
  #nextPathId = 1;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(components: MrtInjectionsComponents) {
    this.#c = components;
    this.#origin = components.rib.origin('mrt');
  }

  list(): MrtInjectionView[] {
    return [...this.#byName.values()].map((i) => i.view);
  }

  /** Reads `path` and originates its routes as `name`, replacing what `name` held. */
  inject(name: string, path: string): Promise<MrtInjectionView> {
    const run = this.#queue.then(() => this.#inject(name, path));
    this.#queue = run.catch(() => {});
    return run;
  }

  /** Withdraws every route of `name`; undefined when no such injection is held. */
  withdraw(name: string): Promise<MrtInjectionView | undefined> {
    const run = this.#queue.then(async () => {
      const held = this.#byName.get(name);
      if (!held) return undefined;
      this.#byName.delete(name);
      await this.#remove(held);
      return held.view;
    });
    this.#queue = run.catch(() => {});
    return run;
  }

  async #inject(name: string, path: string): Promise<MrtInjectionView> {
    const { rib, flow } = this.#c;
    const started = this.#c.now();
    const pathId = this.#nextPathId++;
    const injection = { v4: new PrefixList(Afi.IPV4, true, 1024), v6: new PrefixList(Afi.IPV6, true, 1024) };
    const scratch = new PrefixList(Afi.IPV4, true, 64);
    const origin = this.#origin;
    const announce = (list: PrefixList, attrs: PathAttributes) => {
      const into = list.afi === Afi.IPV4 ? injection.v4 : injection.v6;
      const from = into.count;
      append(into, list, pathId);
      rib.announce(origin, into, attrs, from, into.count);
    };
    const withdraw = (list: PrefixList) => {
      scratch.reset(list.afi, true);
      append(scratch, list, pathId);
      rib.withdraw(origin, scratch);
    };
    const sink = (u: UpdateMessage) => {
      if (u.withdrawn.count > 0) withdraw(u.withdrawn);
      if (u.mpUnreach?.safi === Safi.UNICAST) withdraw(u.mpUnreach.withdrawn);
      if (u.action === 'treat-as-withdraw' || !u.attrs) return;
      if (u.nlri.count > 0) announce(u.nlri, u.attrs);
      if (u.mpNlri && u.attrs.mpReach?.safi === Safi.UNICAST) announce(u.mpNlri, u.attrs);
    };
    let result: MrtReadResult;
    try {
      result = await readMrtRoutes((this.#c.open ?? readFileChunks)(path), sink, {
        interner: this.#c.interner,
        pause: () => this.#pause(),
      });
    } catch (error) {
      // Half a file is no injection: what it originated goes again.
      await this.#remove(injection);
      throw error;
    }
    flow.schedule();
    const view: MrtInjectionView = {
      name,
      path,
      ipv4: injection.v4.count,
      ipv6: injection.v6.count,
      records: result.records,
      skipped: result.skipped,
      invalid: result.withdrawn,
      ms: Math.round(this.#c.now() - started),
    };
    const old = this.#byName.get(name);
    this.#byName.set(name, { view, pathId, ...injection });
    if (old) await this.#remove(old);
    return view;
  }

  /** Withdraws an injection's routes a slice per turn. */
  async #remove(i: Pick<Injection, 'v4' | 'v6'>): Promise<void> {
    const slice = RoutingDefaults.CLEAR_SLICE_ROUTES;
    for (const list of [i.v4, i.v6]) {
      for (let from = 0; from < list.count; from += slice) {
        this.#c.rib.withdraw(this.#origin, list, from, Math.min(list.count, from + slice));
        await this.#pause();
      }
    }
    this.#c.flow.schedule();
  }

  /** Lets the decision process keep up, as a session's reading does (IMPORT_BACKLOG_PREFIXES). */
  async #pause(): Promise<void> {
    const { rib, flow } = this.#c;
    flow.schedule();
    while (rib.pending > RoutingDefaults.IMPORT_BACKLOG_PREFIXES) await flow.whenFlushed();
    await nextTurn();
  }
}

/** Appends `list`'s prefixes to `into` (add-path columns) under `pathId`. */
function append(into: PrefixList, list: PrefixList, pathId: number): void {
  const wpp = list.afi === Afi.IPV4 ? 1 : 4;
  for (let i = 0; i < list.count; i++) {
    const j = into.grow();
    into.lens[j] = list.lens[i];
    for (let k = 0; k < wpp; k++) into.words[j * wpp + k] = list.words[i * wpp + k];
    into.pathIds[j] = pathId;
  }
}
