/**
 * OPEN mutators. The base is the OPEN a fuzz peer may send: the stream sender's OPEN as
 * captured (FRR's, GoBGP's or BIRD's, with their capabilities) or the plain one the peer uses
 * for its UPDATE cases. A base is accepted by the speaker; each mutator says what its change
 * must make of it (RFC 4271 6.2, RFC 5492, RFC 6793).
 *
 *   OPEN body: version (1) | My AS (2) | Hold Time (2) | BGP Identifier (4) | Opt Parm Len (1) | params
 *   param: type (1) | length (1) | value; type 2 holds capabilities: code (1) | length (1) | value
 */
import { ANY, type Expect, type FuzzCase } from './oracle.js';
import type { Prng } from './prng.js';
import { CAP, fixLength, HEADER, MAX_MESSAGE, TYPE } from './wire.js';

const OPT_LEN_AT = HEADER + 9;
const PARAMS_AT = HEADER + 10;
const MIN_OPEN = HEADER + 10;

interface Param {
  readonly at: number;
  readonly type: number;
  readonly length: number;
}

function paramsOf(m: Buffer): Param[] {
  const out: Param[] = [];
  const end = PARAMS_AT + m[OPT_LEN_AT]!;
  for (let p = PARAMS_AT; p + 2 <= end; p += 2 + m[p + 1]!)
    out.push({ at: p, type: m[p]!, length: m[p + 1]! });
  return out;
}

/** The capabilities inside the type-2 parameters: offset of the code octet, and where their parameter ends. */
function capsOf(m: Buffer): { at: number; code: number; length: number; paramEnd: number }[] {
  return paramsOf(m)
    .filter((p) => p.type === 2)
    .flatMap((p) => {
      const out: { at: number; code: number; length: number; paramEnd: number }[] = [];
      const paramEnd = p.at + 2 + p.length;
      for (let c = p.at + 2; c + 2 <= paramEnd; c += 2 + m[c + 1]!)
        out.push({ at: c, code: m[c]!, length: m[c + 1]!, paramEnd });
      return out;
    });
}

/** The OPEN with another parameter appended, lengths made true. */
function withParam(m: Buffer, param: Buffer): Buffer | undefined {
  const optLen = m[OPT_LEN_AT]! + param.length;
  if (optLen > 255) return undefined;
  const b = fixLength(Buffer.concat([m, param]));
  b[OPT_LEN_AT] = optLen;
  return b.length > MAX_MESSAGE ? undefined : b;
}

const up: Expect = { notify: [], up: true };
const refuse = (code: number, subcode: number): Expect => ({ notify: [[code, subcode]], up: false });
/** What a broken OPEN body may come to: an OPEN error (any subcode) or a length error. */
const OPEN_ERRORS: Expect = {
  notify: [
    [2, ANY],
    [1, 2],
  ],
  up: false,
};

interface Input {
  readonly m: Buffer;
  /** The AS the speaker expects of this peer. */
  readonly as: number;
  readonly rng: Prng;
}

type Mutator = (i: Input) => { bytes: Buffer; expect: Expect } | undefined;

const copy = (m: Buffer) => Buffer.from(m);

export const OPEN_MUTATORS: Readonly<Record<string, Mutator>> = {
  replay: (i) => ({ bytes: copy(i.m), expect: up }),

  /** RFC 4271 6.2: Unsupported Version Number. */
  version: (i) => {
    const b = copy(i.m);
    const v = i.rng.pick([0, 1, 2, 3, 5, 255, i.rng.int(5, 255)]);
    b[HEADER] = v;
    // RFC 4271 6.2: the Data is the largest version we support below the one bid (4, for a higher bid).
    return { bytes: b, expect: v > 4 ? { ...refuse(2, 1), data: Buffer.from([0, 4]) } : refuse(2, 1) };
  },

  /** RFC 4271 6.2: a Hold Time of one or two seconds is Unacceptable; zero is fine. */
  'hold-time': (i) => {
    const b = copy(i.m);
    const hold = i.rng.pick([0, 1, 2, 3, 0xffff]);
    b.writeUInt16BE(hold, HEADER + 3);
    return { bytes: b, expect: hold === 1 || hold === 2 ? refuse(2, 6) : up };
  },

  /** RFC 4271 6.2 / RFC 6286: a BGP Identifier of zero is Bad BGP Identifier. */
  'bgp-id-zero': (i) => {
    const b = copy(i.m);
    b.fill(0, HEADER + 5, HEADER + 9);
    return { bytes: b, expect: refuse(2, 3) };
  },

  /** RFC 4271 6.2 / RFC 6793: an AS other than the one configured, in My AS and in the AS4 capability. */
  'peer-as': (i) => {
    const b = copy(i.m);
    let other = i.rng.int(1, 0xfffe);
    if (other === i.as || other === 23456) other = 64999;
    b.writeUInt16BE(other, HEADER + 1);
    for (const c of capsOf(b)) if (c.code === CAP.AS4 && c.length === 4) b.writeUInt32BE(other, c.at + 2);
    return { bytes: b, expect: refuse(2, 2) };
  },

  /** RFC 4271 6.2: an optional parameter type we do not know: Unsupported Optional Parameter. */
  'param-unknown': (i) => {
    const bytes = withParam(i.m, Buffer.from([i.rng.int(3, 254), 2, 0, 0]));
    return bytes && { bytes, expect: refuse(2, 4) };
  },

  /** RFC 5492 3: a capability we do not know is ignored. */
  'capability-unknown': (i) => {
    const len = i.rng.int(0, 6);
    const cap = Buffer.concat([
      Buffer.from([i.rng.int(200, 239), len]),
      Buffer.alloc(len, i.rng.int(0, 255)),
    ]);
    const bytes = withParam(i.m, Buffer.concat([Buffer.from([2, cap.length]), cap]));
    return bytes && { bytes, expect: up };
  },

  /** A capability whose length runs past its parameter. */
  'capability-overrun': (i) => {
    const caps = capsOf(i.m);
    if (caps.length === 0) return undefined;
    const c = i.rng.pick(caps);
    // Past the end of its parameter, not merely over the next capability (that would be a
    // longer capability, well formed, as a bit flip may make).
    const length = c.paramEnd - (c.at + 2) + i.rng.int(1, 40);
    if (length > 255) return undefined;
    const b = copy(i.m);
    b[c.at + 1] = length;
    return { bytes: b, expect: OPEN_ERRORS };
  },

  /** A known capability with the wrong length (MP 4, AS4 4, ADD-PATH a multiple of 4, ...). */
  'capability-bad-length': (i) => {
    const caps = capsOf(i.m).filter((c) => [CAP.MP, CAP.AS4, CAP.ADD_PATH].includes(c.code as 1));
    if (caps.length === 0) return undefined;
    const c = i.rng.pick(caps);
    const extra = i.rng.int(1, 3);
    const cap = Buffer.concat([
      Buffer.from([c.code, c.length + extra]),
      i.m.subarray(c.at + 2, c.at + 2 + c.length),
      Buffer.alloc(extra),
    ]);
    const bytes = withParam(i.m, Buffer.concat([Buffer.from([2, cap.length]), cap]));
    // Whether a malformed capability refuses the session or is ignored, RFC 5492 leaves open.
    return bytes && { bytes, expect: { notify: [[2, ANY]], up: true } };
  },

  /** Optional Parameters Length that disagrees with the message. */
  'params-length-lie': (i) => {
    const b = copy(i.m);
    const real = b[OPT_LEN_AT]!;
    const lie = i.rng.pick([real + 1, real + i.rng.int(2, 60), Math.max(0, real - 1), 255]) & 0xff;
    if (lie === real) return undefined;
    b[OPT_LEN_AT] = lie;
    return { bytes: b, expect: OPEN_ERRORS };
  },

  /** Cut short, header length made true: below 29 octets RFC 4271 6.1 says Bad Message Length. */
  truncate: (i) => {
    const len = i.rng.int(HEADER, i.m.length - 1);
    const bytes = fixLength(copy(i.m.subarray(0, len)));
    return {
      bytes,
      expect: len < MIN_OPEN ? { ...refuse(1, 2), data: bytes.subarray(16, 18) } : OPEN_ERRORS,
    };
  },

  'bit-flip': (i) => {
    const b = copy(i.m);
    for (let k = i.rng.int(1, 3); k > 0; k--) b[i.rng.int(HEADER, b.length - 1)] ^= 1 << i.rng.int(0, 7);
    return {
      bytes: b,
      expect: {
        notify: [
          [2, ANY],
          [1, 2],
        ],
        up: true,
      },
    };
  },

  'marker-corrupt': (i) => {
    const b = copy(i.m);
    b[i.rng.int(0, 15)] = i.rng.int(0, 254);
    return { bytes: b, expect: refuse(1, 1) };
  },

  /** An UPDATE or KEEPALIVE before any OPEN: FSM error (RFC 4271 8.2.2, RFC 6608 subcode 1). */
  'not-open-first': (i) => {
    const b = copy(i.m);
    b[18] = i.rng.pick([TYPE.UPDATE, TYPE.ROUTE_REFRESH]);
    return {
      bytes: b,
      expect: {
        notify: [
          [5, ANY],
          [1, 2],
        ],
        up: false,
      },
    };
  },
};

export const OPEN_MUTATOR_NAMES = Object.keys(OPEN_MUTATORS);

export function openCase(base: Buffer, as: number, rng: Prng, only?: string): FuzzCase | undefined {
  for (let tries = 0; tries < 20; tries++) {
    const name = only ?? rng.pick(OPEN_MUTATOR_NAMES);
    const r = OPEN_MUTATORS[name]!({ m: base, as, rng });
    if (r) return { kind: 'open', mutator: name, ...r };
  }
  return undefined;
}
