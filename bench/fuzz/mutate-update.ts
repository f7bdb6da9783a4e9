/**
 * UPDATE mutators. Each takes a captured UPDATE (well formed, see corpus.ts) and returns the
 * mutated bytes with the reactions the RFCs permit, or undefined when it does not apply to
 * that message (no attribute of the kind it changes, say).
 */
import type { Stream } from './corpus.js';
import { ANY, type Expect, type FuzzCase } from './oracle.js';
import type { Prng } from './prng.js';
import {
  ATTR,
  type Attr,
  announced,
  FLAG,
  fixLength,
  HEADER,
  layoutOf,
  MAX_MESSAGE,
  MIN_UPDATE,
  type RouteKey,
  TYPE,
  type UpdateLayout,
  u16,
} from './wire.js';

interface Input {
  readonly m: Buffer;
  readonly l: UpdateLayout;
  /** What the unmodified message announces. */
  readonly routes: readonly RouteKey[];
  readonly stream: Stream;
  readonly rng: Prng;
}

type Mutator = (i: Input) => { bytes: Buffer; expect: Expect } | undefined;

/** Bit flips or byte sets in the body: any UPDATE error, or up; never a header error. */
const BODY_ERRORS: Expect = { notify: [[3, ANY]], up: true };
/** RFC 7606 5.3 (and RFC 4271 6.3 Invalid Network Field): an NLRI that does not parse resets. */
const NLRI_RESET: Expect = {
  notify: [
    [3, 10],
    [3, 1],
  ],
  up: false,
};
/** RFC 7606 7.11 / RFC 4760 7: MP_REACH_NLRI / MP_UNREACH_NLRI that do not parse reset. */
const MP_RESET: Expect = {
  notify: [
    [3, 9],
    [3, 10],
    [3, 1],
  ],
  up: false,
};

const withdraw = (routes: readonly RouteKey[]): Expect => ({ notify: [], up: true, absent: routes });
const keep = (routes: readonly RouteKey[]): Expect => ({ notify: [], up: true, present: routes });

function encodeAttr(flags: number, code: number, value: Buffer): Buffer {
  const ext = value.length > 255;
  const f = ext ? flags | FLAG.EXTENDED : flags & ~FLAG.EXTENDED;
  const head = ext
    ? Buffer.from([f, code, value.length >> 8, value.length & 0xff])
    : Buffer.from([f, code, value.length]);
  return Buffer.concat([head, value]);
}

const attrBytes = (m: Buffer, a: Attr): Buffer => m.subarray(a.at, a.end);
const attrValue = (m: Buffer, a: Attr): Buffer => m.subarray(a.valueAt, a.end);

/** The same UPDATE with another attribute list (and optionally NLRI), every length made true. */
function rebuild(i: Input, attrs: readonly Buffer[], nlri?: Buffer): Buffer | undefined {
  const { m, l } = i;
  const a = Buffer.concat(attrs);
  const withdrawn = m.subarray(HEADER, l.attrsLengthAt);
  const out = Buffer.concat([
    m.subarray(0, HEADER),
    withdrawn,
    u16(a.length),
    a,
    nlri ?? m.subarray(l.nlriAt),
  ]);
  return out.length > MAX_MESSAGE ? undefined : fixLength(out);
}

const all = (i: Input) => i.l.attrs.map((a) => attrBytes(i.m, a));

function replaceValue(i: Input, a: Attr, value: Buffer): Buffer | undefined {
  return rebuild(
    i,
    i.l.attrs.map((x) => (x === a ? encodeAttr(x.flags, x.code, value) : attrBytes(i.m, x))),
  );
}

const find = (i: Input, code: number) => i.l.attrs.find((a) => a.code === code);

/** Offsets of the length octets of the prefixes in an NLRI-encoded range. */
function prefixOffsets(m: Buffer, from: number, to: number, addPath: boolean): number[] {
  const out: number[] = [];
  for (let p = from; p < to; ) {
    if (addPath) p += 4;
    if (p >= to) break;
    out.push(p);
    p += 1 + Math.ceil(m[p]! / 8);
  }
  return out;
}

const copy = (m: Buffer) => Buffer.from(m);

export const UPDATE_MUTATORS: Readonly<Record<string, Mutator>> = {
  /** The message as captured: nothing wrong, its routes are taken. */
  replay: (i) => ({ bytes: copy(i.m), expect: keep(i.routes) }),

  'bit-flip': (i) => {
    if (i.m.length <= HEADER) return undefined;
    const b = copy(i.m);
    for (let k = i.rng.int(1, 4); k > 0; k--) b[i.rng.int(HEADER, b.length - 1)] ^= 1 << i.rng.int(0, 7);
    return { bytes: b, expect: BODY_ERRORS };
  },

  'byte-set': (i) => {
    const b = copy(i.m);
    b[i.rng.int(HEADER, b.length - 1)] = i.rng.pick([0x00, 0xff, 0x7f, 0x80, i.rng.int(0, 255)]);
    return { bytes: b, expect: BODY_ERRORS };
  },

  /** Cut short with a true header length: whatever the cut leaves is an UPDATE error or an RFC 7606 outcome. */
  truncate: (i) => {
    if (i.m.length <= MIN_UPDATE) return undefined;
    return {
      bytes: fixLength(copy(i.m.subarray(0, i.rng.int(MIN_UPDATE, i.m.length - 1)))),
      expect: BODY_ERRORS,
    };
  },

  /** RFC 4271 6.1: any octet of the marker not 0xff. */
  'marker-corrupt': (i) => {
    const b = copy(i.m);
    b[i.rng.int(0, 15)] = i.rng.int(0, 254);
    return { bytes: b, expect: { notify: [[1, 1]], up: false } };
  },

  /** RFC 4271 6.1: a length below 19 or above 4096 (no RFC 8654), or below 23 for an UPDATE. */
  'length-out-of-range': (i) => {
    const b = copy(i.m);
    b.writeUInt16BE(i.rng.pick([0, 1, 18, 19, 22, MAX_MESSAGE + 1, 0xffff, i.rng.int(0, 22)]), 16);
    // RFC 4271 6.1: the Data is the erroneous Length field.
    return { bytes: b, expect: { notify: [[1, 2]], up: false, data: b.subarray(16, 18) } };
  },

  /**
   * A header length that lies within range: the message ends early or late, and what follows is
   * read out of step. Some error must come; the session cannot stay up in step.
   */
  'length-lie': (i) => {
    const b = copy(i.m);
    const d = i.rng.pick([-3, -2, -1, 1, 2, 3, i.rng.int(-40, 40)]) || 1;
    const len = Math.max(MIN_UPDATE, Math.min(MAX_MESSAGE, b.length + d));
    if (len === b.length) return undefined;
    b.writeUInt16BE(len, 16);
    return {
      bytes: b,
      expect: {
        notify: [
          [1, ANY],
          [3, ANY],
        ],
        up: false,
      },
    };
  },

  /** RFC 4271 6.1: an unknown message type. */
  'type-unknown': (i) => {
    const b = copy(i.m);
    b[18] = i.rng.pick([0, 6, 7, 128, 255, i.rng.int(6, 255)]);
    // RFC 4271 6.1: the Data is the erroneous Type field.
    return { bytes: b, expect: { notify: [[1, 3]], up: false, data: b.subarray(18, 19) } };
  },

  /** RFC 4271 4.4 / 6.1: a KEEPALIVE is exactly 19 octets. */
  'type-keepalive': (i) => {
    const b = copy(i.m);
    b[18] = TYPE.KEEPALIVE;
    return { bytes: b, expect: { notify: [[1, 2]], up: false, data: b.subarray(16, 18) } };
  },

  /** An OPEN in Established: an FSM error (RFC 4271 8.2.2, RFC 6608 subcode 3) or an OPEN error. */
  'type-open': (i) => {
    const b = copy(i.m);
    b[18] = TYPE.OPEN;
    return {
      bytes: b,
      expect: {
        notify: [
          [5, ANY],
          [2, ANY],
          [1, 2],
        ],
        up: false,
      },
    };
  },

  /** RFC 4271 6.3 / RFC 7606 4: Withdrawn Routes Length past the message. */
  'withdrawn-length-lie': (i) => {
    const b = copy(i.m);
    b.writeUInt16BE(b.length - HEADER - 2 + i.rng.int(1, 300), HEADER);
    return { bytes: b, expect: { notify: [[3, 1]], up: false } };
  },

  /** RFC 4271 6.3 / RFC 7606 4: Total Path Attribute Length past the message. */
  'attrs-length-long': (i) => {
    const b = copy(i.m);
    b.writeUInt16BE(b.length - i.l.attrsAt + i.rng.int(1, 300), i.l.attrsLengthAt);
    return { bytes: b, expect: { notify: [[3, 1]], up: false } };
  },

  /** Total Path Attribute Length cut short: the tail of the attributes is read as NLRI. */
  'attrs-length-short': (i) => {
    if (i.l.attrsLength === 0) return undefined;
    const b = copy(i.m);
    b.writeUInt16BE(i.l.attrsLength - i.rng.int(1, i.l.attrsLength), i.l.attrsLengthAt);
    return { bytes: b, expect: BODY_ERRORS };
  },

  /** One attribute's length changed in place: its neighbours are read out of step. */
  'attr-length-lie': (i) => {
    const a = i.l.attrs.length ? i.rng.pick(i.l.attrs) : undefined;
    if (!a) return undefined;
    const b = copy(i.m);
    const at = a.valueAt - 1; // low octet of the length, either form
    b[at] = (b[at]! + i.rng.pick([1, 2, 3, 255, 254])) & 0xff;
    return { bytes: b, expect: BODY_ERRORS };
  },

  /**
   * RFC 7606 3 (c): the Optional or Transitive bit of a well-known attribute, or of MED, in
   * conflict with its definition: treat-as-withdraw.
   */
  'attr-flags-conflict': (i) => {
    const list = i.l.attrs.filter((a) =>
      [ATTR.ORIGIN, ATTR.AS_PATH, ATTR.NEXT_HOP, ATTR.MED].includes(a.code as 1),
    );
    if (list.length === 0) return undefined;
    const a = i.rng.pick(list);
    const b = copy(i.m);
    b[a.at] ^= i.rng.pick([FLAG.OPTIONAL, FLAG.TRANSITIVE, FLAG.OPTIONAL | FLAG.TRANSITIVE]);
    return { bytes: b, expect: withdraw(i.routes) };
  },

  /** The Partial or Extended Length bit flipped on any attribute: what follows, if anything, is read differently. */
  'attr-flags-other': (i) => {
    if (i.l.attrs.length === 0) return undefined;
    const a = i.rng.pick(i.l.attrs);
    const b = copy(i.m);
    b[a.at] ^= i.rng.pick([FLAG.PARTIAL, FLAG.EXTENDED, 0x0f & (1 << i.rng.int(0, 3))]);
    return { bytes: b, expect: BODY_ERRORS };
  },

  /** RFC 7606 3 (g): a repeated attribute other than MP_(UN)REACH_NLRI: all but the first discarded. */
  'attr-duplicate': (i) => {
    const list = i.l.attrs.filter((a) => a.code !== ATTR.MP_REACH && a.code !== ATTR.MP_UNREACH);
    if (list.length === 0) return undefined;
    const a = i.rng.pick(list);
    const attrs = all(i);
    attrs.splice(i.rng.int(i.l.attrs.indexOf(a) + 1, attrs.length), 0, attrBytes(i.m, a));
    const bytes = rebuild(i, attrs);
    return bytes && { bytes, expect: keep(i.routes) };
  },

  /** RFC 7606 3 (g): MP_REACH_NLRI or MP_UNREACH_NLRI twice: session reset (Malformed Attribute List). */
  'mp-duplicate': (i) => {
    const list = i.l.attrs.filter((a) => a.code === ATTR.MP_REACH || a.code === ATTR.MP_UNREACH);
    if (list.length === 0) return undefined;
    const attrs = all(i);
    attrs.push(attrBytes(i.m, i.rng.pick(list)));
    const bytes = rebuild(i, attrs);
    return bytes && { bytes, expect: { notify: [[3, 1]], up: false } };
  },

  /**
   * An attribute type no one assigned. Optional: ignored or passed on (RFC 4271 5, 9); the
   * route is kept. Well-known (Optional bit clear): RFC 4271 6.3 Unrecognized Well-known Attribute.
   */
  'attr-unknown': (i) => {
    const code = i.rng.int(200, 239);
    const flags = i.rng.pick([FLAG.OPTIONAL | FLAG.TRANSITIVE, FLAG.OPTIONAL, FLAG.TRANSITIVE, 0]);
    const value = Buffer.alloc(i.rng.pick([0, 1, 4, 7, 300]), i.rng.int(0, 255));
    const attrs = all(i);
    const attr = encodeAttr(flags, code, value);
    attrs.splice(i.rng.int(0, attrs.length), 0, attr);
    const bytes = rebuild(i, attrs);
    if (!bytes) return undefined;
    const wellKnown = (flags & FLAG.OPTIONAL) === 0;
    // RFC 4271 6.3: the Data is the unrecognized attribute (type, length and value).
    return { bytes, expect: wellKnown ? { notify: [[3, 2]], up: false, data: attr } : keep(i.routes) };
  },

  /** RFC 7606 3 (d): a missing well-known mandatory attribute in an UPDATE with NLRI: treat-as-withdraw. */
  'attr-missing': (i) => {
    if (i.routes.length === 0) return undefined;
    const v4Nlri = i.l.nlriAt < i.m.length;
    const list = i.l.attrs.filter(
      (a) => a.code === ATTR.ORIGIN || a.code === ATTR.AS_PATH || (a.code === ATTR.NEXT_HOP && v4Nlri),
    );
    if (list.length === 0) return undefined;
    const gone = i.rng.pick(list);
    const bytes = rebuild(
      i,
      i.l.attrs.filter((a) => a !== gone).map((a) => attrBytes(i.m, a)),
    );
    return bytes && { bytes, expect: withdraw(i.routes) };
  },

  /**
   * RFC 7606 7.x: an attribute of the wrong length, the list still consistent. ORIGIN (7.1),
   * NEXT_HOP (7.3), MED (7.4), COMMUNITIES (7.8): treat-as-withdraw; ATOMIC_AGGREGATE (7.6),
   * AGGREGATOR (7.7): attribute discard, the route kept.
   */
  'attr-bad-length': (i) => {
    const rules: Record<number, 'withdraw' | 'discard'> = {
      [ATTR.ORIGIN]: 'withdraw',
      [ATTR.NEXT_HOP]: 'withdraw',
      [ATTR.MED]: 'withdraw',
      [ATTR.COMMUNITIES]: 'withdraw',
      [ATTR.ATOMIC_AGGREGATE]: 'discard',
      [ATTR.AGGREGATOR]: 'discard',
    };
    const list = i.l.attrs.filter((a) => rules[a.code] !== undefined);
    if (list.length === 0) return undefined;
    const a = i.rng.pick(list);
    const v = attrValue(i.m, a);
    const grow = a.code === ATTR.ATOMIC_AGGREGATE || v.length === 0 || i.rng.chance(0.5);
    const value = grow
      ? Buffer.concat([v, Buffer.alloc(a.code === ATTR.COMMUNITIES ? i.rng.int(1, 3) : i.rng.int(1, 5))])
      : v.subarray(0, a.code === ATTR.COMMUNITIES ? v.length - i.rng.int(1, 3) : i.rng.int(0, v.length - 1));
    const bytes = replaceValue(i, a, value);
    return bytes && { bytes, expect: rules[a.code] === 'withdraw' ? withdraw(i.routes) : keep(i.routes) };
  },

  /** RFC 7606 7.1: an ORIGIN value other than IGP, EGP, INCOMPLETE: treat-as-withdraw. */
  'origin-value': (i) => {
    const a = find(i, ATTR.ORIGIN);
    if (a?.length !== 1) return undefined;
    const b = copy(i.m);
    b[a.valueAt] = i.rng.int(3, 255);
    return { bytes: b, expect: withdraw(i.routes) };
  },

  /** RFC 7606 7.2: an AS_PATH segment whose length runs past the attribute: treat-as-withdraw. */
  'as-path-overrun': (i) => {
    const a = find(i, ATTR.AS_PATH);
    // One segment only, so the longer count cannot end exactly on a later segment.
    const asLength = i.stream.as4 ? 4 : 2;
    if (!a || a.length < 2 || a.length !== 2 + i.m[a.valueAt + 1]! * asLength) return undefined;
    const b = copy(i.m);
    b[a.valueAt + 1] = (b[a.valueAt + 1]! + i.rng.int(1, 20)) & 0xff || 1;
    return { bytes: b, expect: withdraw(i.routes) };
  },

  /** RFC 7606 5.3: a prefix longer than its family allows in the NLRI or withdrawn routes field. */
  'prefix-too-long': (i) => {
    const { m, l } = i;
    const nlri = prefixOffsets(m, l.nlriAt, m.length, i.stream.addPath.v4);
    const wd = prefixOffsets(m, l.withdrawnAt, l.attrsLengthAt, i.stream.addPath.v4);
    const mp = l.attrs
      .filter((a) => a.code === ATTR.MP_REACH || a.code === ATTR.MP_UNREACH)
      .flatMap((a) => {
        const afi = m.readUInt16BE(a.valueAt);
        const from = a.code === ATTR.MP_REACH ? a.valueAt + 4 + m[a.valueAt + 3]! + 1 : a.valueAt + 3;
        return prefixOffsets(m, from, a.end, afi === 1 ? i.stream.addPath.v4 : i.stream.addPath.v6).map(
          (p) => ({
            p,
            max: afi === 1 ? 32 : 128,
          }),
        );
      });
    const places = [
      ...nlri.map((p) => ({ p, max: 32, expect: NLRI_RESET })),
      ...wd.map((p) => ({ p, max: 32, expect: NLRI_RESET })),
      ...mp.map((x) => ({ ...x, expect: MP_RESET })),
    ];
    if (places.length === 0) return undefined;
    const at = i.rng.pick(places);
    const b = copy(m);
    b[at.p] = i.rng.int(at.max + 1, 255);
    return { bytes: b, expect: at.expect };
  },

  /** RFC 7606 5.3: the last NLRI prefix runs past the end of the message. */
  'nlri-overrun': (i) => {
    const pid = i.stream.addPath.v4 ? Buffer.from([0, 0, 0, i.rng.int(1, 9)]) : Buffer.alloc(0);
    const tail = i.rng.chance(0.5)
      ? Buffer.concat([pid, Buffer.from([i.rng.int(9, 32)])]) // a length with too few octets after it
      : pid.subarray(0, Math.max(1, pid.length - 1)); // a path id cut short (or one stray octet)
    const bytes = fixLength(Buffer.concat([i.m, tail]));
    const ok = tail.length > 0 && bytes.length <= MAX_MESSAGE;
    return ok ? { bytes, expect: NLRI_RESET } : undefined;
  },
};

export const UPDATE_MUTATOR_NAMES = Object.keys(UPDATE_MUTATORS);

/** A case from a captured UPDATE: the named mutator, or a random one that applies. */
export function updateCase(stream: Stream, rng: Prng, only?: string): FuzzCase | undefined {
  for (let tries = 0; tries < 20; tries++) {
    const m = rng.pick(stream.updates);
    const l = layoutOf(m);
    const routes = l && announced(m, l, stream.addPath);
    if (!l || !routes) continue;
    const name = only ?? rng.pick(UPDATE_MUTATOR_NAMES);
    const r = UPDATE_MUTATORS[name]!({ m, l, routes, stream, rng });
    if (r) return { kind: 'update', mutator: name, ...r };
  }
  return undefined;
}
