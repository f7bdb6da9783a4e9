import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import type { Lab, ProcessRecord } from '../../frr-interop/lab/index.js';
import type { NeighborSummary, RibEntryView, SummaryView } from '../../src/api/index.js';
import { runControlCommand } from '../../src/cli/show.js';

// Our speaker as a process in a lab's speaker namespace (`ip netns exec NS node --import tsx
// src/cli/main.ts run --config FILE`), driven as an operator would: the file and SIGHUP, and
// the `show` commands' JSON output over the control socket.

const REPO = resolve(import.meta.dirname, '../..');
const MAIN = join(REPO, 'src/cli/main.ts');
const START_MS = 30_000;
const POLL_MS = 250;
const RELOAD_MS = 15_000;

export type LogLine = Record<string, unknown> & { level: number; msg: string };

/** Polls `probe` until it returns something other than undefined; bounded, names `what` on timeout. */
export async function eventually<T>(
  probe: () => Promise<T | undefined> | T | undefined,
  what: string,
  timeoutMs = 30_000,
  intervalMs = POLL_MS,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (e) {
      last = ` (last error: ${(e as Error).message})`;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** The pino JSON lines of a log, other lines skipped. */
export function parseLogLines(lines: readonly string[]): LogLine[] {
  return lines.flatMap((l) => {
    try {
      return [JSON.parse(l) as LogLine];
    } catch {
      return [];
    }
  });
}

export class LabSpeaker {
  readonly lab: Lab;
  readonly configFile: string;
  readonly socket: string;
  readonly logFile: string;
  readonly #record: ProcessRecord;

  private constructor(lab: Lab, configFile: string, socket: string, logFile: string, record: ProcessRecord) {
    this.lab = lab;
    this.configFile = configFile;
    this.socket = socket;
    this.logFile = logFile;
    this.#record = record;
  }

  /**
   * Writes the configuration (its `speaker.control_socket` is set here, in the lab directory
   * or `opts.dir`) and starts the speaker, through `opts.wrap` when given (a command that runs
   * the rest of its arguments, e.g. setpriv); resolves once its control socket answers.
   */
  static async start(
    lab: Lab,
    doc: Record<string, unknown>,
    opts: { readonly dir?: string; readonly wrap?: readonly string[] } = {},
  ): Promise<LabSpeaker> {
    const dir = opts.dir ?? lab.dir;
    const socket = join(dir, 'speaker-control.sock');
    const configFile = join(dir, 'speaker.yaml');
    const logFile = join(dir, 'speaker.log');
    writeFileSync(configFile, stringify(withSocket(doc, socket)));
    const p = lab.spawn(
      lab.speakerNs,
      [...(opts.wrap ?? []), process.execPath, '--import', 'tsx', MAIN, 'run', '--config', configFile],
      {
        name: 'speaker',
        logFile,
      },
    );
    const s = new LabSpeaker(lab, configFile, socket, logFile, p.record);
    await eventually(
      async () => {
        if (p.child.exitCode !== null) throw new Error(`the speaker exited: ${s.logTail()}`);
        return (await s.summary()) ?? undefined;
      },
      'the speaker’s control socket',
      START_MS,
    );
    return s;
  }

  /** The speaker process (`ip netns exec` runs it in place). */
  get pid(): number {
    return this.#record.pid;
  }

  /** Rewrites the file and sends SIGHUP; resolves once the speaker logged the outcome. */
  async reload(doc: Record<string, unknown>): Promise<LogLine> {
    const seen = this.logLines().length;
    writeFileSync(this.configFile, stringify(withSocket(doc, this.socket)));
    process.kill(this.#record.pid, 'SIGHUP');
    return eventually(
      () =>
        this.logLines()
          .slice(seen)
          .find((l) => /^configuration (reloaded|not reloaded)/.test(l.msg)),
      'the reload in the speaker’s log',
      RELOAD_MS,
    );
  }

  /** `ovn-bgp-speaker show ARGS --json=native` (the control API's own shape), parsed; undefined when the command fails. */
  async show<T>(args: readonly string[]): Promise<T | undefined> {
    let out = '';
    const status = await runControlCommand('show', [...args, '--json=native', '--socket', this.socket], {
      out: (t) => {
        out += t;
      },
      err: () => {},
      env: {},
    });
    if (status !== 0) return undefined;
    return JSON.parse(out) as T;
  }

  /** `ovn-bgp-speaker neighbor PEER VERB` (reset, shutdown, enable, refresh); throws when it fails. */
  async neighborAction(peer: string, verb: 'reset' | 'shutdown' | 'enable' | 'refresh'): Promise<void> {
    let err = '';
    const status = await runControlCommand('neighbor', [peer, verb, '--socket', this.socket], {
      out: () => {},
      err: (t) => {
        err += t;
      },
      env: {},
    });
    if (status !== 0) throw new Error(`neighbor ${peer} ${verb}: ${err.trim()}`);
  }

  summary(): Promise<SummaryView | undefined> {
    return this.show<SummaryView>(['summary']);
  }

  async neighbor(name: string): Promise<NeighborSummary | undefined> {
    return (await this.summary())?.neighbors.find((n) => n.name === name);
  }

  /** `show rib [PREFIX] --json=native`; [] when the prefix is not in the table. */
  async rib(prefix?: string, afi?: 4 | 6): Promise<RibEntryView[]> {
    const args = ['rib', ...(prefix ? [prefix] : []), ...(afi ? ['--afi', String(afi)] : [])];
    return (await this.show<RibEntryView[]>(args)) ?? [];
  }

  /** Every neighbor in `names` is Established. */
  async waitEstablished(names: readonly string[], timeoutMs = 45_000): Promise<void> {
    await eventually(
      async () => {
        const s = await this.summary();
        const up = new Set(s?.neighbors.filter((n) => n.state === 'Established').map((n) => n.name));
        return names.every((n) => up.has(n)) ? true : undefined;
      },
      `${names.join(', ')} Established`,
      timeoutMs,
    );
  }

  /** The speaker's log, as pino wrote it (lines that are not JSON, e.g. from node, are skipped). */
  logLines(): LogLine[] {
    if (!existsSync(this.logFile)) return [];
    return parseLogLines(readFileSync(this.logFile, 'utf8').split('\n'));
  }

  logTail(lines = 30): string {
    return existsSync(this.logFile)
      ? readFileSync(this.logFile, 'utf8').split('\n').slice(-lines).join('\n')
      : '';
  }

  /** SIGTERM, as an operator stops it; resolves once it is gone (the lab kills it past its bound). */
  async stop(): Promise<void> {
    await this.lab.stopProcess(this.#record);
  }
}

function withSocket(doc: Record<string, unknown>, socket: string): Record<string, unknown> {
  return { ...doc, speaker: { ...(doc.speaker as object), control_socket: socket } };
}
