/**
 * The child side of the benchmark's programs (replayer, counter, our speaker): the config is
 * the first argument (JSON), events go out as JSON lines on stdout, commands come in as JSON
 * lines on stdin, and the program ends when stdin closes, so a runner that dies never leaves
 * one behind.
 */
import { createInterface } from 'node:readline';

export type ChildEvent = { readonly ev: string } & Record<string, unknown>;
export type ChildCommand = { readonly id: number; readonly cmd: string } & Record<string, unknown>;

export function emit(event: ChildEvent): void {
  process.stdout.write(`${JSON.stringify(event)}\n`);
}

export function configArgument<T>(): T {
  const text = process.argv[2];
  if (text === undefined) throw new Error('usage: <program> <config JSON>');
  return JSON.parse(text) as T;
}

/** Calls `onCommand` per stdin line and `onEnd` once stdin closes. */
export function serveCommands(
  onCommand: (c: ChildCommand) => void | Promise<void>,
  onEnd: () => void | Promise<void>,
): void {
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    if (line.trim() === '') return;
    let c: ChildCommand;
    try {
      c = JSON.parse(line) as ChildCommand;
    } catch {
      emit({ ev: 'error', message: `not JSON: ${line.slice(0, 80)}` });
      return;
    }
    Promise.resolve(onCommand(c)).catch((e) =>
      emit({ ev: 'error', id: c.id, message: e instanceof Error ? e.message : String(e) }),
    );
  });
  lines.on('close', () => {
    Promise.resolve(onEnd()).finally(() => process.exit(0));
  });
}

/** Reports an uncaught failure as an event before exiting, so the runner can say what happened. */
export function reportFatal(): void {
  const fatal = (e: unknown) => {
    emit({ ev: 'fatal', message: e instanceof Error ? (e.stack ?? e.message) : String(e) });
    process.exit(1);
  };
  process.on('uncaughtException', fatal);
  process.on('unhandledRejection', fatal);
}
