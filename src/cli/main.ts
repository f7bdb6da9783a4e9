#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { decodeMessage, Framer, MAX_EXTENDED_MESSAGE_LENGTH } from '../bgp/wire/index.js';
import { describeMessage } from './describe.js';
import { captureFiles, roundTripCapture } from './roundtrip.js';

const USAGE = `ovn-bgp-speaker: a BGP-4 speaker for OVN clouds

Usage:
  ovn-bgp-speaker decode [FILE|-]          decode BGP messages given as hex (a capture, or stdin)
  ovn-bgp-speaker roundtrip [-v] PATH      decode and re-encode captured sessions (a .json file
                                           or a folder of them), compare the bytes
  ovn-bgp-speaker version
  ovn-bgp-speaker help

Exit status: 0 on success, 1 when a message fails to decode or re-encode, 2 on usage errors.`;

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'));
  return `ovn-bgp-speaker ${pkg.version}`;
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

function main(argv: string[]): number {
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
    default:
      console.error(`unknown command: ${command}\n\n${USAGE}`);
      return 2;
  }
}

/** Decoding loose hex: no session context, so allow extended messages and 4-octet ASes. */
const DEFAULT_EXTENDED = {
  update: { as4: true, addPathIpv4: false, addPathIpv6: false, ebgp: true },
  maxLength: MAX_EXTENDED_MESSAGE_LENGTH,
  enhancedRouteRefresh: true,
};

try {
  process.exitCode = main(process.argv.slice(2));
} catch (e) {
  console.error(`ovn-bgp-speaker: ${(e as Error).message}`);
  process.exitCode = 1;
}
