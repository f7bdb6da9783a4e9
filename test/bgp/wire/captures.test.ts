import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_EXTENDED_MESSAGE_LENGTH } from '../../../src/bgp/wire/constants.js';
import { Framer } from '../../../src/bgp/wire/framer.js';
import { captureFiles, roundTripCapture } from '../../../src/cli/roundtrip.js';
import { hex, toHex } from '../../support/hex.js';

/** Messages captured from FRR, GoBGP and BIRD talking to each other (fixtures/README.md). */
interface Capture {
  name: string;
  endpoints: Record<'a' | 'b', { impl: string; as: number }>;
  messages: { from: 'a' | 'b'; type: string; hex: string; note?: string }[];
}

const DIR = join(import.meta.dirname, '../../../fixtures/bgp');
const captures: Capture[] = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => JSON.parse(readFileSync(join(DIR, f), 'utf8')));

describe('captured messages round-trip byte-identical', () => {
  it('there are captures from all three implementations', () => {
    const impls = new Set(captures.flatMap((c) => [c.endpoints.a.impl, c.endpoints.b.impl]));
    expect([...impls].sort()).toEqual(['bird', 'frr', 'gobgp']);
  });

  // Each message is decoded with the context its session negotiated (see roundTripCapture).
  for (const file of captureFiles(DIR)) {
    it(basename(file), () => {
      const r = roundTripCapture(file);
      expect(r.failures).toEqual([]);
      expect(r.identical).toBe(r.messages);
    });
  }
});

// Some captured sessions negotiated RFC 8654 Extended Message, so frame as they did.
const all = captures.flatMap((c) => c.messages.map((m) => hex(m.hex)));

describe('framing captured messages', () => {
  it('frames every message whole', () => {
    for (const m of all) {
      const f = new Framer(MAX_EXTENDED_MESSAGE_LENGTH);
      f.push(m);
      expect(f.next()).toEqual(m);
      expect(f.next()).toBeNull();
    }
  });

  it('frames every message split at every byte, and never earlier', () => {
    const failures: string[] = [];
    for (const [i, m] of all.entries()) {
      for (let k = 1; k < m.length; k++) {
        const f = new Framer(MAX_EXTENDED_MESSAGE_LENGTH);
        f.push(m.subarray(0, k));
        if (f.next() !== null) failures.push(`#${i} framed early at ${k}`);
        f.push(m.subarray(k));
        const got = f.next();
        if (!got || !Buffer.from(got).equals(m) || f.buffered !== 0) failures.push(`#${i} split at ${k}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('frames a whole capture sent in one chunk', () => {
    for (const c of captures) {
      const stream = Buffer.concat(c.messages.map((m) => hex(m.hex)));
      const f = new Framer(MAX_EXTENDED_MESSAGE_LENGTH);
      f.push(stream);
      const out: string[] = [];
      for (let m = f.next(); m; m = f.next()) out.push(toHex(m));
      expect(out).toEqual(c.messages.map((m) => m.hex));
    }
  });

  it('frames any chunking of the captures into the same messages', () => {
    const stream = Buffer.concat(all);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 700 }), { minLength: 1, maxLength: 200 }), (sizes) => {
        const f = new Framer(MAX_EXTENDED_MESSAGE_LENGTH);
        const out: Uint8Array[] = [];
        let pos = 0;
        for (let i = 0; pos < stream.length; i++) {
          const n = sizes[i % sizes.length];
          f.push(stream.subarray(pos, pos + n));
          pos += n;
          for (let m = f.next(); m; m = f.next()) out.push(m.slice());
        }
        expect(out.length).toBe(all.length);
        expect(Buffer.concat(out).equals(stream)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});
