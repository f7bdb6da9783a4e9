import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OvsdbError } from '../../src/ovsdb/errors.js';
import { JsonFramer } from '../../src/ovsdb/framer.js';

const enc = (s: string) => new TextEncoder().encode(s);

/** Messages as ovsdb-server sends them, and the awkward cases a byte scanner can get wrong. */
const FIXTURES: { name: string; text: string }[] = [
  { name: 'echo request', text: '{"id":"echo","method":"echo","params":[]}' },
  {
    name: 'update2 with nested sets and maps',
    text: '{"id":null,"method":"update2","params":["mc1",{"Logical_Router":{"21a8892f-0000-4000-8000-000000000001":{"modify":{"static_routes":["uuid","a46dd586-95c0-4c6d-a054-25eace872ae9"],"options":["map",[["k","v"]]]}}}}]}',
  },
  { name: 'braces and brackets inside strings', text: '{"a":"}{][","b":["]]]","{{{"]}' },
  { name: 'escaped quotes and backslashes', text: '{"a":"say \\"hi\\" \\\\","b":"\\\\","c":"\\\\\\""}' },
  { name: 'unicode escapes and raw UTF-8', text: '{"a":"\\u007b\\u0022","b":"héllo wörld ✓ 𝄞 名前"}' },
  { name: 'top-level array', text: '[1,{"x":[2,3]},"]"]' },
  {
    name: 'error response with object error',
    text: '{"id":5,"error":{"error":"unknown database","details":"x"}}',
  },
];

function pushAll(framer: JsonFramer, chunks: Uint8Array[]): unknown[] {
  return chunks.flatMap((c) => framer.push(c));
}

describe('JsonFramer', () => {
  for (const f of FIXTURES) {
    it(`${f.name}: whole, and split at every byte`, () => {
      const bytes = enc(f.text);
      const expected = JSON.parse(f.text);
      expect(new JsonFramer(1 << 20).push(bytes)).toEqual([expected]);
      for (let cut = 1; cut < bytes.length; cut++) {
        const framer = new JsonFramer(1 << 20);
        expect(framer.push(bytes.subarray(0, cut))).toEqual([]);
        expect(framer.idle).toBe(false);
        expect(framer.push(bytes.subarray(cut))).toEqual([expected]);
        expect(framer.idle).toBe(true);
      }
    });
  }

  it('splits several concatenated messages in one chunk, with whitespace between', () => {
    const text = FIXTURES.map((f) => f.text).join('\n \t\r');
    expect(new JsonFramer(1 << 20).push(enc(text))).toEqual(FIXTURES.map((f) => JSON.parse(f.text)));
  });

  it('delivers one byte at a time', () => {
    const text = FIXTURES.map((f) => f.text).join('');
    const framer = new JsonFramer(1 << 20);
    const out = pushAll(
      framer,
      [...enc(text)].map((b) => Uint8Array.of(b)),
    );
    expect(out).toEqual(FIXTURES.map((f) => JSON.parse(f.text)));
  });

  it('decodes a multi-byte character split across chunks', () => {
    const bytes = enc('{"s":"𝄞"}');
    const at = bytes.indexOf(0xf0) + 2; // inside the 4-byte sequence
    const framer = new JsonFramer(100);
    expect(framer.push(bytes.subarray(0, at))).toEqual([]);
    expect(framer.push(bytes.subarray(at))).toEqual([{ s: '𝄞' }]);
  });

  it('rejects bytes that cannot start a message as malformed', () => {
    for (const bad of ['x{}', '123', '"str"', '}', 'null']) {
      const framer = new JsonFramer(100);
      const err = catchError(() => framer.push(enc(bad)));
      expect(err.kind).toBe('malformed-json');
      // Once malformed the stream cannot be trusted: the framer stays failed.
      expect(catchError(() => framer.push(enc('{}'))).kind).toBe('malformed-json');
    }
  });

  it('rejects a message that closes but is not JSON', () => {
    for (const bad of ['{"a":1,}', '{"a" 1}', '{"a":tru}', '{"a":"\\u12"}']) {
      expect(catchError(() => new JsonFramer(100).push(enc(bad))).kind).toBe('malformed-json');
    }
  });

  it('rejects a closer that does not match its opener at once, without waiting for more', () => {
    for (const bad of ['{"id":1,"result":[}', '[{]', '{"a":[1,2}']) {
      expect(catchError(() => new JsonFramer(100).push(enc(bad))).message).toMatch(/closes a/);
    }
  });

  it('refuses absurd nesting', () => {
    expect(catchError(() => new JsonFramer(1 << 20).push(enc('['.repeat(2000)))).message).toMatch(
      /nesting deeper/,
    );
  });

  it('keeps truncated input as incomplete, not malformed', () => {
    const framer = new JsonFramer(100);
    expect(framer.push(enc('{"a":"b\\'))).toEqual([]);
    expect(framer.push(enc('"c"}'))).toEqual([{ a: 'b"c' }]);
  });

  it('fails with oversize-message once a message passes the limit, holding at most limit + a chunk', () => {
    const framer = new JsonFramer(1000);
    const chunk = enc(`{"a":"${'x'.repeat(300)}`);
    expect(framer.push(chunk)).toEqual([]);
    const filler = enc('y'.repeat(300));
    let err: OvsdbError | undefined;
    for (let i = 0; i < 10 && !err; i++) {
      try {
        framer.push(filler);
        expect(framer.bufferedBytes).toBeLessThanOrEqual(1000 + filler.length);
      } catch (e) {
        err = e as OvsdbError;
      }
    }
    expect(err?.kind).toBe('oversize-message');
    expect(framer.bufferedBytes).toBe(0);
  });

  it('counts a message that fits in one chunk against the limit too', () => {
    expect(catchError(() => new JsonFramer(10).push(enc('{"aaaaaaaaaa":1}'))).kind).toBe('oversize-message');
    expect(new JsonFramer(16).push(enc('{"aaaaaaaaaa":1}'))).toEqual([{ aaaaaaaaaa: 1 }]);
  });

  it('property: any JSON objects, concatenated and cut anywhere, come back whole and in order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.dictionary(fc.string({ unit: 'binary' }), fc.jsonValue()), {
          minLength: 1,
          maxLength: 5,
        }),
        fc.array(fc.nat(), { maxLength: 8 }),
        (values, cuts) => {
          const bytes = enc(values.map((v) => JSON.stringify(v)).join(''));
          const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
          const chunks: Uint8Array[] = [];
          let last = 0;
          for (const p of [...points, bytes.length]) {
            chunks.push(bytes.subarray(last, p));
            last = p;
          }
          const out = pushAll(new JsonFramer(1 << 24), chunks);
          expect(out).toEqual(values.map((v) => JSON.parse(JSON.stringify(v))));
        },
      ),
      { numRuns: 300 },
    );
  });
});

function catchError(fn: () => unknown): OvsdbError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(OvsdbError);
    return err as OvsdbError;
  }
  throw new Error('expected an error');
}
