/**
 * answerToHello: what each frame means while a HELLO waits for its answer. The answers real
 * zebras gave are replayed in captures.test.ts; these are the ones they did not give.
 */
import { describe, expect, it } from 'vitest';
import { Writer } from '../../../src/bgp/wire/index.js';
import {
  answerToHello,
  FRR_8_4,
  FRR_10_3,
  writeCapabilities,
  writeFrame,
  type ZapiDialect,
  type ZapiFrame,
  ZapiFramer,
  ZebraErrorType,
} from '../../../src/fib/zebra/index.js';

function frame(write: (w: Writer) => void): ZapiFrame {
  const w = new Writer(64);
  write(w);
  const [f] = new ZapiFramer().push(w.finish());
  return f;
}

const hostU32 = (v: number) => new Uint8Array(Uint32Array.of(v).buffer);
const error = (d: ZapiDialect, code: number) =>
  frame((w) => writeFrame(w, d.command.ERROR, (b) => b.bytes(hostU32(code))));
const caps = (d: ZapiDialect) =>
  frame((w) => writeCapabilities(w, d, { vrfBackend: 0, mplsEnabled: false, multipathNum: 64, mlagRole: 0 }));

describe('answerToHello, 10.3 tried first, 8.4 left', () => {
  const answer = (f: ZapiFrame) => answerToHello(f, FRR_10_3, [FRR_8_4]);

  it("10.3's CAPABILITIES: up in 10.3, with its multipath", () => {
    expect(answer(caps(FRR_10_3))).toMatchObject({
      kind: 'up',
      dialect: FRR_10_3,
      caps: { multipathNum: 64 },
    });
  });
  it("8.4's ERROR INVALID_MSG_TYPE: HELLO again as 8.4", () => {
    expect(answer(error(FRR_8_4, ZebraErrorType.INVALID_MSG_TYPE))).toEqual({
      kind: 'retry',
      dialect: FRR_8_4,
    });
  });
  it('VRF_ADD before CAPABILITIES says nothing either way', () => {
    expect(
      answer(frame((w) => writeFrame(w, FRR_10_3.command.VRF_ADD, (b) => b.bytes(new Uint8Array(76))))),
    ).toEqual({
      kind: 'ignore',
    });
  });

  const refusals: [string, ZapiFrame][] = [
    ["8.4's ERROR of another kind (NO_VRF)", error(FRR_8_4, ZebraErrorType.NO_VRF)],
    ["10.3's own ERROR: zebra numbers as 10.3 and still refused the HELLO", error(FRR_10_3, 2)],
    ["8.4's CAPABILITIES (19): what no zebra answers to 10.3's HELLO", caps(FRR_8_4)],
    [
      "10.3's CAPABILITIES cut to 8.4's 10 bytes",
      frame((w) => writeFrame(w, 20, (b) => b.bytes(new Uint8Array(10)))),
    ],
    ['a command neither numbering would answer with', frame((w) => writeFrame(w, 200, () => {}))],
  ];
  for (const [name, f] of refusals)
    it(`refuses ${name}`, () => {
      const a = answer(f);
      expect(a.kind).toBe('refused');
      expect(a.kind === 'refused' && a.error.kind).toBe('unsupported-version');
      expect(a.kind === 'refused' && a.error.message).toContain(
        `command ${f.command} (${f.body.length} bytes)`,
      );
    });

  it('a CAPABILITIES longer than 10.3 knows is read as far as 10.3 goes (FRR appends fields)', () => {
    const f = frame((w) =>
      writeFrame(w, 20, (b) => b.bytes(Uint8Array.of(0, 0, 0, 1, 1, 0, 0, 0, 8, 0, 1, 0, 7, 7))),
    );
    expect(answer(f)).toMatchObject({
      kind: 'up',
      caps: {
        vrfBackend: 1,
        mplsEnabled: true,
        multipathNum: 8,
        v6WithV4Nexthop: true,
        gracefulRestart: false,
      },
    });
  });
});

describe('answerToHello, 8.4 tried first, 10.3 left', () => {
  it("10.3's ERROR 120 to 8.4's HELLO: HELLO again as 10.3", () => {
    expect(answerToHello(error(FRR_10_3, ZebraErrorType.INVALID_MSG_TYPE), FRR_8_4, [FRR_10_3])).toEqual({
      kind: 'retry',
      dialect: FRR_10_3,
    });
  });
  it('with nothing left to try, that ERROR is a refusal', () => {
    expect(answerToHello(error(FRR_10_3, ZebraErrorType.INVALID_MSG_TYPE), FRR_8_4, []).kind).toBe('refused');
  });
});
