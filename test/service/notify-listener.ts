/**
 * The test's service manager: notify-listener.py on a unix datagram socket, its datagrams
 * collected as they come. Closed by closing its stdin (it removes its socket file).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const SCRIPT = new URL('./notify-listener.py', import.meta.url).pathname;
const READY_MS = 10_000;

export interface Datagram {
  /** Seconds, the listener's monotonic clock. */
  readonly at: number;
  readonly message: string;
}

export class NotifyListener {
  readonly received: Datagram[] = [];
  readonly #child: ChildProcess;

  private constructor(child: ChildProcess) {
    this.#child = child;
  }

  /** Listens on `target` (a path, or @name); resolves once the socket is bound. */
  static async start(target: string): Promise<NotifyListener> {
    const child = spawn('python3', [SCRIPT, target], { stdio: ['pipe', 'pipe', 'inherit'] });
    const listener = new NotifyListener(child);
    const lines = createInterface({ input: child.stdout! });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('notify-listener.py did not bind in time')), READY_MS);
      child.once('exit', (code) => reject(new Error(`notify-listener.py exited with ${code}`)));
      lines.on('line', (line) => {
        if (line === 'ready') {
          clearTimeout(timer);
          resolve();
        } else listener.received.push(JSON.parse(line) as Datagram);
      });
    });
    return listener;
  }

  /** The messages so far, as text. */
  get messages(): string[] {
    return this.received.map((d) => d.message);
  }

  async close(): Promise<void> {
    if (this.#child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.#child.once('exit', resolve));
    this.#child.stdin!.end();
    await exited;
  }
}
