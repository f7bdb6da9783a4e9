import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Logger } from '../components/index.js';
import { BfdPort } from './constants.js';
import type {
  BfdSessionSpec,
  BfdStatus,
  BfdTimersSpec,
  BfdTransition,
  FromWorker,
  ToWorker,
} from './types.js';
import type { WorkerInit } from './worker.js';
import type { Ports } from './worker-transport.js';

export interface BfdServiceInit {
  /** Where to listen (tests: 0 for any free port); default 3784 and 4784. */
  readonly ports?: Ports;
}

/** One session as its owner (a BGP neighbour) holds it. */
export interface BfdHandle {
  /** The last status the worker reported; null until the first. */
  readonly status: BfdStatus | null;
  update(timers: BfdTimersSpec): void;
  /** The session goes (AdminDown to the peer first); no more events. */
  close(): void;
}

export type BfdListener = (transition: BfdTransition, status: BfdStatus) => void;

interface Open {
  status: BfdStatus | null;
  readonly listener: BfdListener;
}

/**
 * The worker: worker.js beside this file once built; from source (tsx, the tests) worker.ts
 * through tsx's loader, which a worker thread of Node 20 does not inherit from `--import`.
 */
function newWorker(workerData: WorkerInit): Worker {
  if (!import.meta.url.endsWith('.ts'))
    return new Worker(new URL('./worker.js', import.meta.url), { workerData });
  const entry = new URL('./worker.ts', import.meta.url).href;
  const require = createRequire(import.meta.url);
  const manifest = require.resolve('tsx/package.json');
  const exports = JSON.parse(readFileSync(manifest, 'utf8')).exports as Record<
    string,
    { import: { default: string } }
  >;
  const api = pathToFileURL(join(dirname(manifest), exports['./esm/api']!.import.default)).href;
  const code = `import(${JSON.stringify(api)}).then((m) => m.tsImport(${JSON.stringify(entry)}, ${JSON.stringify(entry)}))`;
  return new Worker(code, { eval: true, workerData });
}

/**
 * BFD for the speaker: the sessions run in a worker thread that owns the UDP sockets and the
 * timers (a busy main thread cannot delay a packet or a detection); here each session is a
 * handle whose listener hears its state changes.
 */
export class BfdService {
  readonly #worker: Worker;
  readonly #log: Logger;
  readonly #open = new Map<number, Open>();
  #nextId = 1;
  #ports: Ports | null = null;
  #closed: Promise<void> | null = null;
  #exited = false;

  readonly #ready: Promise<Ports>;

  /**
   * Starts the worker at once; sessions may be opened before it is ready (messages wait in
   * its queue). A worker that fails is logged, and its sessions stay without news.
   */
  constructor(log: Logger, init: BfdServiceInit = {}) {
    this.#log = log;
    this.#worker = newWorker({
      ports: init.ports ?? { singleHop: BfdPort.SINGLE_HOP, multiHop: BfdPort.MULTI_HOP },
    });
    this.#worker.unref();
    this.#worker.once('exit', () => {
      this.#exited = true;
    });
    this.#ready = new Promise<Ports>((resolve, reject) => {
      this.#worker.on('message', (m: FromWorker) => {
        if (m.type === 'ready') {
          this.#ports = m.ports;
          resolve(m.ports);
        }
        this.#onMessage(m);
      });
      this.#worker.on('error', (error) => {
        log.error({ error: String(error) }, 'BFD worker failed');
        reject(error);
      });
    });
    this.#ready.catch(() => {});
  }

  /** A service whose receive sockets are bound. */
  static async start(log: Logger, init: BfdServiceInit = {}): Promise<BfdService> {
    const service = new BfdService(log, init);
    await service.ready();
    return service;
  }

  /** Resolves with the bound ports once the worker listens. */
  ready(): Promise<Ports> {
    return this.#ready;
  }

  /** The ports the worker listens on. */
  get ports(): Ports {
    return this.#ports!;
  }

  get sessions(): number {
    return this.#open.size;
  }

  open(spec: BfdSessionSpec, listener: BfdListener): BfdHandle {
    const id = this.#nextId++;
    const entry: Open = { status: null, listener };
    this.#open.set(id, entry);
    this.#post({ type: 'add', id, spec });
    const post = (m: ToWorker) => this.#post(m);
    const open = this.#open;
    return {
      get status() {
        return entry.status;
      },
      update: (timers) => {
        if (open.get(id) === entry) post({ type: 'update', id, timers });
      },
      close: () => {
        if (open.get(id) !== entry) return;
        open.delete(id);
        post({ type: 'remove', id });
      },
    };
  }

  /** Every session says AdminDown once, then the worker stops. */
  close(): Promise<void> {
    this.#closed ??= new Promise<void>((resolve) => {
      if (this.#exited) {
        resolve();
        return;
      }
      this.#worker.once('exit', () => resolve());
      this.#post({ type: 'close' });
    });
    return this.#closed;
  }

  #post(m: ToWorker): void {
    this.#worker.postMessage(m);
  }

  #onMessage(m: FromWorker): void {
    switch (m.type) {
      case 'status': {
        const e = this.#open.get(m.id);
        if (e) e.status = m.status;
        break;
      }
      case 'transition': {
        const e = this.#open.get(m.id);
        if (!e) break;
        e.status = m.status;
        e.listener(m.transition, m.status);
        break;
      }
      case 'log':
        this.#log[m.level](m.fields, m.message);
        break;
      case 'ready':
      case 'closed':
        break;
    }
  }
}
