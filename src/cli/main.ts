#!/usr/bin/env node
import { existsSync, readFileSync } from 'node:fs';
import { decodeMessage, Framer, MAX_EXTENDED_MESSAGE_LENGTH } from '../bgp/wire/index.js';
import { checkConfigFile } from '../config/index.js';
import { API_USAGE, runApiCommand, runWatchCommand } from './api-commands.js';
import { describeMessage } from './describe.js';
import { captureFiles, roundTripCapture } from './roundtrip.js';
import { RUN_USAGE, runCommand } from './run.js';
import { CONTROL_OPTIONS, CONTROL_USAGE, runControlCommand } from './show.js';

const USAGE = `ovn-bgp-speaker: a BGP-4 speaker for OVN clouds

Usage:
${RUN_USAGE}
  ovn-bgp-speaker decode [FILE|-]          decode BGP messages given as hex (a capture, or stdin)
  ovn-bgp-speaker roundtrip [-v] PATH      decode and re-encode captured sessions (a .json file
                                           or a folder of them), compare the bytes
  ovn-bgp-speaker check-config FILE        check a configuration file: one line per problem
${CONTROL_USAGE}
${API_USAGE}
  ovn-bgp-speaker version
  ovn-bgp-speaker help

${CONTROL_OPTIONS}

Exit status: 0 on success, 1 when a message fails to decode or re-encode, the speaker cannot be
reached or answers with an error (an unknown peer, a prefix not in the table), 2 on usage errors.`;

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

/** Hex from a capture JSON file (its messages in order) or from plain hex text. */
function messagesFrom(text: string): Uint8Array[] {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    return (JSON.parse(trimmed).messages as { hex: string }[]).map((m) => Buffer.from(m.hex, 'hex'));
  }
  const framer = new Framer(MAX_EXTENDED_MESSAGE_LENGTH);
  framer.push(Buffer.from(trimmed.replace(/[^0-9a-fA-F]/g, ''), 'hex'));
  const out: Uint8Array[] = [];
  for (let m = framer.next(); m; m = framer.next()) out.push(m.slice());
  if (framer.buffered) throw new Error(`${framer.buffered} trailing bytes do not make a whole message`);
  return out;
}

function main(argv: string[]): number | Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      console.log(USAGE);
      return 0;
    case 'version':
    case '--version':
      console.log(version());
      return 0;
    case 'decode': {
      const file = rest[0] ?? '-';
      const text = readFileSync(file === '-' ? 0 : file, 'utf8');
      for (const m of messagesFrom(text))
        console.log(describeMessage(decodeMessage(m, { ...DEFAULT_EXTENDED })));
      return 0;
    }
    case 'check-config': {
      if (!rest[0]) {
        console.error(USAGE);
        return 2;
      }
      return checkConfigFile(rest[0], (line) => console.log(line));
    }
    case 'roundtrip': {
      const verbose = rest[0] === '-v';
      const path = verbose ? rest[1] : rest[0];
      if (!path) {
        console.error(USAGE);
        return 2;
      }
      let bad = 0;
      for (const file of captureFiles(path)) {
        const r = roundTripCapture(file, verbose ? (line) => console.log(`  ${line}`) : undefined);
        console.log(
          `${r.failures.length ? 'FAIL' : 'ok  '} ${r.file}: ${r.identical}/${r.messages} byte-identical`,
        );
        for (const f of r.failures) console.log(`     ${f}`);
        bad += r.failures.length;
      }
      return bad ? 1 : 0;
    }
    case 'run':
      return runCommand(rest, { err: (text) => console.error(text) });
    case 'show':
    case 'neighbor':
      return runControlCommand(command, rest, {
        out: (text) => console.log(text),
        err: (text) => console.error(text),
        env: process.env,
      });
    case 'route':
    case 'peer':
    case 'call':
      return runApiCommand(command, rest, cliIo());
    case 'watch':
      return runWatchCommand(rest, {
        ...cliIo(),
        interrupted: new Promise<void>((resolve) => process.once('SIGINT', () => resolve())),
      });
    default:
      console.error(`unknown command: ${command}\n\n${USAGE}`);
      return 2;
  }
}

function cliIo() {
  return {
    out: (text: string) => console.log(text),
    err: (text: string) => console.error(text),
    env: process.env,
  };
}

/** Decoding loose hex: no session context, so allow extended messages and 4-octet ASes. */
const DEFAULT_EXTENDED = {
  update: { as4: true, addPathIpv4: false, addPathIpv6: false, ebgp: true },
  maxLength: MAX_EXTENDED_MESSAGE_LENGTH,
  enhancedRouteRefresh: true,
};

function fail(e: unknown): void {
  console.error(`ovn-bgp-speaker: ${(e as Error).message}`);
  process.exitCode = 1;
}

// Commands that talk to the speaker are asynchronous; the others return their status at once.
Promise.resolve()
  .then(() => main(process.argv.slice(2)))
  .then((status) => {
    process.exitCode = status;
  }, fail);
