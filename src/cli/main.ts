#!/usr/bin/env node
/**
 * The CLI's entry. Each command's module is imported only when that command runs, so `show`
 * loads the control client and the formatters, not the speaker, and answers fast.
 */
import { existsSync, readFileSync } from 'node:fs';
import { asksForHelp, commandHelp, USAGE } from './usage.js';

/** Usage errors are status 2, as for every command. */
const USAGE_STATUS = 2;

/** Reads our package.json, found upward from this file (dist/src/cli or src/cli). */
function version(): string {
  for (let dir = new URL('.', import.meta.url); dir.pathname !== '/'; dir = new URL('..', dir)) {
    const candidate = new URL('package.json', dir);
    if (existsSync(candidate)) {
      const pkg = JSON.parse(readFileSync(candidate, 'utf8'));
      if (pkg.name === 'ovn-bgp-speaker') return `ovn-bgp-speaker ${pkg.version}`;
    }
  }
  return 'ovn-bgp-speaker (version unknown)';
}

const out = (text: string) => console.log(text);
const err = (text: string) => console.error(text);

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command !== undefined && asksForHelp(rest)) {
    const help = commandHelp(command);
    if (help !== null) {
      out(help);
      return 0;
    }
  }
  switch (command) {
    case undefined:
    case '--help':
    case '-h':
      out(USAGE);
      return 0;
    case 'help': {
      const help = rest[0] === undefined ? USAGE : commandHelp(rest[0]);
      if (help === null) {
        err(`unknown command: ${rest[0]}\n\n${USAGE}`);
        return USAGE_STATUS;
      }
      out(help);
      return 0;
    }
    case 'version':
    case '--version':
      out(version());
      return 0;
    case 'decode':
      return (await import('./decode.js')).decodeCommand(rest[0] ?? '-', out);
    case 'check-config':
      return (await import('./check-config.js')).checkConfigCommand(rest, { out, err });
    case 'roundtrip': {
      const verbose = rest[0] === '-v';
      const path = verbose ? rest[1] : rest[0];
      if (!path) {
        err(`roundtrip: PATH is missing\n\n${commandHelp('roundtrip')}`);
        return USAGE_STATUS;
      }
      return (await import('./roundtrip-command.js')).roundtripCommand(path, verbose, out);
    }
    case 'run':
      (await import('./speaker-memory.js')).tuneSpeakerMemory();
      return (await import('./run.js')).runCommand(rest, { err });
    case 'show':
    case 'neighbor':
      return (await import('./show.js')).runControlCommand(command, rest, { out, err, env: process.env });
    case 'route':
    case 'peer':
    case 'call':
    case 'mrt':
    case 'dump':
      return (await import('./api-commands.js')).runApiCommand(command, rest, { out, err, env: process.env });
    case 'watch':
      return (await import('./api-commands.js')).runWatchCommand(rest, {
        out,
        err,
        env: process.env,
        interrupted: new Promise<void>((resolve) => process.once('SIGINT', () => resolve())),
      });
    default:
      err(`unknown command: ${command}\n\n${USAGE}`);
      return USAGE_STATUS;
  }
}

function fail(e: unknown): void {
  console.error(`ovn-bgp-speaker: ${(e as Error).message}`);
  process.exitCode = 1;
}

main(process.argv.slice(2)).then((status) => {
  process.exitCode = status;
}, fail);
