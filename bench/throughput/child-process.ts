/**
 * The runner's side of a child program (child-io.ts): started inside a lab namespace, its
 * events kept in order with the time they arrived, commands answered by id, every wait
 * bounded, and stopped by closing its stdin (then SIGKILL by PID if it lingers).
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChildEvent } from './child-io.js';
import { wallClock } from './clock.js';
import { CHILD_EXIT_WAIT } from './constants.js';

const HERE = dirname(fileURLToPath(import.meta.url));
/** Run from sources (tsx) or from the build (dist/): children are started the same way. */
const EXT = extname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, EXT === '.ts' ? '../..' : '../../..');
const STDERR_KEPT = 8000;
const WAIT_SLICE = 250;

export type Match = (e: ChildEvent) => boolean;
export type ChildName = 'replayer' | 'counter' | 'speaker';

export class ChildProgram {
  readonly name: string;
  readonly events: ChildEvent[] = [];
  readonly #child: ChildProcessWithoutNullStreams;
  #stderr = '';
  #nextId = 1;
  readonly #wake = new Set<() => void>();

  /** `nodeOptions`: extra node flags, e.g. --cpu-prof to profile the program. */
  constructor(
    ns: string,
    program: ChildName,
    config: unknown,
    label: string = program,
    nodeOptions: readonly string[] = [],
  ) {
    this.name = label;
    const file = join(HERE, `${program}${EXT}`);
    const loader = EXT === '.ts' ? ['--import', 'tsx'] : [];
    this.#child = spawn(
      'ip',
      ['netns', 'exec', ns, process.execPath, ...nodeOptions, ...loader, file, JSON.stringify(config)],
      { cwd: REPO },
    );
    let partial = '';
    this.#child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        if (line.trim() === '') continue;
        try {
          this.events.push({ ...(JSON.parse(line) as ChildEvent), arrived: wallClock() });
        } catch {
          this.events.push({ ev: 'garbage', line, arrived: wallClock() });
        }
      }
      this.#notify();
    });
    this.#child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      this.#stderr = (this.#stderr + chunk).slice(-STDERR_KEPT);
    });
    this.#child.on('error', (e) => {
      this.events.push({ ev: 'fatal', message: e.message, arrived: wallClock() });
      this.#notify();
    });
    this.#child.on('exit', () => this.#notify());
  }

  /** `ip netns exec` execs the program, so this is the program's own PID. */
  get pid(): number {
    if (this.#child.pid === undefined) throw new Error(`${this.name} did not start`);
    return this.#child.pid;
  }

  get exited(): boolean {
    return this.#child.exitCode !== null || this.#child.signalCode !== null;
  }

  #notify(): void {
    for (const w of this.#wake) w();
  }

  find(match: Match, since = 0): ChildEvent | undefined {
    for (let i = since; i < this.events.length; i++) if (match(this.events[i]!)) return this.events[i];
    return undefined;
  }

  /** The first event from `since` on that matches, waiting at most `timeoutMs`. */
  async waitFor(match: Match, what: string, timeoutMs: number, since = 0): Promise<ChildEvent> {
    const deadline = wallClock() + timeoutMs;
    for (;;) {
      const hit = this.find(match, since);
      if (hit) return hit;
      const fatal = this.find((e) => e.ev === 'fatal');
      if (fatal || this.exited) {
        throw new Error(`${this.name} ended while waiting for ${what}: ${this.diagnostics()}`);
      }
      const left = deadline - wallClock();
      if (left <= 0)
        throw new Error(`${this.name}: no ${what} within ${timeoutMs} ms; ${this.diagnostics()}`);
      await new Promise<void>((r) => {
        const done = () => {
          clearTimeout(t);
          this.#wake.delete(done);
          r();
        };
        const t = setTimeout(done, Math.min(left, WAIT_SLICE));
        this.#wake.add(done);
      });
    }
  }

  /** Sends a command and waits (bounded) for the event answering it. */
  async request(cmd: string, timeoutMs: number): Promise<ChildEvent> {
    const id = this.#nextId++;
    const since = this.events.length;
    this.#child.stdin.write(`${JSON.stringify({ id, cmd })}\n`);
    return this.waitFor((e) => e.id === id, `an answer to ${cmd}`, timeoutMs, since);
  }

  /** Closes stdin (the program closes its sessions and exits), SIGKILL after a bound. */
  async stop(): Promise<void> {
    if (this.exited) return;
    const exited = new Promise<void>((done) => this.#child.once('exit', () => done()));
    this.#child.stdin.end();
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), CHILD_EXIT_WAIT);
    await exited;
    clearTimeout(timer);
  }

  diagnostics(): string {
    const last = this.events
      .slice(-8)
      .map((e) => JSON.stringify(e))
      .join('\n');
    return `\n--- ${this.name}: last events ---\n${last}\n--- stderr ---\n${this.#stderr.trim()}`;
  }
}
