import { describe, expect, it } from 'vitest';
import { type ZapiFrame, ZapiFramer } from '../../../src/fib/zebra/index.js';
import { toHex } from '../../support/hex.js';
import * as F from './fixtures.js';

const ALL: [string, Uint8Array][] = Object.entries(F).filter(
  (e): e is [string, Uint8Array] => e[1] instanceof Uint8Array && e[0] !== 'HELLO_REPLY_STREAM',
);

function frameBytes(f: ZapiFrame): string {
  return `${f.command}:${f.vrfId}:${toHex(f.body)}`;
}

function expected(bytes: Uint8Array): string {
  const command = (bytes[8] << 8) | bytes[9];
  return `${command}:0:${toHex(bytes.subarray(10))}`;
}

describe('ZapiFramer', () => {
  for (const [name, bytes] of ALL) {
    it(`${name}: whole, and split at every byte`, () => {
      expect(new ZapiFramer().push(bytes).map(frameBytes)).toEqual([expected(bytes)]);
      for (let cut = 1; cut < bytes.length; cut++) {
        const framer = new ZapiFramer();
        const first = framer.push(bytes.subarray(0, cut));
        expect(first).toEqual([]);
        expect(framer.bufferedBytes).toBe(cut);
        expect(framer.push(bytes.subarray(cut)).map(frameBytes)).toEqual([expected(bytes)]);
        expect(framer.bufferedBytes).toBe(0);
      }
    });
  }

  it('one byte at a time yields every frame of a long stream, in order', () => {
    const stream = new Uint8Array(ALL.flatMap(([, b]) => [...b]));
    const framer = new ZapiFramer();
    const got: string[] = [];
    for (let i = 0; i < stream.length; i++)
      got.push(...framer.push(stream.subarray(i, i + 1)).map(frameBytes));
    expect(got).toEqual(ALL.map(([, b]) => expected(b)));
  });

  it('two frames in one read (CAPABILITIES + VRF_ADD as zebra sends them after HELLO)', () => {
    const frames = new ZapiFramer().push(F.HELLO_REPLY_STREAM);
    expect(frames.map((f) => f.command)).toEqual([19, 33]);
  });

  it('a frame and a half, then the rest', () => {
    const a = F.NOTIFY_INSTALLED_V4;
    const b = F.NOTIFY_INSTALLED_V6;
    const framer = new ZapiFramer();
    const first = framer.push(new Uint8Array([...a, ...b.subarray(0, 7)]));
    expect(first.map(frameBytes)).toEqual([expected(a)]);
    expect(framer.push(b.subarray(7)).map(frameBytes)).toEqual([expected(b)]);
  });

  it('keeps its tail safe from a caller that reuses its chunk buffer', () => {
    const chunk = new Uint8Array(F.CAPABILITIES.subarray(0, 12));
    const framer = new ZapiFramer();
    framer.push(chunk);
    chunk.fill(0xaa);
    expect(framer.push(F.CAPABILITIES.subarray(12)).map(frameBytes)).toEqual([expected(F.CAPABILITIES)]);
  });
});
