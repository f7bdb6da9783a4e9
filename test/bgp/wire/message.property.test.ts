import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_EXTENDED_MESSAGE_LENGTH } from '../../../src/bgp/wire/constants.js';
import { BgpError } from '../../../src/bgp/wire/errors.js';
import { Framer } from '../../../src/bgp/wire/framer.js';
import { decodeMessage, type MessageContext } from '../../../src/bgp/wire/message.js';

const contexts: fc.Arbitrary<MessageContext> = fc.record({
  update: fc.record({
    as4: fc.boolean(),
    addPathIpv4: fc.boolean(),
    addPathIpv6: fc.boolean(),
    ebgp: fc.boolean(),
  }),
  maxLength: fc.constantFrom(4096, MAX_EXTENDED_MESSAGE_LENGTH),
  enhancedRouteRefresh: fc.boolean(),
});

/** A header that frames (marker, a length matching the body, any type) around random bytes. */
const framed = fc
  .tuple(fc.integer({ min: 0, max: 7 }), fc.uint8Array({ maxLength: 200 }))
  .map(([type, body]) => {
    const m = new Uint8Array(19 + body.length);
    m.fill(0xff, 0, 16);
    m[16] = m.length >> 8;
    m[17] = m.length;
    m[18] = type;
    m.set(body, 19);
    return m;
  });

function valueOrBgpError(run: () => unknown): void {
  try {
    run();
  } catch (e) {
    if (!(e instanceof BgpError)) throw e;
    expect(e.code).toBeGreaterThanOrEqual(1);
    expect(e.code).toBeLessThanOrEqual(7);
  }
}

describe('whole messages from an untrusted peer', () => {
  it('any framed message decodes to a value or a typed BgpError, never anything else', () => {
    fc.assert(
      fc.property(framed, contexts, (m, ctx) => valueOrBgpError(() => decodeMessage(m, ctx))),
      { numRuns: 100_000 },
    );
  });

  it('any byte stream through the framer yields messages or a typed BgpError, and terminates', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 64 }), { maxLength: 8 }), contexts, (chunks, ctx) =>
        valueOrBgpError(() => {
          const f = new Framer(ctx.maxLength);
          for (const c of chunks) {
            f.push(c);
            for (let m = f.next(); m; m = f.next()) decodeMessage(m, ctx);
          }
        }),
      ),
      { numRuns: 100_000 },
    );
  });
});
