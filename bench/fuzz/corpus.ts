/**
 * The seeds: real UPDATE streams and OPENs from fixtures/bgp (FRR, GoBGP and BIRD talking to
 * each other). A stream is one direction of an eBGP capture; a fuzz peer replays it with the
 * sender's AS, so AS_PATHs and the sender's own OPEN stay as they were on the wire.
 *
 * Kept: directions whose UPDATEs a session with our speaker reads the same way they were
 * captured (4-octet AS or not as negotiated; ADD-PATH path ids when the capture had them, which
 * the fuzz peer then negotiates too). Left out: iBGP captures (our fuzz peers are eBGP) and
 * UPDATEs with IPv4 NLRI over an IPv6 next hop (RFC 8950 is not negotiated with our speaker).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  BgpError,
  decodeMessage,
  messageContextOf,
  negotiate,
  type OpenMessage,
} from '../../src/bgp/wire/index.js';
import { layoutOf, mpReachAfi, TYPE } from './wire.js';

export const FIXTURES = resolve(import.meta.dirname, '../../fixtures/bgp');

export interface Stream {
  /** `<capture>:<sender impl>`. */
  readonly name: string;
  readonly as: number;
  readonly as4: boolean;
  readonly addPath: { readonly v4: boolean; readonly v6: boolean };
  /** The sender's OPEN, as captured. */
  readonly open: Buffer;
  /** The sender's UPDATEs after the OPENs, in wire order. */
  readonly updates: readonly Buffer[];
}

interface Capture {
  name: string;
  endpoints: Record<'a' | 'b', { impl: string; as: number }>;
  messages: { from: 'a' | 'b'; type: string; hex: string }[];
}

export function loadStreams(dir = FIXTURES): Stream[] {
  const out: Stream[] = [];
  for (const f of readdirSync(dir)
    .filter((x) => x.endsWith('.json'))
    .sort()) {
    const c: Capture = JSON.parse(readFileSync(join(dir, f), 'utf8'));
    if (c.endpoints.a.as === c.endpoints.b.as) continue;
    const opens: Partial<Record<'a' | 'b', { msg: OpenMessage; bytes: Buffer }>> = {};
    for (const m of c.messages) {
      if (m.type !== 'OPEN') continue;
      const bytes = Buffer.from(m.hex, 'hex');
      opens[m.from] = { msg: decodeMessage(bytes) as OpenMessage, bytes };
    }
    for (const [sender, receiver] of [
      ['a', 'b'],
      ['b', 'a'],
    ] as const) {
      const s = opens[sender];
      const r = opens[receiver];
      if (!s || !r) continue;
      let ctx: ReturnType<typeof messageContextOf>;
      try {
        ctx = messageContextOf(
          negotiate(r.msg, s.msg, {
            expectedRemoteAs: c.endpoints[sender].as,
            localAs: c.endpoints[receiver].as,
          }),
          true,
        );
      } catch (e) {
        if (e instanceof BgpError) continue; // a capture of a refused OPEN
        throw e;
      }
      if (ctx.maxLength > 4096) continue;
      const updates = c.messages
        .filter((m) => m.from === sender && m.type === 'UPDATE')
        .map((m) => Buffer.from(m.hex, 'hex'))
        .filter((m) => {
          const l = layoutOf(m);
          return l !== undefined && mpReachAfi(m, l) !== 1 && m[18] === TYPE.UPDATE;
        });
      if (updates.length === 0) continue;
      out.push({
        name: `${c.name}:${c.endpoints[sender].impl}`,
        as: c.endpoints[sender].as,
        as4: ctx.update.as4,
        addPath: { v4: ctx.update.addPathIpv4, v6: ctx.update.addPathIpv6 },
        open: s.bytes,
        updates,
      });
    }
  }
  return out;
}
