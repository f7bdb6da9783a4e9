/**
 * A bench child (a script beside this file, in the same form: sources or build) run in a lab
 * namespace through `ip netns exec`: config as its argument, JSON events read from its stdout,
 * commands written to its stdin. Closing stdin ends it; SIGKILL by PID if it lingers.
 */
import { type ChildProcess, type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChildEvent } from '../throughput/child-io.js';
import { sleep, wallClock } from '../throughput/clock.js';

const SELF = fileURLToPath(import.meta.url);
const EXT = extname(SELF);
const HERE = dirname(SELF);
const STOP_WAIT = 5_000;
const LOG_TAIL = 2000;

export class LabChild {
  readonly events: ChildEvent[] = [];
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #name: string;
  #stderr = '';
  #nextId = 1;

  /** Starts `name` (bgp-feeder, route-counter, ...) in namespace `ns` with `config`. */
  constructor(name: string, ns: string, config: unknown, cwd: string) {
    this.#name = name;
    const loader = EXT === '.ts' ? ['--import', 'tsx'] : [];
    const file = join(HERE, `${name}${EXT}`);
    this.#child = spawn(
      'ip',
      ['netns', 'exec', ns, process.execPath, ...loader, file, JSON.stringify(config)],
      {
        cwd,
      },
    );
    let partial = '';
    this.#child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) if (line.trim()) this.events.push(JSON.parse(line) as ChildEvent);
    });
    this.#child.stderr.setEncoding('utf8').on('data', (s: string) => {
      this.#stderr = (this.#stderr + s).slice(-LOG_TAIL);
    });
  }

  /** Bounded wait for an event; a fatal event, a closed session or an exit ends it early. */
  async waitFor(match: (e: ChildEvent) => boolean, what: string, timeoutMs: number): Promise<ChildEvent> {
    const deadline = wallClock() + timeoutMs;
    for (;;) {
      const e = this.events.find(match);
      if (e) return e;
      const bad = this.events.find((x) => x.ev === 'fatal' || x.ev === 'closed' || x.ev === 'error');
      if (bad) throw new Error(`${this.#name}: ${what}: ${JSON.stringify(bad)}\n${this.#stderr}`);
      if (this.#child.exitCode !== null || wallClock() > deadline)
        throw new Error(`${this.#name}: no ${what} within ${timeoutMs} ms\n${this.#stderr}`);
      await sleep(20);
    }
  }

  command(cmd: string, extra: Record<string, unknown> = {}): number {
    const id = this.#nextId++;
    this.#child.stdin.write(`${JSON.stringify({ id, cmd, ...extra })}\n`);
    return id;
  }

  /** Sends a command and waits for its answer (the event `ev` with the same id). */
  async ask(
    cmd: string,
    ev: string,
    timeoutMs: number,
    extra: Record<string, unknown> = {},
  ): Promise<ChildEvent> {
    const id = this.command(cmd, extra);
    return this.waitFor((x) => x.ev === ev && x.id === id, `${ev} for ${cmd}`, timeoutMs);
  }

  async stop(): Promise<void> {
    await stopChild(this.#child, () => this.#child.stdin.end());
  }
}

export async function stopChild(child: ChildProcess, ask: () => void): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  ask();
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_WAIT);
  await exited;
  clearTimeout(timer);
}
