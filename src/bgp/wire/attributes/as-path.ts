import { AS_TRANS, AsPathSegmentType, MAX_SEGMENT_ASNS } from '../constants.js';
import type { Writer } from '../writer.js';
import type { Aggregator, AsPathSegment, PathAttributes } from './types.js';

/**
 * AS_PATH / AS4_PATH value: segments of (type u8, count u8, count x ASN of 2 or 4 octets).
 * Malformed per RFC 7606 section 7.2: an unknown segment type, a zero segment length, or a
 * segment that overruns the attribute. Checked without allocating.
 */
export function isValidAsPath(buf: Uint8Array, pos: number, end: number, asSize: 2 | 4): boolean {
  while (pos < end) {
    if (end - pos < 2) return false;
    const type = buf[pos];
    const count = buf[pos + 1];
    if (type < AsPathSegmentType.AS_SET || type > AsPathSegmentType.AS_CONFED_SET || count === 0)
      return false;
    pos += 2 + count * asSize;
  }
  return pos === end;
}

/** Decodes a value that isValidAsPath accepted. */
export function decodeAsPath(buf: Uint8Array, pos: number, end: number, asSize: 2 | 4): AsPathSegment[] {
  // Sized up front: a decoded path may be held as long as its set, and an array grown by
  // push keeps room for 17 segments where nearly every path has one.
  let n = 0;
  for (let p = pos; p < end; p += 2 + buf[p + 1] * asSize) n++;
  const segments = new Array<AsPathSegment>(n);
  for (let k = 0; pos < end; k++) {
    const type = buf[pos];
    const count = buf[pos + 1];
    pos += 2;
    const asns = new Array<number>(count);
    for (let i = 0; i < count; i++) {
      asns[i] =
        asSize === 4
          ? ((buf[pos] << 24) | (buf[pos + 1] << 16) | (buf[pos + 2] << 8) | buf[pos + 3]) >>> 0
          : (buf[pos] << 8) | buf[pos + 1];
      pos += asSize;
    }
    segments[k] = { type, asns };
  }
  return segments;
}

/**
 * What the decision process needs of a valid value, without decoding it: out[0] the path
 * length (asPathLength), out[1] the neighbor AS (the first AS of a leading AS_SEQUENCE past
 * confederation segments, else `localAs`), out[2] how often `localAs` occurs.
 */
export function asPathFactsRaw(
  buf: Uint8Array,
  pos: number,
  end: number,
  asSize: 2 | 4,
  localAs: number,
  out: Float64Array,
): void {
  let length = 0;
  let neighbor = -1;
  let own = 0;
  while (pos < end) {
    const type = buf[pos];
    const count = buf[pos + 1];
    pos += 2;
    const confed = type === AsPathSegmentType.AS_CONFED_SEQUENCE || type === AsPathSegmentType.AS_CONFED_SET;
    if (type === AsPathSegmentType.AS_SEQUENCE) length += count;
    else if (type === AsPathSegmentType.AS_SET) length += 1;
    for (let i = 0; i < count; i++) {
      const asn =
        asSize === 4
          ? ((buf[pos] << 24) | (buf[pos + 1] << 16) | (buf[pos + 2] << 8) | buf[pos + 3]) >>> 0
          : (buf[pos] << 8) | buf[pos + 1];
      if (i === 0 && neighbor < 0 && !confed)
        neighbor = type === AsPathSegmentType.AS_SEQUENCE ? asn : localAs;
      if (asn === localAs) own++;
      pos += asSize;
    }
  }
  out[0] = length;
  out[1] = neighbor < 0 ? localAs : neighbor;
  out[2] = own;
}

/** True if the (valid) value holds AS_CONFED_SEQUENCE or AS_CONFED_SET segments. */
export function hasConfedSegmentRaw(buf: Uint8Array, pos: number, end: number, asSize: 2 | 4): boolean {
  while (pos < end) {
    const type = buf[pos];
    if (type === AsPathSegmentType.AS_CONFED_SEQUENCE || type === AsPathSegmentType.AS_CONFED_SET)
      return true;
    pos += 2 + buf[pos + 1] * asSize;
  }
  return false;
}

/**
 * Writes segments with 2- or 4-octet ASNs. In 2-octet form an ASN above 65535 becomes AS_TRANS
 * (RFC 6793 section 4.2.2). Segments longer than 255 ASNs are split.
 */
export function encodeAsPath(w: Writer, segments: readonly AsPathSegment[], asSize: 2 | 4): void {
  for (const seg of segments) {
    for (let from = 0; from < seg.asns.length; from += 255) {
      const part = Math.min(255, seg.asns.length - from);
      w.u8(seg.type).u8(part);
      for (let i = from; i < from + part; i++) {
        const asn = seg.asns[i];
        if (asSize === 4) w.u32(asn);
        else w.u16(asn > 0xffff ? AS_TRANS : asn);
      }
    }
  }
}

export function asPathByteLength(segments: readonly AsPathSegment[], asSize: 2 | 4): number {
  let n = 0;
  for (const seg of segments) n += Math.ceil(seg.asns.length / 255) * 2 + seg.asns.length * asSize;
  return n;
}

/** Path length for the decision process: a SET counts 1, confederation segments 0 (RFC 4271 9.1.2.2 a, RFC 5065). */
export function asPathLength(segments: readonly AsPathSegment[] | undefined): number {
  if (!segments) return 0;
  let n = 0;
  for (const seg of segments) {
    if (seg.type === AsPathSegmentType.AS_SEQUENCE) n += seg.asns.length;
    else if (seg.type === AsPathSegmentType.AS_SET) n += 1;
  }
  return n;
}

export function hasConfedSegment(segments: readonly AsPathSegment[]): boolean {
  return segments.some(
    (s) => s.type === AsPathSegmentType.AS_CONFED_SEQUENCE || s.type === AsPathSegmentType.AS_CONFED_SET,
  );
}

/**
 * RFC 6793 section 4.2.3: the path a 2-octet speaker meant. If AGGREGATOR names an AS other
 * than AS_TRANS, AS4_PATH and AS4_AGGREGATOR are ignored; if AS_PATH is shorter than AS4_PATH,
 * AS4_PATH is ignored; otherwise the leading ASNs of AS_PATH that AS4_PATH lacks are put in
 * front of AS4_PATH.
 */
export function mergeAs4Path(
  asPath: readonly AsPathSegment[],
  as4Path: readonly AsPathSegment[] | undefined,
  aggregator?: Aggregator,
): readonly AsPathSegment[] {
  if (!as4Path) return asPath;
  if (aggregator && aggregator.as !== AS_TRANS) return asPath;
  const n2 = asPathLength(asPath);
  const n4 = asPathLength(as4Path);
  if (n2 < n4) return asPath;
  let keep = n2 - n4;
  const out: AsPathSegment[] = [];
  for (const seg of asPath) {
    // Confederation segments count as nothing and never appear in AS4_PATH: keep them.
    if (seg.type === AsPathSegmentType.AS_CONFED_SEQUENCE || seg.type === AsPathSegmentType.AS_CONFED_SET) {
      out.push(seg);
    } else if (keep === 0) {
      break;
    } else if (seg.type === AsPathSegmentType.AS_SEQUENCE) {
      const take = Math.min(keep, seg.asns.length);
      out.push({ type: seg.type, asns: seg.asns.slice(0, take) });
      keep -= take;
    } else {
      out.push(seg);
      keep -= 1;
    }
  }
  for (const seg of as4Path) {
    const last = out[out.length - 1];
    if (last && last.type === AsPathSegmentType.AS_SEQUENCE && seg.type === AsPathSegmentType.AS_SEQUENCE) {
      out[out.length - 1] = { type: last.type, asns: [...last.asns, ...seg.asns] };
    } else out.push(seg);
  }
  return out;
}

/** The path a route really has: AS_PATH with a 2-octet speaker's AS4_PATH merged in (RFC 6793 4.2.3). */
export function effectiveAsPath(a: PathAttributes): readonly AsPathSegment[] {
  const path = a.asPath ?? [];
  const as4 = a.as4Path;
  return as4 ? mergeAs4Path(path, as4, a.aggregator) : path;
}

/** RFC 4271 section 5.1.2: our AS leftmost, in the leading AS_SEQUENCE when it has room. */
export function prependAs(path: readonly AsPathSegment[], asn: number): AsPathSegment[] {
  const first = path[0];
  if (first && first.type === AsPathSegmentType.AS_SEQUENCE && first.asns.length < MAX_SEGMENT_ASNS) {
    return [{ type: first.type, asns: [asn, ...first.asns] }, ...path.slice(1)];
  }
  return [{ type: AsPathSegmentType.AS_SEQUENCE, asns: [asn] }, ...path];
}

/** RFC 5065 section 5.3: confederation segments are removed before leaving the confederation. */
export function withoutConfed(path: readonly AsPathSegment[]): readonly AsPathSegment[] {
  const keep = path.filter(
    (s) => s.type !== AsPathSegmentType.AS_CONFED_SEQUENCE && s.type !== AsPathSegmentType.AS_CONFED_SET,
  );
  return keep.length === path.length ? path : keep;
}

/**
 * RFC 6793 section 4.2.2: what a 2-octet peer must be sent beside an AS_PATH that holds
 * 4-octet ASes (written there as AS_TRANS) — the true path, less confederation segments.
 * Undefined when every AS fits in two octets.
 */
export function as4PathFor(segments: readonly AsPathSegment[] | undefined): AsPathSegment[] | undefined {
  if (!segments?.some((s) => s.asns.some((asn) => asn > 0xffff))) return undefined;
  return segments.filter(
    (s) => s.type === AsPathSegmentType.AS_SEQUENCE || s.type === AsPathSegmentType.AS_SET,
  ) as AsPathSegment[];
}

/** The effective aggregator per RFC 6793 section 4.2.3. */
export function mergeAs4Aggregator(
  aggregator?: Aggregator,
  as4Aggregator?: Aggregator,
): Aggregator | undefined {
  if (aggregator && as4Aggregator && aggregator.as === AS_TRANS) return as4Aggregator;
  return aggregator;
}

/**
 * "65001 65002 {65003,65004} (65005) [65006]" as vtysh and BIRD print paths: sequences spaced,
 * sets in {}, confederation sequences in (), confederation sets in []; an empty segment prints
 * nothing.
 */
export function formatAsPath(segments: readonly AsPathSegment[] | undefined): string {
  if (!segments) return '';
  return segments
    .map((s) => {
      const list = s.asns.join(
        s.type === AsPathSegmentType.AS_SEQUENCE || s.type === AsPathSegmentType.AS_CONFED_SEQUENCE
          ? ' '
          : ',',
      );
      switch (s.type) {
        case AsPathSegmentType.AS_SET:
          return `{${list}}`;
        case AsPathSegmentType.AS_CONFED_SEQUENCE:
          return `(${list})`;
        case AsPathSegmentType.AS_CONFED_SET:
          return `[${list}]`;
        default:
          return list;
      }
    })
    .filter((t) => t !== '')
    .join(' ');
}
