/** Fakes for the OVSDB shells: a manual clock and an in-memory byte channel. No test sleeps. */
import { EventEmitter } from 'node:events';
import type { Clock } from '../../src/components/index.js';
import { JsonFramer } from '../../src/ovsdb/framer.js';
import type { Channel } from '../../src/ovsdb/index.js';

interface Timer {
  at: number;
  seq: number;
  fn: () => void;
}

export class FakeClock implements Clock {
  #now = 1_000_000;
  #seq = 0;
  #timers = new Set<Timer>();

  now(): number {
    return this.#now;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    const t = { at: this.#now + Math.max(0, ms), seq: this.#seq++, fn };
    this.#timers.add(t);
    return t;
  }
  clearTimeout(handle: unknown): void {
    this.#timers.delete(handle as Timer);
  }
  get pending(): number {
    return this.#timers.size;
  }
  /** Moves time forward, firing due timers in order (and flushing promises between them). */
  async advance(ms: number): Promise<void> {
    const end = this.#now + ms;
    for (;;) {
      await flush();
      const due = [...this.#timers]
        .filter((t) => t.at <= end)
        .sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.#timers.delete(due);
      this.#now = due.at;
      due.fn();
    }
    this.#now = end;
    await flush();
  }
}

/** Lets pending promise callbacks and immediates run. */
export async function flush(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setImmediate(r));
}

/** One end of an in-memory connection; `serverSend` plays the peer. */
export class FakeChannel extends EventEmitter implements Channel {
  readonly written: unknown[] = [];
  destroyed = false;
  readonly #framer = new JsonFramer(1 << 24);
  onWrite: (message: Record<string, unknown>) => void = () => {};

  write(data: string): boolean {
    if (this.destroyed) return false;
    for (const m of this.#framer.push(Buffer.from(data))) {
      this.written.push(m);
      this.onWrite(m as Record<string, unknown>);
    }
    return true;
  }
  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    queueMicrotask(() => this.emit('close'));
  }
  serverSend(data: string | object): void {
    this.emit('data', Buffer.from(typeof data === 'string' ? data : JSON.stringify(data)));
  }
  /** The peer goes away. */
  hangUp(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.emit('close');
  }
  last(): Record<string, unknown> {
    return this.written[this.written.length - 1] as Record<string, unknown>;
  }
}

export const quietLogger = () => {
  const lines: { level: string; obj: unknown; msg?: string }[] = [];
  const at =
    (level: string) =>
    (obj: object | string, msg?: string): void => {
      lines.push({ level, obj, msg });
    };
  return { lines, logger: { info: at('info'), warn: at('warn'), error: at('error'), debug: at('debug') } };
};
