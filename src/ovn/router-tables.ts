import { type Clock, type Logger, silentLogger, systemClock } from '../components/index.js';
import { OvsdbClient, type Row, type TlsFiles } from '../ovsdb/index.js';
import { SB_DATABASE } from './tables.js';

/**
 * The kernel routing table ovn-controller fills for a logical router (OVN 25.03 dynamic
 * routing): the number is the router's datapath tunnel key, SB Datapath_Binding.tunnel_key of
 * the row whose external_ids:name is the router's name. (OVN 25.03 has no option to choose
 * it; a router deleted and created again gets a new key.)
 */
export const SB_DATAPATHS = {
  Datapath_Binding: { columns: ['tunnel_key', 'external_ids'] },
} as const;

export interface RouterTablesInit {
  readonly remotes: string | readonly string[];
  readonly tls?: TlsFiles;
  /** Told each router's table whenever it is first known or changes (undefined: the router is gone). */
  readonly onChange: (router: string, table: number | undefined) => void;
}

export interface RouterTablesComponents {
  readonly clock?: Clock;
  readonly logger?: Logger;
}

/** Follows the Southbound's datapaths and tells the table of every router by name. */
export class RouterTables {
  readonly #client: OvsdbClient;
  readonly #init: RouterTablesInit;
  readonly #known = new Map<string, number>();
  readonly #off: () => void;

  constructor(init: RouterTablesInit, components: RouterTablesComponents = {}) {
    this.#init = init;
    this.#client = new OvsdbClient(
      {
        remotes: init.remotes,
        database: SB_DATABASE,
        tables: SB_DATAPATHS,
        ...(init.tls && { tls: init.tls }),
      },
      { clock: components.clock ?? systemClock, logger: components.logger ?? silentLogger },
    );
    this.#off = this.#client.on('changes', () => this.#scan());
  }

  start(): void {
    this.#client.start();
  }

  /** The table of `router`, when the Southbound has it. */
  tableOf(router: string): number | undefined {
    return this.#known.get(router);
  }

  get synced(): boolean {
    return this.#client.synced;
  }

  get remote(): string {
    const s = this.#client.status;
    return 'remote' in s ? `${s.state} (${s.remote})` : s.state;
  }

  async close(): Promise<void> {
    this.#off();
    await this.#client.close();
  }

  /** A resync reports only real differences, so this sees a change only when a key moved. */
  #scan(): void {
    const now = new Map<string, number>();
    for (const row of this.#client.table('Datapath_Binding').values()) {
      const name = routerName(row);
      const key = row.tunnel_key;
      if (name !== undefined && typeof key === 'number') now.set(name, key);
    }
    for (const [name, table] of now)
      if (this.#known.get(name) !== table) {
        this.#known.set(name, table);
        this.#init.onChange(name, table);
      }
    for (const name of [...this.#known.keys()])
      if (!now.has(name)) {
        this.#known.delete(name);
        this.#init.onChange(name, undefined);
      }
  }
}

/** A router's datapath carries external_ids logical-router=<uuid> and name=<router name>. */
function routerName(row: Row): string | undefined {
  const ids = row.external_ids;
  if (!(ids instanceof Map) || !ids.has('logical-router')) return undefined;
  const name = ids.get('name');
  return typeof name === 'string' ? name : undefined;
}
