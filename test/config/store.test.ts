import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, ConfigStore, reloadOnSighup, type SignalSource } from '../../src/config/index.js';
import { SPEAKER } from './support.js';

const CHILD = fileURLToPath(new URL('./fixtures/reload-child.ts', import.meta.url));
/** How long one child event may take to arrive; a bound, not an expectation of speed. */
const EVENT_TIMEOUT_MS = 20_000;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'obs-config-store-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const peer = (name: string, ip: string) => `  - { name: ${name}, peer_ip: ${ip}, remote_as: 65000 }\n`;
const withPeers = (...names: string[]) =>
  `${SPEAKER}peers:\n${names.map((n, i) => peer(n, `198.18.1.${i + 2}`)).join('')}`;

describe('ConfigStore', () => {
  let file: string;
  afterEach(() => {
    rmSync(file, { force: true });
  });

  function open(text: string, options = {}): ConfigStore {
    file = join(dir, 'speaker.yaml');
    writeFileSync(file, text);
    return ConfigStore.open(file, options);
  }

  it('opening a bad file throws the ConfigError', () => {
    expect(() => open(`${SPEAKER}  hold_time: 1\n`)).toThrow(ConfigError);
  });

  it('a good reload swaps the configuration and returns the plan', () => {
    const store = open(withPeers('a'));
    writeFileSync(file, withPeers('a', 'b'));
    const outcome = store.reload();
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.plan.peers.added.map((p) => p.name)).toEqual(['b']);
    expect(outcome.summary).toEqual(['peer b added (198.18.1.3, AS 65000)']);
    expect(store.config.peers.map((p) => p.name)).toEqual(['a', 'b']);
  });

  it('a bad reload keeps the running configuration, untouched', () => {
    const store = open(withPeers('a'));
    const running = store.config;
    writeFileSync(file, `${withPeers('a', 'b')}    remote_as: x\n`);
    const outcome = store.reload();
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error.kind).toBe('syntax');
    writeFileSync(file, withPeers('a').replace('65000 }', '"abc" }'));
    const invalid = store.reload();
    expect(invalid.ok ? undefined : invalid.error.kind).toBe('invalid');
    unlinkSync(file);
    const gone = store.reload();
    expect(gone.ok ? undefined : gone.error.kind).toBe('unreadable');
    expect(store.config).toBe(running);
  });

  it('a reload that changes router_id is refused unless restarts are allowed', () => {
    const store = open(withPeers('a'));
    writeFileSync(file, withPeers('a').replace('198.18.0.1', '198.18.0.9'));
    const refused = store.reload();
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.error.kind).toBe('restart-required');
    expect(refused.error.problems.map((p) => `${p.path}: ${p.message}`)).toEqual([
      'speaker.router_id: changed from "198.18.0.1" to "198.18.0.9"; this takes a restart, so the running speaker keeps "198.18.0.1"',
    ]);
    expect(store.config.speaker.routerId).toBe('198.18.0.1');

    const lenient = ConfigStore.open(file, { allowRestart: true });
    writeFileSync(file, withPeers('a'));
    const accepted = lenient.reload();
    expect(accepted.ok && accepted.plan.restartRequired).toBe(true);
    expect(lenient.config.speaker.routerId).toBe('198.18.0.1');
  });

  it('reloadOnSighup reloads on each signal until stopped', () => {
    const store = open(withPeers('a'));
    const listeners = new Set<() => void>();
    const source: SignalSource = {
      on: (_signal, l) => listeners.add(l),
      off: (_signal, l) => listeners.delete(l),
    };
    const outcomes: boolean[] = [];
    const stop = reloadOnSighup(store, (o) => outcomes.push(o.ok), source);
    writeFileSync(file, withPeers('a', 'b'));
    for (const l of listeners) l();
    stop();
    expect(listeners.size).toBe(0);
    expect(outcomes).toEqual([true]);
  });
});

/** A child process running the reload loop; lines of JSON it prints, read one at a time. */
class Child {
  readonly proc: ChildProcess;
  readonly #lines: string[] = [];
  readonly #waiters: ((line: string) => void)[] = [];

  constructor(args: string[]) {
    this.proc = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    createInterface({ input: this.proc.stdout! }).on('line', (line) => {
      const waiter = this.#waiters.shift();
      if (waiter) waiter(line);
      else this.#lines.push(line);
    });
  }

  next(): Promise<string> {
    const ready = this.#lines.shift();
    if (ready !== undefined) return Promise.resolve(ready);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no line from the child in time')), EVENT_TIMEOUT_MS);
      this.#waiters.push((line) => {
        clearTimeout(timer);
        resolve(line);
      });
    });
  }

  exit(): Promise<number | null> {
    if (this.proc.exitCode !== null) return Promise.resolve(this.proc.exitCode);
    return new Promise((resolve) => this.proc.once('exit', (code) => resolve(code)));
  }

  stop(): void {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill('SIGTERM');
  }
}

describe('a running process and SIGHUP', () => {
  const children: Child[] = [];
  afterAll(() => {
    for (const c of children) c.stop();
  });

  it('adds a peer on SIGHUP, and keeps the old configuration when the new file is bad', async () => {
    const file = join(dir, 'running.yaml');
    writeFileSync(file, withPeers('a', 'b'));
    const child = new Child([file]);
    children.push(child);
    expect(JSON.parse(await child.next())).toEqual({ event: 'ready', peers: ['a', 'b'] });

    writeFileSync(file, withPeers('a', 'b', 'c'));
    child.proc.kill('SIGHUP');
    expect(JSON.parse(await child.next())).toEqual({
      event: 'reloaded',
      summary: ['peer c added (198.18.1.4, AS 65000)'],
      peers: ['a', 'b', 'c'],
    });

    writeFileSync(file, `${withPeers('a')}  - { name: b, peer_ip: 198.18.1.3, remote_as: 0 }\n`);
    child.proc.kill('SIGHUP');
    const refused = JSON.parse(await child.next());
    expect(refused).toEqual({
      event: 'refused',
      kind: 'invalid',
      message: `${file}: 1 problem\n${file}:7:37 peers[1].remote_as: expected an AS number 1..4294967295, external or internal, got 0`,
      peers: ['a', 'b', 'c'],
    });
    child.stop();
    await child.exit();
  });

  it('checking a bad file exits non-zero with one line per problem', async () => {
    const file = join(dir, 'check.yaml');
    writeFileSync(file, `${SPEAKER}peers:\n  - { name: a, peer_ip: 198.18.1.2/32 }\n`);
    const child = new Child([file, 'check']);
    children.push(child);
    const lines = [await child.next(), await child.next(), await child.next()];
    expect(await child.exit()).toBe(1);
    expect(lines).toEqual([
      `${file}: 2 problems`,
      `${file}:6:5 peers[0].remote_as: required key is missing`,
      `${file}:6:16 peers[0].peer_ip: expected an IP address, got "198.18.1.2/32" (a prefix, not an address)`,
    ]);
  });
});
