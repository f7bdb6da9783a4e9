import { addressBytes, parseIpv4 } from '../address/index.js';
import {
  Afi,
  type AfiCode,
  type AsPathSegment,
  AsPathSegmentType,
  makeAttributes,
  mergeAs4Aggregator,
  mergeAs4Path,
  type PathAttributes,
  Safi,
} from '../bgp/wire/index.js';
import {
  type CommunityPattern,
  type CompiledCommunityList,
  type CompiledLargeCommunityList,
  communityMatches,
  type LargeCommunityPattern,
  largeCommunityMatches,
  parseCommunity,
  parseCommunityPattern,
  parseLargeCommunity,
  parseLargeCommunityPattern,
} from './communities.js';
import { LARGE_COMMUNITY_FIELDS, MAX_PREPEND_COUNT, MAX_SEGMENT_ASNS, U32_MAX } from './constants.js';
import { checkInteger, PolicyError } from './errors.js';
import {
  applyExtCommunities,
  type CompiledExtCommunityList,
  type ExtCommunityOps,
  parseExtCommunity,
  parseExtCommunityPattern,
} from './ext-communities.js';
import type { CommunitySetModel, SetModel } from './model.js';

/**
 * What the sender of the route does with the next hop: its own rules ("default": RFC 4271
 * section 5.1.3), our address ("self"), or the next hop the attributes carry, even towards eBGP
 * ("unchanged": the route's own, or the address a statement set for the route's family).
 */
export type NextHopDirective = 'default' | 'self' | 'unchanged';

/** Community changes: P a pattern, V a value, L the list type `deleteList` names. */
interface CommunityOps<P, V, L> {
  /** Replacement for all (null: keep). */
  readonly set: readonly V[] | null;
  readonly remove: readonly P[];
  readonly deleteList: L | null;
  readonly add: readonly V[];
}

type LargeCommunity = readonly [number, number, number];

type NextHopSet =
  | { readonly kind: 'directive'; readonly directive: NextHopDirective }
  | { readonly kind: 'address'; readonly afi: AfiCode; readonly ipv4: number; readonly ipv6: Uint8Array };

/** A statement's set clause, checked and parsed. */
export interface CompiledSets {
  readonly localPref: number | null;
  readonly med: { readonly mode: 'set' | 'add' | 'subtract'; readonly value: number } | null;
  readonly communities: CommunityOps<CommunityPattern, number, CompiledCommunityList> | null;
  readonly largeCommunities: CommunityOps<
    LargeCommunityPattern,
    LargeCommunity,
    CompiledLargeCommunityList
  > | null;
  readonly extCommunities: ExtCommunityOps | null;
  readonly prepend: { readonly asn: number; readonly count: number } | null;
  readonly nextHop: NextHopSet | null;
}

/** The lists a set clause may name. */
export interface SetListLookup {
  communityList(name: string, path: string): CompiledCommunityList;
  largeCommunityList(name: string, path: string): CompiledLargeCommunityList;
  extendedCommunityList(name: string, path: string): CompiledExtCommunityList;
}

/** Parses a set clause; null when it sets nothing. */
export function compileSets(
  model: SetModel | undefined,
  lists: SetListLookup,
  localAs: number | undefined,
  path: string,
): CompiledSets | null {
  if (model === undefined) return null;
  if (!model || typeof model !== 'object')
    throw new PolicyError('invalid-value', path, 'expected a set clause');
  const sets: CompiledSets = {
    localPref:
      model.localPref === undefined ? null : checkInteger(model.localPref, 0, U32_MAX, `${path}.localPref`),
    med: model.med === undefined ? null : compileMed(model.med, `${path}.med`),
    communities:
      model.communities === undefined
        ? null
        : compileOps(
            model.communities,
            `${path}.communities`,
            parseCommunityPattern,
            parseCommunity,
            (n, p) => lists.communityList(n, p),
          ),
    largeCommunities:
      model.largeCommunities === undefined
        ? null
        : compileOps(
            model.largeCommunities,
            `${path}.largeCommunities`,
            parseLargeCommunityPattern,
            parseLargeCommunity,
            (n, p) => lists.largeCommunityList(n, p),
          ),
    extCommunities:
      model.extendedCommunities === undefined
        ? null
        : compileOps(
            model.extendedCommunities,
            `${path}.extendedCommunities`,
            parseExtCommunityPattern,
            parseExtCommunity,
            (n, p) => lists.extendedCommunityList(n, p),
          ),
    prepend: model.asPathPrepend === undefined ? null : compilePrepend(model.asPathPrepend, localAs, path),
    nextHop: model.nextHop === undefined ? null : compileNextHop(model.nextHop, `${path}.nextHop`),
  };
  const any = Object.values(sets).some((v) => v !== null);
  return any ? sets : null;
}

function compileMed(med: number | string, path: string): NonNullable<CompiledSets['med']> {
  if (typeof med === 'number') return { mode: 'set', value: checkInteger(med, 0, U32_MAX, path) };
  const m = typeof med === 'string' ? /^([+-])(\d{1,10})$/.exec(med) : null;
  if (!m) throw new PolicyError('invalid-value', path, `expected a number, "+n" or "-n", got ${String(med)}`);
  const value = checkInteger(Number(m[2]), 0, U32_MAX, path);
  return { mode: m[1] === '+' ? 'add' : 'subtract', value };
}

function compileOps<P, V, L>(
  model: CommunitySetModel,
  path: string,
  pattern: (text: string, path: string) => P,
  value: (text: string, path: string) => V,
  list: (name: string, path: string) => L,
): CommunityOps<P, V, L> {
  if (!model || typeof model !== 'object')
    throw new PolicyError('invalid-value', path, 'expected add/remove/set');
  const many = <T>(
    items: readonly string[] | undefined,
    field: string,
    parse: (t: string, p: string) => T,
  ) => {
    if (items === undefined) return [];
    if (!Array.isArray(items)) throw new PolicyError('invalid-value', `${path}.${field}`, 'expected a list');
    return items.map((t, i) => parse(t, `${path}.${field}[${i}]`));
  };
  return {
    set: model.set === undefined ? null : many(model.set, 'set', value),
    remove: many(model.remove, 'remove', pattern),
    deleteList: model.deleteList === undefined ? null : list(model.deleteList, `${path}.deleteList`),
    add: many(model.add, 'add', value),
  };
}

function compilePrepend(
  model: NonNullable<SetModel['asPathPrepend']>,
  localAs: number | undefined,
  path: string,
): NonNullable<CompiledSets['prepend']> {
  const at = `${path}.asPathPrepend`;
  if (!model || typeof model !== 'object')
    throw new PolicyError('invalid-value', at, 'expected {as?, count}');
  const count = checkInteger(model.count, 1, MAX_PREPEND_COUNT, `${at}.count`);
  if (model.as === undefined && localAs === undefined)
    throw new PolicyError('invalid-value', `${at}.as`, 'no AS given and no local AS known to prepend');
  const asn = checkInteger(model.as ?? localAs, 0, U32_MAX, `${at}.as`);
  return { asn, count };
}

function compileNextHop(text: string, path: string): NextHopSet {
  if (text === 'self' || text === 'unchanged') return { kind: 'directive', directive: text };
  if (typeof text !== 'string')
    throw new PolicyError('invalid-value', path, 'expected self, unchanged or an address');
  try {
    if (text.includes(':')) return { kind: 'address', afi: Afi.IPV6, ipv4: 0, ipv6: addressBytes(text) };
    return { kind: 'address', afi: Afi.IPV4, ipv4: parseIpv4(text), ipv6: new Uint8Array(0) };
  } catch {
    throw new PolicyError('invalid-value', path, `expected self, unchanged or an address, got ${text}`);
  }
}

/** Does the set clause put an address of the route's family in its next hop? */
export function setsNextHop(sets: CompiledSets | null, afi: AfiCode): boolean {
  return sets?.nextHop?.kind === 'address' && sets.nextHop.afi === afi;
}

/** The directive a set clause gives, or null when it gives none. */
export function nextHopDirective(sets: CompiledSets): NextHopDirective | null {
  return sets.nextHop?.kind === 'directive' ? sets.nextHop.directive : null;
}

/**
 * The attributes after the set clause, for a route of family `afi`: a new object built by
 * makeAttributes, or `attrs` itself when nothing changes. Never writes to `attrs`.
 */
export function applySets(sets: CompiledSets, attrs: PathAttributes, afi: AfiCode): PathAttributes {
  const nh = sets.nextHop?.kind === 'address' && sets.nextHop.afi === afi ? sets.nextHop : null;
  const changes =
    sets.localPref !== null ||
    sets.med !== null ||
    sets.communities !== null ||
    sets.largeCommunities !== null ||
    sets.extCommunities !== null ||
    sets.prepend !== null ||
    nh !== null;
  if (!changes) return attrs;
  const out = makeAttributes(attrs);
  if (sets.localPref !== null) out.localPref = sets.localPref;
  if (sets.med !== null) out.med = adjust(sets.med, attrs.med);
  if (sets.communities !== null) out.communities = applyCommunities(sets.communities, attrs.communities);
  if (sets.largeCommunities !== null)
    out.largeCommunities = applyLarge(sets.largeCommunities, attrs.largeCommunities);
  if (sets.extCommunities !== null)
    out.extCommunities = applyExtCommunities(sets.extCommunities, attrs.extCommunities);
  if (sets.prepend !== null) prepend(out, sets.prepend.asn, sets.prepend.count);
  if (nh !== null) {
    if (afi === Afi.IPV4) out.nextHop = nh.ipv4;
    else {
      const mp = attrs.mpReach;
      out.mpReach = {
        afi: Afi.IPV6,
        safi: mp?.safi ?? Safi.UNICAST,
        nextHop: nh.ipv6,
        reserved: mp?.reserved ?? 0,
      };
    }
  }
  return out;
}

function adjust(med: NonNullable<CompiledSets['med']>, current: number | undefined): number {
  if (med.mode === 'set') return med.value;
  // FRR's route_value_adjust: an absent MED counts as 0; the result stays within 0..2^32-1.
  const base = current ?? 0;
  return med.mode === 'add' ? Math.min(U32_MAX, base + med.value) : Math.max(0, base - med.value);
}

function applyCommunities(
  ops: NonNullable<CompiledSets['communities']>,
  current: readonly number[] | undefined,
): readonly number[] | undefined {
  let list: number[] = [...(ops.set ?? current ?? [])];
  if (ops.remove.length) list = list.filter((c) => !ops.remove.some((p) => communityMatches(p, c)));
  const del = ops.deleteList;
  if (del) list = list.filter((c) => !del.deletes(c));
  for (const c of ops.add) if (!list.includes(c)) list.push(c);
  return list.length ? list : undefined;
}

function applyLarge(
  ops: NonNullable<CompiledSets['largeCommunities']>,
  current: readonly number[] | undefined,
): readonly number[] | undefined {
  const src = ops.set ? ops.set.flat() : (current ?? []);
  const del = ops.deleteList;
  const list: number[] = [];
  for (let at = 0; at + LARGE_COMMUNITY_FIELDS <= src.length; at += LARGE_COMMUNITY_FIELDS) {
    if (ops.remove.some((p) => largeCommunityMatches(p, src, at))) continue;
    if (del?.deletes(src, at)) continue;
    list.push(src[at], src[at + 1], src[at + 2]);
  }
  for (const [g, l1, l2] of ops.add) {
    let present = false;
    for (let at = 0; at < list.length && !present; at += LARGE_COMMUNITY_FIELDS)
      present = list[at] === g && list[at + 1] === l1 && list[at + 2] === l2;
    if (!present) list.push(g, l1, l2);
  }
  return list.length ? list : undefined;
}

/**
 * `count` copies of `asn` in front of the path. A path from a 2-octet speaker is merged with its
 * AS4_PATH first (RFC 6793 section 4.2.3) so the prepended ASNs land in the one path that counts.
 */
function prepend(out: PathAttributes, asn: number, count: number): void {
  let path: readonly AsPathSegment[] = out.asPath ?? [];
  if (out.as4Path) {
    path = mergeAs4Path(path, out.as4Path, out.aggregator);
    out.aggregator = mergeAs4Aggregator(out.aggregator, out.as4Aggregator);
    out.as4Path = undefined;
    out.as4Aggregator = undefined;
  }
  const added: number[] = new Array(count).fill(asn);
  const first = path[0];
  if (
    first &&
    first.type === AsPathSegmentType.AS_SEQUENCE &&
    first.asns.length + count <= MAX_SEGMENT_ASNS
  ) {
    out.asPath = [{ type: first.type, asns: [...added, ...first.asns] }, ...path.slice(1)];
  } else {
    out.asPath = [{ type: AsPathSegmentType.AS_SEQUENCE, asns: added }, ...path];
  }
}
