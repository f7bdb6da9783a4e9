import { type ChildProcessWithoutNullStreams, execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { AgentCommand, AgentConfig } from './speaker-agent.js';

// The test side of speaker-agent.ts: starts it in a namespace, keeps every event it reports,
// and waits (always bounded) for the ones a test expects.

const REPO = resolve(import.meta.dirname, '../../..');
const AGENT = join(REPO, 'test/interop/support/speaker-agent.ts');
const READY_MS = 30_000;
const COMMAND_MS = 15_000;
const EXIT_MS = 5_000;

export type AgentEvent = { readonly ev: string; readonly [field: string]: unknown };
export type Match = (e: AgentEvent) => boolean;

export class SpeakerAgent {
  readonly events: AgentEvent[] = [];
  readonly config: AgentConfig;
  readonly #child: ChildProcessWithoutNullStreams;
  #stderr = '';
  #nextId = 1;
  #wake = new Set<() => void>();

  private constructor(ns: string, config: AgentConfig) {
    this.config = config;
    this.#child = spawn(
      'ip',
      ['netns', 'exec', ns, process.execPath, '--import', 'tsx', AGENT, JSON.stringify(config)],
      { cwd: REPO },
    );
    let partial = '';
    this.#child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) if (line.trim()) this.events.push(JSON.parse(line) as AgentEvent);
      for (const w of this.#wake) w();
    });
    this.#child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      this.#stderr = (this.#stderr + chunk).slice(-8000);
    });
    this.#child.on('exit', () => {
      for (const w of this.#wake) w();
    });
  }

  /** Starts the agent in `ns` and waits until its listener is up. */
  static async start(ns: string, config: AgentConfig): Promise<SpeakerAgent> {
    const agent = new SpeakerAgent(ns, config);
    await agent.waitFor((e) => e.ev === 'ready', 'the speaker agent to start', READY_MS);
    return agent;
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** Index of the next event: pass it as `since` to look only at what happens from now on. */
  mark(): number {
    return this.events.length;
  }

  find(match: Match, since = 0): AgentEvent | undefined {
    for (let i = since; i < this.events.length; i++) if (match(this.events[i]!)) return this.events[i];
    return undefined;
  }

  filter(match: Match, since = 0): AgentEvent[] {
    return this.events.slice(since).filter(match);
  }

  /** The first event from `since` on that matches, waiting at most `timeoutMs`. */
  async waitFor(match: Match, what: string, timeoutMs: number, since = 0): Promise<AgentEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = this.find(match, since);
      if (hit) return hit;
      if (this.events.some((e) => e.ev === 'fatal') || this.#child.exitCode !== null) {
        throw new Error(`speaker agent ended while waiting for ${what}: ${this.diagnostics()}`);
      }
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; ${this.diagnostics()}`);
      await new Promise<void>((r) => {
        const done = () => {
          clearTimeout(t);
          this.#wake.delete(done);
          r();
        };
        const t = setTimeout(done, Math.min(left, 250));
        this.#wake.add(done);
      });
    }
  }

  /** Sends a command and waits for its answer; throws on an error answer. */
  async command(c: AgentCommand, timeoutMs = COMMAND_MS): Promise<AgentEvent> {
    const id = this.#nextId++;
    this.#child.stdin.write(`${JSON.stringify({ ...c, id })}\n`);
    const answer = await this.waitFor(
      (e) => (e.ev === 'ok' || e.ev === 'error') && e.id === id,
      `the answer to ${c.cmd}`,
      timeoutMs,
    );
    if (answer.ev === 'error') throw new Error(`${c.cmd} failed: ${String(answer.message)}`);
    return answer;
  }

  /** Writes a command without waiting (e.g. while the agent is frozen). */
  send(c: AgentCommand): void {
    this.#child.stdin.write(`${JSON.stringify({ ...c, id: this.#nextId++ })}\n`);
  }

  /** SIGSTOP / SIGCONT: the whole speaker stands still (its kernel still completes handshakes). */
  freeze(): void {
    if (this.#child.pid) process.kill(this.#child.pid, 'SIGSTOP');
  }

  thaw(): void {
    if (this.#child.pid) process.kill(this.#child.pid, 'SIGCONT');
  }

  /** Ends stdin (the agent closes its sessions and exits), then SIGKILL if it lingers. */
  async stop(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    this.thaw();
    const exited = new Promise<void>((done) => this.#child.once('exit', () => done()));
    this.#child.stdin.end();
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), EXIT_MS);
    await exited;
    clearTimeout(timer);
  }

  /** The agent's stderr and the end of its session log, for failure messages. */
  diagnostics(): string {
    const log =
      this.config.logFile && existsSync(this.config.logFile) ? readFileSync(this.config.logFile, 'utf8') : '';
    const tail = log.trimEnd().split('\n').slice(-25).join('\n');
    const last = this.events
      .slice(-15)
      .map((e) => JSON.stringify(e))
      .join('\n');
    return `\n--- last events ---\n${last}\n--- stderr ---\n${this.#stderr}\n--- session log ---\n${tail}`;
  }
}

/** BGP connections (port 179) the speaker namespace has in state ESTABLISHED with `peer`. */
export function bgpConnections(ns: string, peer: string): { local: string; remote: string }[] {
  const out = execFileSync('ip', ['netns', 'exec', ns, 'ss', '-Htn', 'state', 'established'], {
    encoding: 'utf8',
    timeout: COMMAND_MS,
  });
  const conns: { local: string; remote: string }[] = [];
  for (const line of out.split('\n')) {
    const f = line.trim().split(/\s+/);
    const [local, remote] = [f[2], f[3]];
    if (!local || !remote) continue;
    const host = remote
      .slice(0, remote.lastIndexOf(':'))
      .replace(/^\[|\]$/g, '')
      .replace(/^::ffff:/, '');
    const ports = [local, remote].map((x) => x.slice(x.lastIndexOf(':') + 1));
    if (host === peer && ports.includes('179')) conns.push({ local, remote });
  }
  return conns;
}

/** Absolute TCP counters of one namespace (nstat -s: no shared history file). */
export function tcpCounters(ns: string): Record<string, number> {
  const out = execFileSync('ip', ['netns', 'exec', ns, 'nstat', '-asz'], {
    encoding: 'utf8',
    timeout: COMMAND_MS,
  });
  const counters: Record<string, number> = {};
  for (const line of out.split('\n')) {
    const [name, value] = line.trim().split(/\s+/);
    if (name && value !== undefined) counters[name] = Number(value);
  }
  return counters;
}

/**
 * For each ESTABLISHED connection between the namespace and `peer`: whether the kernel holds an
 * RFC 2385 key on it (`ss -e` prints `md5keys:` then), i.e. whether its segments are signed.
 */
export function md5Keyed(ns: string, peer: string): boolean[] {
  // ss filters take IPv6 addresses in brackets.
  const dst = peer.includes(':') ? `[${peer}]` : peer;
  const out = execFileSync('ip', ['netns', 'exec', ns, 'ss', '-Htnie', 'state', 'established', 'dst', dst], {
    encoding: 'utf8',
    timeout: COMMAND_MS,
  });
  // One socket per line that does not start with whitespace; its details follow indented.
  const sockets = out.split(/\n(?=\S)/).filter((s) => s.trim() !== '');
  return sockets.map((s) => /\bmd5keys:/.test(s));
}
