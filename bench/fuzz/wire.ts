/**
 * The fuzzer's own view of the wire, written apart from src/bgp/wire so that a bug there cannot
 * hide itself: building the few valid messages a fuzz peer sends, locating the fields of an
 * UPDATE the mutators change, and checking every frame the speaker sends back.
 *
 *   header:  marker (16 x 0xff) | length (2) | type (1)                      RFC 4271 4.1
 *   UPDATE:  withdrawn length (2) | withdrawn | attributes length (2) | attributes | NLRI
 *   attribute: flags (1) | type (1) | length (1, or 2 with Extended Length) | value
 */

export const HEADER = 19;
export const MIN_UPDATE = 23;
export const MAX_MESSAGE = 4096;
export const TYPE = { OPEN: 1, UPDATE: 2, NOTIFICATION: 3, KEEPALIVE: 4, ROUTE_REFRESH: 5 } as const;
export const FLAG = { OPTIONAL: 0x80, TRANSITIVE: 0x40, PARTIAL: 0x20, EXTENDED: 0x10 } as const;
export const ATTR = {
  ORIGIN: 1,
  AS_PATH: 2,
  NEXT_HOP: 3,
  MED: 4,
  LOCAL_PREF: 5,
  ATOMIC_AGGREGATE: 6,
  AGGREGATOR: 7,
  COMMUNITIES: 8,
  MP_REACH: 14,
  MP_UNREACH: 15,
} as const;

export function message(type: number, body: Uint8Array): Buffer {
  const b = Buffer.alloc(HEADER + body.length, 0xff);
  b.writeUInt16BE(HEADER + body.length, 16);
  b[18] = type;
  Buffer.from(body).copy(b, HEADER);
  return b;
}

/** Rewrites the header's length to the buffer's real length. */
export function fixLength(b: Buffer): Buffer {
  b.writeUInt16BE(Math.min(b.length, 0xffff), 16);
  return b;
}

export const keepalive = (): Buffer => message(TYPE.KEEPALIVE, Buffer.alloc(0));

/** Cease / Administrative Shutdown (RFC 4486): how a fuzz peer ends a session it kept up. */
export const cease = (): Buffer => message(TYPE.NOTIFICATION, Buffer.from([6, 2]));

export interface OpenFields {
  readonly version?: number;
  readonly as: number;
  readonly holdTime: number;
  readonly id: string;
  /** Capabilities, each {code, value}; each goes in its own optional parameter (type 2). */
  readonly caps: readonly { code: number; value: Uint8Array }[];
}

export function ipv4Bytes(a: string): Buffer {
  return Buffer.from(a.split('.').map(Number));
}

export function open(o: OpenFields): Buffer {
  const params = Buffer.concat(
    o.caps.map((c) => Buffer.concat([Buffer.from([2, c.value.length + 2, c.code, c.value.length]), c.value])),
  );
  const body = Buffer.alloc(10 + params.length);
  body[0] = o.version ?? 4;
  body.writeUInt16BE(o.as > 0xffff ? 23456 : o.as, 1);
  body.writeUInt16BE(o.holdTime, 3);
  ipv4Bytes(o.id).copy(body, 5);
  body[9] = params.length;
  params.copy(body, 10);
  return message(TYPE.OPEN, body);
}

export const CAP = {
  MP: 1,
  ROUTE_REFRESH: 2,
  AS4: 65,
  ADD_PATH: 69,
} as const;

export function mpCap(afi: number): { code: number; value: Buffer } {
  return { code: CAP.MP, value: Buffer.from([afi >> 8, afi & 0xff, 0, 1]) };
}

export function as4Cap(as: number): { code: number; value: Buffer } {
  const v = Buffer.alloc(4);
  v.writeUInt32BE(as);
  return { code: CAP.AS4, value: v };
}

/** RFC 7911: send (2) for each AFI given, unicast. */
export function addPathSendCap(afis: readonly number[]): { code: number; value: Buffer } {
  return { code: CAP.ADD_PATH, value: Buffer.from(afis.flatMap((a) => [a >> 8, a & 0xff, 1, 2])) };
}

export interface Attr {
  /** Offset of the flags octet in the message. */
  readonly at: number;
  readonly flags: number;
  readonly code: number;
  /** Offset of the value and its length. */
  readonly valueAt: number;
  readonly length: number;
  /** Offset just past the value. */
  readonly end: number;
}

export interface UpdateLayout {
  readonly withdrawnAt: number;
  readonly withdrawnLength: number;
  /** Offset of the Total Path Attribute Length field. */
  readonly attrsLengthAt: number;
  readonly attrsAt: number;
  readonly attrsLength: number;
  readonly attrs: readonly Attr[];
  readonly nlriAt: number;
}

/** The layout of a well-formed UPDATE (as the fixtures are); undefined when it does not parse. */
export function layoutOf(m: Buffer): UpdateLayout | undefined {
  if (m.length < MIN_UPDATE || m[18] !== TYPE.UPDATE) return undefined;
  const withdrawnLength = m.readUInt16BE(HEADER);
  const attrsLengthAt = HEADER + 2 + withdrawnLength;
  if (attrsLengthAt + 2 > m.length) return undefined;
  const attrsLength = m.readUInt16BE(attrsLengthAt);
  const attrsAt = attrsLengthAt + 2;
  const nlriAt = attrsAt + attrsLength;
  if (nlriAt > m.length) return undefined;
  const attrs: Attr[] = [];
  for (let p = attrsAt; p < nlriAt; ) {
    if (p + 3 > nlriAt) return undefined;
    const flags = m[p]!;
    const ext = (flags & FLAG.EXTENDED) !== 0;
    const valueAt = p + (ext ? 4 : 3);
    if (valueAt > nlriAt) return undefined;
    const length = ext ? m.readUInt16BE(p + 2) : m[p + 2]!;
    if (valueAt + length > nlriAt) return undefined;
    attrs.push({ at: p, flags, code: m[p + 1]!, valueAt, length, end: valueAt + length });
    p = valueAt + length;
  }
  return { withdrawnAt: HEADER + 2, withdrawnLength, attrsLengthAt, attrsAt, attrsLength, attrs, nlriAt };
}

/** A route as the speaker's `show received` keys it: prefix and, with ADD-PATH, path id. */
export interface RouteKey {
  readonly prefix: string;
  readonly pathId?: number;
}

function prefixText(afi: number, bytes: Buffer, len: number): string {
  if (afi === 1) {
    const a = [0, 0, 0, 0].map((_, i) => bytes[i] ?? 0);
    return `${a.join('.')}/${len}`;
  }
  const words: string[] = [];
  for (let i = 0; i < 16; i += 2) words.push((((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0)).toString(16));
  // Compress the longest run of zero words, as the speaker prints addresses.
  let best = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (words[i] !== '0') {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && words[j] === '0') j++;
    if (j - i > bestLen && j - i > 1) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  const text =
    best < 0
      ? words.join(':')
      : `${words.slice(0, best).join(':')}::${words.slice(best + bestLen).join(':')}`;
  return `${text}/${len}`;
}

/** Prefixes in an NLRI-encoded range; undefined when the range is not well formed. */
export function prefixesIn(
  m: Buffer,
  from: number,
  to: number,
  afi: number,
  addPath: boolean,
): RouteKey[] | undefined {
  const out: RouteKey[] = [];
  const max = afi === 1 ? 32 : 128;
  for (let p = from; p < to; ) {
    let pathId: number | undefined;
    if (addPath) {
      if (p + 4 > to) return undefined;
      pathId = m.readUInt32BE(p);
      p += 4;
    }
    const len = m[p];
    if (len === undefined || len > max) return undefined;
    const n = Math.ceil(len / 8);
    if (p + 1 + n > to) return undefined;
    const bytes = Buffer.alloc(16);
    m.copy(bytes, 0, p + 1, p + 1 + n);
    out.push(
      pathId === undefined
        ? { prefix: prefixText(afi, bytes, len) }
        : { prefix: prefixText(afi, bytes, len), pathId },
    );
    p += 1 + n;
  }
  return out;
}

/** What an UPDATE announces, in the IPv4 NLRI field and in MP_REACH_NLRI; undefined when unparsable. */
export function announced(
  m: Buffer,
  l: UpdateLayout,
  addPath: { v4: boolean; v6: boolean },
): RouteKey[] | undefined {
  const v4 = prefixesIn(m, l.nlriAt, m.length, 1, addPath.v4);
  if (!v4) return undefined;
  const out = [...v4];
  for (const a of l.attrs) {
    if (a.code !== ATTR.MP_REACH) continue;
    const afi = m.readUInt16BE(a.valueAt);
    const nhLen = m[a.valueAt + 3]!;
    const nlriAt = a.valueAt + 4 + nhLen + 1;
    const mp = prefixesIn(m, nlriAt, a.end, afi, afi === 1 ? addPath.v4 : addPath.v6);
    if (!mp) return undefined;
    out.push(...mp);
  }
  return out;
}

/** The AFI an MP_REACH_NLRI in this UPDATE carries, if any. */
export function mpReachAfi(m: Buffer, l: UpdateLayout): number | undefined {
  const a = l.attrs.find((x) => x.code === ATTR.MP_REACH);
  return a ? m.readUInt16BE(a.valueAt) : undefined;
}

/**
 * A valid UPDATE announcing `prefix` (IPv4 /32) from `as`: how a case proves the session still
 * takes routes once the mutated message was read.
 */
export function probeUpdate(o: {
  prefix: string;
  as: number;
  as4: boolean;
  nextHop: string;
  addPath: boolean;
  withdraw?: string;
}): Buffer {
  const asBytes = o.as4 ? Buffer.alloc(4) : Buffer.alloc(2);
  if (o.as4) asBytes.writeUInt32BE(o.as);
  else asBytes.writeUInt16BE(o.as > 0xffff ? 23456 : o.as);
  const attrs = Buffer.concat([
    Buffer.from([FLAG.TRANSITIVE, ATTR.ORIGIN, 1, 0]),
    Buffer.from([FLAG.TRANSITIVE, ATTR.AS_PATH, 2 + asBytes.length, 2, 1]),
    asBytes,
    Buffer.from([FLAG.TRANSITIVE, ATTR.NEXT_HOP, 4]),
    ipv4Bytes(o.nextHop),
  ]);
  const route = (p: string) => {
    const [addr, len] = p.split('/');
    const bits = Number(len);
    const pid = o.addPath ? Buffer.from([0, 0, 0, 1]) : Buffer.alloc(0);
    return Buffer.concat([pid, Buffer.from([bits]), ipv4Bytes(addr!).subarray(0, Math.ceil(bits / 8))]);
  };
  const withdrawn = o.withdraw ? route(o.withdraw) : Buffer.alloc(0);
  const body = Buffer.concat([u16(withdrawn.length), withdrawn, u16(attrs.length), attrs, route(o.prefix)]);
  return message(TYPE.UPDATE, body);
}

export function u16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
}

export type Frame = { readonly type: number; readonly body: Buffer } | { readonly malformed: string };

/**
 * Splits what the speaker sent into messages and checks each header by RFC 4271 4.1 alone:
 * a frame the speaker should never have sent comes back as `malformed`.
 */
export class FrameReader {
  #buf: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): Frame[] {
    this.#buf = this.#buf.length ? Buffer.concat([this.#buf, chunk]) : chunk;
    const out: Frame[] = [];
    while (this.#buf.length >= HEADER) {
      const b = this.#buf;
      for (let i = 0; i < 16; i++) {
        if (b[i] !== 0xff) {
          this.#buf = Buffer.alloc(0);
          out.push({ malformed: `marker octet ${i} is ${b[i]}` });
          return out;
        }
      }
      const len = b.readUInt16BE(16);
      const type = b[18]!;
      if (len < HEADER || len > MAX_MESSAGE || type < 1 || type > 5) {
        this.#buf = Buffer.alloc(0);
        out.push({ malformed: `header length ${len} type ${type}` });
        return out;
      }
      if (b.length < len) break;
      const body = b.subarray(HEADER, len);
      this.#buf = b.subarray(len);
      if (type === TYPE.NOTIFICATION && body.length < 2) out.push({ malformed: 'NOTIFICATION without code' });
      // Error codes 1-6 (RFC 4271 4.5) and 7, ROUTE-REFRESH Message Error (RFC 7313).
      else if (type === TYPE.NOTIFICATION && (body[0]! < 1 || body[0]! > 7))
        out.push({ malformed: `NOTIFICATION with error code ${body[0]}` });
      else if (type === TYPE.OPEN && (body.length < 10 || body[0] !== 4))
        out.push({ malformed: `OPEN of ${body.length} octets, version ${body[0]}` });
      else if (type === TYPE.KEEPALIVE && body.length !== 0) out.push({ malformed: 'KEEPALIVE with a body' });
      else out.push({ type, body: Buffer.from(body) });
    }
    return out;
  }
}
