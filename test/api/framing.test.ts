import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../../src/api/framing.js';

const MAX = 16;

function splitAll(chunks: readonly Buffer[], max = MAX) {
  const s = new LineSplitter(max);
  const lines: string[] = [];
  for (const c of chunks) {
    const r = s.push(c);
    lines.push(...r.lines);
    if (r.kind === 'oversize') return { lines, oversize: true, buffered: s.buffered };
  }
  return { lines, oversize: false, buffered: s.buffered };
}

describe('LineSplitter', () => {
  it('yields each complete line, keeps the rest for the next chunk', () => {
    const s = new LineSplitter(MAX);
    expect(s.push(Buffer.from('{"a":1}\n{"b"'))).toEqual({ kind: 'lines', lines: ['{"a":1}'] });
    expect(s.buffered).toBe(4);
    expect(s.push(Buffer.from(':2}\n\n'))).toEqual({ kind: 'lines', lines: ['{"b":2}', ''] });
    expect(s.buffered).toBe(0);
  });

  it('drops a carriage return before the newline', () => {
    expect(splitAll([Buffer.from('one\r\ntwo\n')]).lines).toEqual(['one', 'two']);
  });

  it('decodes a UTF-8 character split across chunks', () => {
    const bytes = Buffer.from('"é€"\n');
    for (let cut = 1; cut < bytes.length; cut++) {
      expect(splitAll([bytes.subarray(0, cut), bytes.subarray(cut)]).lines, `cut at ${cut}`).toEqual([
        '"é€"',
      ]);
    }
  });

  it('takes a line of exactly the limit and refuses one byte more, whole or in pieces', () => {
    const exact = Buffer.from(`${'x'.repeat(MAX)}\n`);
    expect(splitAll([exact])).toEqual({ lines: ['x'.repeat(MAX)], oversize: false, buffered: 0 });
    const over = Buffer.from(`${'x'.repeat(MAX + 1)}\n`);
    for (let cut = 0; cut <= over.length; cut++) {
      const r = splitAll([over.subarray(0, cut), over.subarray(cut)]);
      expect(r.oversize, `cut at ${cut}`).toBe(true);
      expect(r.lines).toEqual([]);
    }
  });

  it('refuses a long line with no newline before it is complete, holding no more than the limit', () => {
    const s = new LineSplitter(MAX);
    expect(s.push(Buffer.alloc(MAX, 0x61)).kind).toBe('lines');
    expect(s.buffered).toBe(MAX);
    expect(s.push(Buffer.from('a'))).toEqual({ kind: 'oversize', lines: [] });
    expect(s.buffered).toBe(0);
  });

  it('returns the lines before the one that went over', () => {
    expect(splitAll([Buffer.from(`ok\n${'y'.repeat(MAX + 1)}`)])).toEqual({
      lines: ['ok'],
      oversize: true,
      buffered: 0,
    });
  });

  it('gives the same lines however the bytes are cut (property)', () => {
    const line = fc.string({ maxLength: MAX }).filter((l) => !l.includes('\n') && !l.endsWith('\r'));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 6 }), (lines, cuts) => {
        const bytes = Buffer.from(lines.map((l) => `${l}\n`).join(''));
        const fits = lines.every((l) => Buffer.byteLength(l) <= MAX);
        const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
        const chunks = [0, ...points].map((p, i, all) => bytes.subarray(p, all[i + 1] ?? bytes.length));
        const r = splitAll(chunks);
        if (fits) expect(r).toEqual({ lines, oversize: false, buffered: 0 });
        else expect(r.oversize).toBe(true);
      }),
    );
  });
});
