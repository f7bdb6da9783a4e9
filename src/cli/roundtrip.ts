import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import {
  BgpError,
  DEFAULT_MESSAGE_CONTEXT,
  decodeMessage,
  encodeMessageBytes,
  type MessageContext,
  messageContextOf,
  negotiate,
  type OpenMessage,
} from '../bgp/wire/index.js';
import { describeMessage } from './describe.js';

/** A capture as frr-interop/capture writes it (fixtures/README.md). */
interface Capture {
  name: string;
  endpoints: Record<'a' | 'b', { impl: string; version?: string; as: number }>;
  messages: { from: 'a' | 'b'; type: string; hex: string }[];
}

export interface RoundTripResult {
  readonly file: string;
  readonly messages: number;
  readonly identical: number;
  readonly failures: readonly string[];
}

/**
 * Decodes every message of a capture with the context its session negotiated, encodes it
 * again and compares the bytes. `print` receives one line per message.
 */
export function roundTripCapture(path: string, print?: (line: string) => void): RoundTripResult {
  const c: Capture = JSON.parse(readFileSync(path, 'utf8'));
  const opens: Partial<Record<'a' | 'b', OpenMessage>> = {};
  const ctx: Partial<Record<'a' | 'b', MessageContext>> = {};
  const failures: string[] = [];
  let identical = 0;
  for (const [i, m] of c.messages.entries()) {
    const bytes = Buffer.from(m.hex, 'hex');
    const sender = c.endpoints[m.from];
    try {
      const use = ctx[m.from] ?? DEFAULT_MESSAGE_CONTEXT;
      const msg = decodeMessage(bytes, use);
      const again = Buffer.from(encodeMessageBytes(msg, use)).toString('hex');
      if (again === m.hex) identical++;
      else failures.push(`#${i} ${m.type} from ${sender.impl}: re-encoded differently`);
      if (msg.type === 'update' && msg.issues.length) {
        failures.push(`#${i} UPDATE from ${sender.impl}: ${msg.issues.map((x) => x.kind).join(', ')}`);
      }
      print?.(`${sender.impl.padEnd(5)} ${again === m.hex ? '=' : '!'} ${describeMessage(msg)}`);
      if (msg.type === 'open') {
        opens[m.from] = msg;
        learnContexts(c, opens, ctx);
      }
    } catch (e) {
      failures.push(`#${i} ${m.type} from ${sender.impl}: ${(e as Error).message}`);
    }
  }
  return { file: basename(path), messages: c.messages.length, identical, failures };
}

function learnContexts(
  c: Capture,
  opens: Partial<Record<'a' | 'b', OpenMessage>>,
  ctx: Partial<Record<'a' | 'b', MessageContext>>,
): void {
  for (const [sender, receiver] of [
    ['a', 'b'],
    ['b', 'a'],
  ] as const) {
    const local = opens[receiver];
    const remote = opens[sender];
    if (!local || !remote) continue;
    try {
      const n = negotiate(local, remote, {
        expectedRemoteAs: c.endpoints[sender].as,
        localAs: c.endpoints[receiver].as,
      });
      ctx[sender] = messageContextOf(n, c.endpoints[sender].as !== c.endpoints[receiver].as);
    } catch (e) {
      if (!(e instanceof BgpError)) throw e; // rejected OPEN: the capture ends with its NOTIFICATION
    }
  }
}

/** Every capture file under a path (a file or a folder of *.json). */
export function captureFiles(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => join(path, f));
}
