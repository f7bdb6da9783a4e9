import { execFile } from 'node:child_process';
import { COMMAND_TIMEOUT, MAX_OUTPUT_BYTES } from './constants.js';
import { LabError } from './errors.js';

export interface RunOptions {
  /** Killed (SIGKILL) after this long; default COMMAND_TIMEOUT. */
  readonly timeoutMs?: number;
  /** Written to the command's stdin. */
  readonly input?: string;
}

export interface RunResult {
  readonly stdout: string;
  readonly stderr: string;
  /** Exit code; null when the command was killed. */
  readonly code: number | null;
}

/** Runs a command to completion, bounded in time, and reports its exit code instead of throwing. */
export function runResult(argv: readonly string[], opts: RunOptions = {}): Promise<RunResult> {
  const [file, ...args] = argv;
  if (file === undefined) return Promise.reject(new LabError('command-failed', 'empty command'));
  const timeoutMs = opts.timeoutMs ?? COMMAND_TIMEOUT;
  return new Promise((resolve, reject) => {
    const child = execFile(
      file,
      args,
      { timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: MAX_OUTPUT_BYTES, encoding: 'utf8' },
      (err, stdout, stderr) => {
        if (err === null) return resolve({ stdout, stderr, code: 0 });
        const e = err as NodeJS.ErrnoException & { killed?: boolean; code?: unknown };
        if (e.killed) {
          return reject(
            new LabError('command-timeout', `${argv.join(' ')}: no answer within ${timeoutMs} ms`),
          );
        }
        if (typeof e.code === 'number') return resolve({ stdout, stderr, code: e.code });
        reject(new LabError('command-failed', `${argv.join(' ')}: ${e.message}`));
      },
    );
    child.stdin?.on('error', () => {
      // The command may exit before reading its input; its exit status tells the story.
    });
    child.stdin?.end(opts.input ?? '');
  });
}

/** Runs a command and returns its stdout; a non-zero exit throws with the command's stderr. */
export async function run(argv: readonly string[], opts: RunOptions = {}): Promise<string> {
  const r = await runResult(argv, opts);
  if (r.code !== 0) {
    const why = (r.stderr.trim() || r.stdout.trim()).slice(0, 2000);
    throw new LabError('command-failed', `${argv.join(' ')} exited ${r.code}: ${why}`);
  }
  return r.stdout;
}
