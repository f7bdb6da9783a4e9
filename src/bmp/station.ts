import type * as net from 'node:net';
import type { UpdateMessage } from '../bgp/wire/index.js';
import type { Logger, Scheduler } from '../components/index.js';
import { BmpCollector, type CollectorInit, type CollectorStatus } from './collector.js';
import type { BmpEvents, MonitoredSession, SessionEnding } from './session.js';

export interface StationComponents {
  readonly clock: Scheduler;
  readonly log: Logger;
  readonly connect?: (port: number, host: string) => net.Socket;
}

/**
 * The monitored router's side of BMP: the sessions up now, and every configured collector
 * told of them. The route pipeline calls it (BmpEvents) as sessions come and go and UPDATEs
 * arrive; without a station nothing is called and nothing is built.
 */
export class BmpStation implements BmpEvents {
  readonly #sessions = new Map<string, MonitoredSession>();
  readonly #collectors: BmpCollector[];

  constructor(collectors: readonly CollectorInit[], components: StationComponents) {
    this.#collectors = collectors.map(
      (init) => new BmpCollector(init, { ...components, sessions: () => this.#sessions }),
    );
  }

  /** Sessions already up when the station starts are told as if they came up now. */
  start(up: Iterable<MonitoredSession>): void {
    for (const s of up) this.#sessions.set(s.peer.name, s);
    for (const c of this.#collectors) c.start();
  }

  status(): CollectorStatus[] {
    return this.#collectors.map((c) => c.status());
  }

  up(session: MonitoredSession): void {
    this.#sessions.set(session.peer.name, session);
    for (const c of this.#collectors) c.up(session);
  }

  update(name: string, u: UpdateMessage): void {
    const s = this.#sessions.get(name);
    if (!s) return;
    for (const c of this.#collectors) c.update(s, u);
  }

  down(name: string, ending: SessionEnding): void {
    const s = this.#sessions.get(name);
    if (!s) return;
    this.#sessions.delete(name);
    for (const c of this.#collectors) c.down(s.peer, ending);
  }

  reimported(name: string): void {
    const s = this.#sessions.get(name);
    if (!s) return;
    for (const c of this.#collectors) c.reimported(s);
  }

  /** Termination to every collector, then the connections close. */
  async close(): Promise<void> {
    await Promise.all(this.#collectors.map((c) => c.close()));
  }
}
