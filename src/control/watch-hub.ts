import type { PathView, SessionState, WatchItem, WatchSink, WatchTopic } from '../api/index.js';
import type { StateChange } from '../bgp/session/index.js';
import type { ChangeBatch, Rib, RouteAdd } from '../rib/index.js';
import type { RouteFlow } from '../routing/index.js';
import { attributesView } from './path-view.js';

interface Watcher {
  readonly topics: ReadonlySet<WatchTopic>;
  readonly sink: WatchSink;
}

/** A neighbor as a watch's snapshot lists it. */
export interface WatchedSession {
  readonly name: string;
  readonly state: SessionState;
}

function bestView(r: RouteAdd): PathView {
  return attributesView(r.attrs, r.prefix.afi, r.source.id, {
    best: true,
    multipath: r.multipath.length > 1,
    reason: r.reason,
  });
}

/**
 * The control API's `watch` subscriptions. Subscribing takes the snapshot and registers in
 * one synchronous step, so no change can fall between the two (the race GoBGP's watchers
 * have); best-path changes come from the route flow, after the RIB decided them. Costs
 * nothing while nobody watches: the flow consumer exists only while a watcher wants paths.
 */
export class WatchHub {
  readonly #flow: RouteFlow;
  readonly #rib: Rib;
  readonly #sessions: () => Iterable<WatchedSession>;
  readonly #watchers = new Set<Watcher>();
  #removeConsumer: (() => void) | null = null;

  constructor(flow: RouteFlow, rib: Rib, sessions: () => Iterable<WatchedSession>) {
    this.#flow = flow;
    this.#rib = rib;
    this.#sessions = sessions;
  }

  subscribe(topics: readonly WatchTopic[], sink: WatchSink): () => void {
    const watcher: Watcher = { topics: new Set(topics), sink };
    if (watcher.topics.has('sessions')) {
      for (const s of this.#sessions()) sink.push({ type: 'session', peer: s.name, state: s.state });
    }
    if (watcher.topics.has('bestpath')) {
      // Views are built as the stream writes them: a full table is not copied twice.
      for (const r of this.#rib.snapshot()) {
        sink.push(() => ({ type: 'bestpath', prefix: r.prefix.toString(), path: bestView(r) }));
      }
    }
    sink.push({ type: 'synced' });
    this.#watchers.add(watcher);
    this.#updateConsumer();
    return () => {
      this.#watchers.delete(watcher);
      this.#updateConsumer();
    };
  }

  /** A neighbor's session changed state. */
  session(peer: string, change: StateChange): void {
    const item: WatchItem = {
      type: 'session',
      peer,
      state: change.to,
      previous: change.from,
      reason: change.reason,
    };
    for (const w of this.#watchers) if (w.topics.has('sessions')) w.sink.push(item);
  }

  close(): void {
    this.#watchers.clear();
    this.#updateConsumer();
  }

  #updateConsumer(): void {
    const wanted = [...this.#watchers].some((w) => w.topics.has('bestpath'));
    if (wanted && !this.#removeConsumer) {
      this.#removeConsumer = this.#flow.addConsumer({ name: 'watch', accept: (c) => this.#accept(c) });
    } else if (!wanted && this.#removeConsumer) {
      this.#removeConsumer();
      this.#removeConsumer = null;
    }
  }

  #accept(changes: ChangeBatch): void {
    if (changes.count === 0) return;
    const items: WatchItem[] = [];
    for (let i = 0; i < changes.count; i++) {
      const c = changes.change(i);
      items.push({
        type: 'bestpath',
        prefix: c.prefix.toString(),
        path: c.kind === 'add' ? bestView(c) : null,
      });
    }
    for (const w of this.#watchers) {
      if (!w.topics.has('bestpath')) continue;
      for (const item of items) w.sink.push(item);
    }
  }
}
