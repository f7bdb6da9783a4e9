import { type LoadOptions, loadConfig } from './load.js';
import { notActedOnWarnings } from './not-acted-on.js';
import { ConfigError, formatProblem } from './problem.js';

/** Exit statuses of a configuration check. */
export const CheckStatus = { OK: 0, INVALID: 1 } as const;

/**
 * `ovn-bgp-speaker check-config FILE`: validates the file, writes one line per problem and per
 * warning, and returns the exit status (non-zero when the file cannot be used).
 */
export function checkConfigFile(
  file: string,
  write: (line: string) => void,
  options: LoadOptions = {},
): number {
  try {
    const { config, warnings } = loadConfig(file, options);
    for (const w of warnings) write(`warning: ${formatProblem(w, file)}`);
    for (const w of notActedOnWarnings(config)) write(`warning: ${file}: ${w}`);
    const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
    const peers = count(config.peers.length, 'peer');
    write(`${file}: ok (speaker ${config.speaker.name}, ${peers}, ${count(config.routes.length, 'route')})`);
    return CheckStatus.OK;
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    for (const line of e.message.split('\n')) write(line);
    return CheckStatus.INVALID;
  }
}
