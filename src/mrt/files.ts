import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Clock, Logger, TimerHandle } from '../components/index.js';
import type { Rib } from '../rib/index.js';
import { MrtDefaults } from './constants.js';
import { Bgp4mpRecorder } from './recorder.js';
import type { Bgp4mpPeering } from './records.js';
import { dumpTable, type TableDumpResult } from './table-dump.js';

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/**
 * A file name from a template as FRR's `dump bgp` takes it: strftime's %Y %m %d %H %M %S
 * (UTC), %s (seconds since the epoch) and %% are replaced, anything else is kept.
 */
export function expandPath(template: string, ms: number): string {
  const d = new Date(ms);
  return template.replace(/%([YmdHMSs%])/g, (_, c: string) => {
    switch (c) {
      case 'Y':
        return String(d.getUTCFullYear());
      case 'm':
        return pad(d.getUTCMonth() + 1);
      case 'd':
        return pad(d.getUTCDate());
      case 'H':
        return pad(d.getUTCHours());
      case 'M':
        return pad(d.getUTCMinutes());
      case 'S':
        return pad(d.getUTCSeconds());
      case 's':
        return String(Math.floor(ms / 1000));
      default:
        return '%';
    }
  });
}

export interface DumpFileResult extends TableDumpResult {
  readonly path: string;
}

/**
 * Dumps the Loc-RIB into `path` (a template, see expandPath) as TABLE_DUMP_V2. The file is
 * written beside its final name and renamed when complete, so a reader never sees half a dump.
 */
export async function dumpTableToFile(rib: Rib, template: string, clock: Clock): Promise<DumpFileResult> {
  const now = clock.now();
  const path = expandPath(template, now);
  const partial = `${path}.partial`;
  await mkdir(dirname(path), { recursive: true });
  const file = await open(partial, 'w', 0o644);
  let result: TableDumpResult;
  try {
    result = await dumpTable(rib, async (bytes) => void (await file.write(bytes)), {
      timestamp: Math.floor(now / 1000),
    });
    await file.close();
  } catch (error) {
    await file.close().catch(() => {});
    await rm(partial, { force: true });
    throw error;
  }
  await rename(partial, path);
  return { ...result, path };
}

export interface RecordingInit {
  /** A template (see expandPath), expanded when each file is opened. */
  readonly path: string;
  /** Seconds between new files; 0: one file. */
  readonly rotate: number;
}

/**
 * A BGP4MP recording into files: records are gathered in memory and appended every
 * FLUSH_MS or once WRITE_CHUNK bytes wait, one write at a time, so a message costs an
 * encode into a buffer and never a system call; a new file is begun every `rotate` seconds.
 */
export class RecordingFile {
  static readonly FLUSH_MS = 1000;
  readonly #init: RecordingInit;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #recorder: Bgp4mpRecorder;
  #path: string;
  #openedAt: number;
  #writing: Promise<void> = Promise.resolve();
  #timer: TimerHandle | null = null;
  #closed = false;
  #failed = false;

  constructor(init: RecordingInit, clock: Clock, log: Logger) {
    this.#init = init;
    this.#clock = clock;
    this.#log = log;
    this.#recorder = new Bgp4mpRecorder(() => Math.floor(clock.now() / 1000));
    this.#openedAt = clock.now();
    this.#path = expandPath(init.path, this.#openedAt);
  }

  /** The file being written now. */
  get path(): string {
    return this.#path;
  }

  get records(): number {
    return this.#recorder.records;
  }

  messages(direction: 'received' | 'sent', peering: Bgp4mpPeering, bytes: Uint8Array): void {
    if (this.#closed) return;
    this.#recorder.messages(direction, peering, bytes);
    this.#due();
  }

  stateChange(...args: Parameters<Bgp4mpRecorder['stateChange']>): void {
    if (this.#closed) return;
    this.#recorder.stateChange(...args);
    this.#due();
  }

  /** Writes what is gathered; resolves once it is on its way to the file. */
  flush(): Promise<void> {
    const bytes = this.#recorder.take();
    if (this.#timer !== null) {
      this.#clock.clearTimeout(this.#timer);
      this.#timer = null;
    }
    const now = this.#clock.now();
    const rotate = this.#init.rotate > 0 && now - this.#openedAt >= this.#init.rotate * 1000;
    if (rotate) {
      this.#openedAt = now;
      this.#path = expandPath(this.#init.path, now);
    }
    if (!bytes) return this.#writing;
    const path = this.#path;
    this.#writing = this.#writing.then(() => this.#append(path, bytes));
    return this.#writing;
  }

  async close(): Promise<void> {
    await this.flush();
    this.#closed = true;
  }

  #due(): void {
    if (this.#recorder.pending >= MrtDefaults.WRITE_CHUNK) {
      void this.flush();
    } else if (this.#timer === null) {
      this.#timer = this.#clock.setTimeout(() => {
        this.#timer = null;
        void this.flush();
      }, RecordingFile.FLUSH_MS);
    }
  }

  async #append(path: string, bytes: Uint8Array): Promise<void> {
    try {
      await mkdir(dirname(path), { recursive: true });
      const file = await open(path, 'a', 0o644);
      try {
        await file.write(bytes);
      } finally {
        await file.close();
      }
      this.#failed = false;
    } catch (error) {
      // Said once per run of failures: a full disk must not flood the log.
      if (!this.#failed) this.#log.warn({ path, error: String(error) }, 'MRT recording cannot be written');
      this.#failed = true;
    }
  }
}
