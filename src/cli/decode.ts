/** `ovn-bgp-speaker decode [FILE|-]`: BGP messages given as hex, described one per line. */
import { readFileSync } from 'node:fs';
import { decodeMessage, Framer, MAX_EXTENDED_MESSAGE_LENGTH } from '../bgp/wire/index.js';
import { describeMessage } from './describe.js';

/** Decoding loose hex: no session context, so allow extended messages and 4-octet ASes. */
const DEFAULT_EXTENDED = {
  update: { as4: true, addPathIpv4: false, addPathIpv6: false, ebgp: true },
  maxLength: MAX_EXTENDED_MESSAGE_LENGTH,
  enhancedRouteRefresh: true,
};

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

export function decodeCommand(file: string, out: (line: string) => void): number {
  const text = readFileSync(file === '-' ? 0 : file, 'utf8');
  for (const m of messagesFrom(text)) out(describeMessage(decodeMessage(m, { ...DEFAULT_EXTENDED })));
  return 0;
}
