import { formatIpv4 } from '../../../address/index.js';
import {
  AttrFlag,
  AttrType,
  EXT_COMMUNITY_BYTES,
  IPV6_EXT_COMMUNITY_BYTES,
  LARGE_COMMUNITY_FIELDS,
  Origin,
  UpdateSubcode,
} from '../constants.js';
import { isMartianV4 } from '../next-hop-checks.js';
import { effectiveAsPath, mergeAs4Aggregator, prependAs, withoutConfed } from './as-path.js';
import { extHi, extLo, formatCommunity, formatExtCommunity, formatLargeCommunity } from './community-text.js';
import type { AttrDescriptor } from './descriptor.js';
import { transitiveOnly } from './ext-community-scope.js';
import {
  aggregatorAttr,
  bytesListAttr,
  formatAggregator,
  OPTIONAL_NON_TRANSITIVE,
  OPTIONAL_TRANSITIVE,
  pathAttr,
  u32,
  u32Attr,
  u32ListAttr,
  WELL_KNOWN,
} from './row-kinds.js';
import { type MutableAttributes, makeAttributes, type PathAttributes, type RawAttribute } from './types.js';

export type { AttrDescriptor, AttrExportContext } from './descriptor.js';

const S = UpdateSubcode;

/** `show`'s names of the ORIGIN values (RFC 4271 section 5.1.1), as FRR prints them. */
export type OriginText = 'igp' | 'egp' | 'incomplete';
const ORIGIN_TEXT: Readonly<Record<number, OriginText>> = {
  [Origin.IGP]: 'igp',
  [Origin.EGP]: 'egp',
  [Origin.INCOMPLETE]: 'incomplete',
};

/** An ORIGIN value as `show` names it; one we do not know is "incomplete", the least preferred. */
export function originText(origin: number): OriginText {
  return ORIGIN_TEXT[origin] ?? 'incomplete';
}

/** AS4_PATH and AS4_AGGREGATOR are never passed on: the encoder writes them from AS_PATH and AGGREGATOR, which carry the merged values (RFC 6793 section 4.2.2). */
const NOT_SENT = (): void => {};
const numberText = (v: number | undefined): readonly string[] => (v === undefined ? [] : [String(v)]);

function listText(bytes: Uint8Array | undefined, unit: number, text: (b: Uint8Array, at: number) => string) {
  const out: string[] = [];
  if (!bytes) return out;
  for (let at = 0; at + unit <= bytes.length; at += unit) out.push(text(bytes, at));
  return out;
}

/** RFC 5701 IPv6 address specific extended communities have no keywords: hex per community. */
function hexText(b: Uint8Array, at: number): string {
  let s = '0x';
  for (let i = at; i < at + IPV6_EXT_COMMUNITY_BYTES; i++) s += b[i].toString(16).padStart(2, '0');
  return s;
}

export const ATTRS: readonly AttrDescriptor[] = [
  {
    code: AttrType.ORIGIN,
    name: 'ORIGIN',
    field: 'origin',
    flags: WELL_KNOWN,
    onMalformed: 'treat-as-withdraw', // RFC 7606 section 7.1
    subcode: S.INVALID_ORIGIN_ATTRIBUTE,
    lazy: true, // WireAttributes reads it from the bytes
    check: (buf, pos, end) => end - pos === 1 && buf[pos] <= Origin.INCOMPLETE,
    decode(buf, pos, _end, a) {
      a.origin = buf[pos];
    },
    has: (a) => a.origin !== undefined,
    encode: (w, a) => void w.u8(a.origin!),
    // RFC 4271 section 5.1.1: well-known mandatory; a local route without one is IGP.
    export(a, _x, out) {
      out.origin = a.origin ?? Origin.IGP;
    },
    format: (a) => (a.origin === undefined ? [] : [originText(a.origin)]),
  },
  pathAttr(AttrType.AS_PATH, 'AS_PATH', 'asPath', false, {
    // RFC 4271 section 5.1.2: our AS leftmost towards eBGP, confederation segments gone
    // (RFC 5065 section 5.3); unchanged towards iBGP. A 2-octet speaker's AS4_PATH merged first.
    export(a, x, out) {
      const path = effectiveAsPath(a);
      out.asPath = x.ebgp ? prependAs(withoutConfed(path), x.localAs) : path;
    },
  }),
  {
    code: AttrType.NEXT_HOP,
    name: 'NEXT_HOP',
    field: 'nextHop',
    flags: WELL_KNOWN,
    onMalformed: 'treat-as-withdraw', // RFC 7606 section 7.3
    subcode: S.INVALID_NEXT_HOP_ATTRIBUTE,
    lazy: false,
    check: (buf, pos, end) => end - pos === 4 && !isMartianV4(u32(buf, pos)),
    decode(buf, pos, _end, a) {
      a.nextHop = u32(buf, pos);
    },
    has: (a) => a.nextHop !== undefined,
    encode: (w, a) => void w.u32(a.nextHop!),
    // RFC 4271 section 5.1.3: the caller chose it from the session; an IPv6 one (and an IPv4
    // route's over RFC 8950) goes in MP_REACH_NLRI.
    export(_a, x, out) {
      if (typeof x.nextHop === 'number') out.nextHop = x.nextHop;
      else out.mpReach = x.nextHop;
    },
    format: (a) => (a.nextHop === undefined ? [] : [formatIpv4(a.nextHop)]),
  },
  u32Attr(
    AttrType.MULTI_EXIT_DISC,
    'MULTI_EXIT_DISC',
    'med',
    OPTIONAL_NON_TRANSITIVE,
    S.ATTRIBUTE_LENGTH_ERROR,
    true, // WireAttributes reads it from the bytes
    {
      // RFC 4271 section 5.1.4: a MED learned from another AS is not passed to a third one.
      export(a, x, out) {
        if (a.med !== undefined && (!x.ebgp || !x.fromEbgp || x.medUnchanged)) out.med = a.med;
      },
      format: (a) => numberText(a.med),
    },
  ),
  // From an eBGP peer LOCAL_PREF is discarded by the caller (RFC 7606 section 7.5), as are
  // ORIGINATOR_ID and CLUSTER_LIST (7.9, 7.10).
  // WireAttributes reads it from the bytes (lazy).
  u32Attr(AttrType.LOCAL_PREF, 'LOCAL_PREF', 'localPref', WELL_KNOWN, S.ATTRIBUTE_LENGTH_ERROR, true, {
    // RFC 4271 section 5.1.5: sent to internal peers only, the default when the route has none.
    export(a, x, out) {
      if (!x.ebgp) out.localPref = a.localPref ?? x.defaultLocalPref;
    },
    format: (a) => numberText(a.localPref),
  }),
  {
    code: AttrType.ATOMIC_AGGREGATE,
    name: 'ATOMIC_AGGREGATE',
    field: 'atomicAggregate',
    flags: WELL_KNOWN,
    onMalformed: 'attribute-discard', // RFC 7606 section 7.6
    subcode: S.ATTRIBUTE_LENGTH_ERROR,
    lazy: true, // WireAttributes reads it from its presence bits
    check: (_buf, pos, end) => end === pos,
    decode(_buf, _pos, _end, a) {
      a.atomicAggregate = true;
    },
    has: (a) => a.atomicAggregate === true,
    encode: () => {},
    // RFC 4271 section 5.1.6: kept by whoever passes the route on.
    export(a, _x, out) {
      if (a.atomicAggregate) out.atomicAggregate = true;
    },
    format: (a) => (a.atomicAggregate ? ['atomic-aggregate'] : []),
  },
  aggregatorAttr(AttrType.AGGREGATOR, 'AGGREGATOR', 'aggregator', false, {
    // RFC 6793 section 4.2.3: a 2-octet speaker's AS4_AGGREGATOR stands for AS_TRANS.
    export(a, _x, out) {
      const aggregator = mergeAs4Aggregator(a.aggregator, a.as4Aggregator);
      if (aggregator) out.aggregator = aggregator;
    },
    format: (a) => formatAggregator(a.aggregator),
  }),
  u32ListAttr(AttrType.COMMUNITIES, 'COMMUNITIES', 'communities', OPTIONAL_TRANSITIVE, 4, {
    // RFC 1997: passed on; NO_EXPORT and NO_ADVERTISE stop the route itself (the RIB's rule).
    export(a, _x, out) {
      if (a.communities) out.communities = a.communities;
    },
    format: (a) => (a.communities ?? []).map(formatCommunity),
  }),
  u32Attr(
    AttrType.ORIGINATOR_ID,
    'ORIGINATOR_ID',
    'originatorId',
    OPTIONAL_NON_TRANSITIVE,
    S.OPTIONAL_ATTRIBUTE_ERROR,
    true, // read by the decision process only in its last steps
    {
      // RFC 4456 section 8: set by the reflector when absent; never leaves the AS.
      export(a, x, out) {
        if (x.reflecting) out.originatorId = a.originatorId ?? x.sourceRouterId;
      },
      format: (a) => (a.originatorId === undefined ? [] : [formatIpv4(a.originatorId)]),
    },
  ),
  u32ListAttr(AttrType.CLUSTER_LIST, 'CLUSTER_LIST', 'clusterList', OPTIONAL_NON_TRANSITIVE, 4, {
    // RFC 4456 section 8: the reflector prepends its CLUSTER_ID; never leaves the AS.
    export(a, x, out) {
      if (x.reflecting) out.clusterList = [x.clusterId, ...(a.clusterList ?? [])];
    },
    format: (a) => (a.clusterList ?? []).map(formatIpv4),
  }),
  bytesListAttr(
    AttrType.EXTENDED_COMMUNITIES,
    'EXTENDED_COMMUNITIES',
    'extCommunities',
    EXT_COMMUNITY_BYTES,
    {
      // RFC 4360 section 6: non-transitive extended communities stay inside the AS.
      export(a, x, out) {
        const ext = x.ebgp ? transitiveOnly(a.extCommunities, EXT_COMMUNITY_BYTES) : a.extCommunities;
        if (ext) out.extCommunities = ext;
      },
      leavingAs: (a) => transitiveOnly(a.extCommunities, EXT_COMMUNITY_BYTES),
      format: (a) =>
        listText(a.extCommunities, EXT_COMMUNITY_BYTES, (b, at) =>
          formatExtCommunity(extHi(b, at), extLo(b, at)),
        ),
    },
  ),
  pathAttr(AttrType.AS4_PATH, 'AS4_PATH', 'as4Path', true, { export: NOT_SENT }),
  aggregatorAttr(AttrType.AS4_AGGREGATOR, 'AS4_AGGREGATOR', 'as4Aggregator', true, {
    export: NOT_SENT,
    format: (a) => formatAggregator(a.as4Aggregator),
  }),
  bytesListAttr(
    AttrType.IPV6_EXTENDED_COMMUNITIES,
    'IPV6_EXTENDED_COMMUNITIES',
    'ipv6ExtCommunities',
    IPV6_EXT_COMMUNITY_BYTES,
    {
      // RFC 5701 section 2: the same transitive bit as RFC 4360, the same rule.
      export(a, x, out) {
        const ext6 = x.ebgp
          ? transitiveOnly(a.ipv6ExtCommunities, IPV6_EXT_COMMUNITY_BYTES)
          : a.ipv6ExtCommunities;
        if (ext6) out.ipv6ExtCommunities = ext6;
      },
      leavingAs: (a) => transitiveOnly(a.ipv6ExtCommunities, IPV6_EXT_COMMUNITY_BYTES),
      format: (a) => listText(a.ipv6ExtCommunities, IPV6_EXT_COMMUNITY_BYTES, hexText),
    },
  ),
  u32ListAttr(AttrType.LARGE_COMMUNITY, 'LARGE_COMMUNITY', 'largeCommunities', OPTIONAL_TRANSITIVE, 12, {
    // RFC 8092 section 5: optional transitive, passed on as it is.
    export(a, _x, out) {
      if (a.largeCommunities) out.largeCommunities = a.largeCommunities;
    },
    format(a) {
      const flat = a.largeCommunities;
      const out: string[] = [];
      if (!flat) return out;
      for (let i = 0; i + LARGE_COMMUNITY_FIELDS <= flat.length; i += LARGE_COMMUNITY_FIELDS)
        out.push(formatLargeCommunity(flat[i], flat[i + 1], flat[i + 2]));
      return out;
    },
  }),
];

/** Descriptors by type code; undefined for attributes we do not interpret. */
export const ATTR_BY_CODE: readonly (AttrDescriptor | undefined)[] = (() => {
  const t = new Array<AttrDescriptor | undefined>(256).fill(undefined);
  for (const d of ATTRS) t[d.code] = d;
  return t;
})();

/** The rows whose lists hold members that may not leave the AS. */
const SCOPED = ATTRS.filter((d) => d.leavingAs !== undefined);

/** An attribute's value as `show` prints it (the row's `format`); none for one we do not interpret. */
export function formatAttribute(code: number, a: PathAttributes): readonly string[] {
  return ATTR_BY_CODE[code]?.format(a) ?? [];
}

/**
 * RFC 4271 section 5: attributes without a row that are optional transitive go on with
 * Partial set; the others stop here. Undefined when none goes on.
 */
export function exportUnknown(unknown: readonly RawAttribute[] | undefined): RawAttribute[] | undefined {
  if (!unknown) return undefined;
  const out: RawAttribute[] = [];
  for (const u of unknown) {
    const transitive = AttrFlag.OPTIONAL | AttrFlag.TRANSITIVE;
    if ((u.flags & transitive) === transitive)
      out.push({ type: u.type, flags: u.flags | AttrFlag.PARTIAL, value: u.value });
  }
  return out.length ? out : undefined;
}

/**
 * The attributes as they may leave the AS: the members each scoped row keeps inside it removed
 * (RFC 4360 section 6, RFC 5701). `a` itself when it has none, so a cache can key on it.
 */
export function attributesLeavingAs(a: PathAttributes): PathAttributes {
  let out: MutableAttributes | null = null;
  for (const d of SCOPED) {
    const value = a[d.field] as Uint8Array | undefined;
    const kept = d.leavingAs!(a);
    if (kept === value) continue;
    // makeAttributes first: a spread alone would drop a wire-backed set's lazily decoded fields.
    out ??= { ...makeAttributes(a) };
    (out as Record<string, unknown>)[d.field] = kept;
  }
  return out ? makeAttributes(out) : a;
}
