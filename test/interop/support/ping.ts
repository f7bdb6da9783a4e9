import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Lab } from '../../../frr-interop/lab/index.js';
import { eventually } from '../../speaker/lab-speaker.js';

/** Pings every 50 ms; at most this many, so a ping that is never stopped still ends. */
const PING_MAX = 2400;
const STOP_WAIT_MS = 5000;

export interface PingResult {
  /** Replies seen, by sequence number. */
  readonly received: number;
  /** Sequence numbers up to the last reply that never got one: packets lost on the way. */
  readonly lost: readonly number[];
}

/** A continuous ping (iputils, 20 per second) in a namespace, stopped by SIGINT to its PID. */
export class Ping {
  static #count = 0;
  readonly #log: string;
  readonly #pid: number;
  readonly #exited: Promise<void>;

  /** `name` prefixes the process's name and log file in the lab. */
  constructor(lab: Lab, name: string, ns: string, target: string, source?: string) {
    const id = `${name}${++Ping.#count}`;
    this.#log = join(lab.dir, `${id}.log`);
    const p = lab.spawn(
      ns,
      [
        'ping',
        '-n',
        '-i',
        '0.05',
        '-W',
        '1',
        '-c',
        String(PING_MAX),
        ...(source ? ['-I', source] : []),
        target,
      ],
      { name: id, logFile: this.#log },
    );
    this.#pid = p.record.pid;
    this.#exited = new Promise((resolve) => {
      if (p.child.exitCode !== null) resolve();
      else p.child.once('exit', () => resolve());
    });
  }

  /** A ping that already gets answers (waits at most `timeoutMs` for the first). */
  static async answered(
    lab: Lab,
    name: string,
    ns: string,
    target: string,
    source: string | undefined,
    timeoutMs: number,
  ): Promise<Ping> {
    const ping = new Ping(lab, name, ns, target, source);
    await eventually(
      () => (ping.replies().length > 0 ? true : undefined),
      `ping ${target} answered`,
      timeoutMs,
    );
    return ping;
  }

  /** Received sequence numbers so far. */
  replies(): number[] {
    return [...readFileSync(this.#log, 'utf8').matchAll(/icmp_seq=(\d+)/g)].map((m) => Number(m[1]));
  }

  /** Stops it; packets after the last reply (in flight at the stop) do not count as lost. */
  async stop(): Promise<PingResult> {
    try {
      process.kill(this.#pid, 'SIGINT');
    } catch {
      // Already done (PING_MAX reached).
    }
    await Promise.race([this.#exited, new Promise((r) => setTimeout(r, STOP_WAIT_MS))]);
    const seen = new Set(this.replies());
    const last = Math.max(0, ...seen);
    const lost: number[] = [];
    for (let seq = 1; seq <= last; seq++) if (!seen.has(seq)) lost.push(seq);
    return { received: seen.size, lost };
  }
}
