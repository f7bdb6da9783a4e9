/** `ovn-bgp-speaker run --config FILE`: the speaker as a process. */
import { parseArgs } from 'node:util';
import { runSpeaker } from '../speaker/index.js';
import { releaseFreedMemory } from './speaker-memory.js';

/** Usage errors are status 2, as for every other command. */
const USAGE_STATUS = 2;
/** After the speaker stopped, a handle left open by mistake may delay the exit this long at most. */
const EXIT_GRACE_MS = 1_000;

export interface RunCommandIo {
  readonly err: (text: string) => void;
}

/** Reads `run`'s arguments and runs the speaker until it is stopped; resolves with the exit status. */
export async function runCommand(args: readonly string[], io: RunCommandIo): Promise<number> {
  let file: string | undefined;
  try {
    const { values, positionals } = parseArgs({
      args: [...args],
      allowPositionals: true,
      strict: true,
      options: { config: { type: 'string', short: 'c' } },
    });
    if (positionals.length > 0) throw new Error(`unexpected argument ${JSON.stringify(positionals[0])}`);
    file = values.config;
  } catch (e) {
    io.err(`run: ${(e as Error).message}`);
    return USAGE_STATUS;
  }
  if (file === undefined) {
    io.err('run: --config FILE is required');
    return USAGE_STATUS;
  }
  // Once started (and warmed up), what start-up left behind goes back to the system.
  const status = await runSpeaker(file, { stderr: io.err, onStarted: () => releaseFreedMemory() });
  setTimeout(() => process.exit(status), EXIT_GRACE_MS).unref();
  return status;
}
