/** `ovn-bgp-speaker check-config FILE` or `check-config --config FILE`, as `run --config FILE` takes it. */
import { parseArgs } from 'node:util';
import { CHECK_CONFIG_USAGE } from './usage.js';

/** Usage errors are status 2, as for every command. */
const USAGE_STATUS = 2;

export interface CheckConfigIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

/**
 * The file from the arguments: `--config FILE` (`-c`), as `run` reads it, or FILE alone; both
 * at once only when they agree. A string is the file, an error text a usage error.
 */
export function checkConfigFileArg(args: readonly string[]): { file: string } | { error: string } {
  let values: { config?: string };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: [...args],
      allowPositionals: true,
      strict: true,
      options: { config: { type: 'string', short: 'c' } },
    }));
  } catch (e) {
    return { error: (e as Error).message };
  }
  if (positionals.length > 1) return { error: `unexpected argument ${JSON.stringify(positionals[1])}` };
  const [positional] = positionals;
  if (values.config !== undefined && positional !== undefined && positional !== values.config) {
    return {
      error: `two files given (${JSON.stringify(values.config)} and ${JSON.stringify(positional)}): give one`,
    };
  }
  const file = values.config ?? positional;
  if (file === undefined) {
    return {
      error:
        'FILE is missing: give the configuration file to check (the one `run --config FILE` reads); ' +
        'there is no default location, so none was looked in.',
    };
  }
  return { file };
}

export async function checkConfigCommand(args: readonly string[], io: CheckConfigIo): Promise<number> {
  const arg = checkConfigFileArg(args);
  if ('error' in arg) {
    io.err(`check-config: ${arg.error}\n\nUsage:\n${CHECK_CONFIG_USAGE}`);
    return USAGE_STATUS;
  }
  return (await import('../config/check.js')).checkConfigFile(arg.file, io.out);
}
