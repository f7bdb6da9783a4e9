import {
  COMMUNITY_ALIASES,
  COMMUNITY_HALF_BITS,
  COMMUNITY_HALF_MAX,
  LARGE_COMMUNITY_FIELDS,
  U32_MAX,
  WellKnownCommunity,
} from './constants.js';
import { checkOneOf, PolicyError } from './errors.js';
import type { CommunityListModel, LargeCommunityListModel } from './model.js';

/** Matches a standard community c when (c & mask) === value. */
export interface CommunityPattern {
  readonly value: number;
  readonly mask: number;
}

const WILDCARD = '*';
const LOW_HALF = COMMUNITY_HALF_MAX;
const HIGH_HALF = (COMMUNITY_HALF_MAX << COMMUNITY_HALF_BITS) >>> 0;

function wellKnown(text: string): number | undefined {
  const key = text.toUpperCase().replace(/-/g, '_');
  if (Object.hasOwn(WellKnownCommunity, key))
    return WellKnownCommunity[key as keyof typeof WellKnownCommunity];
  if (Object.hasOwn(COMMUNITY_ALIASES, key)) return COMMUNITY_ALIASES[key];
  return undefined;
}

function half(text: string): number | undefined {
  if (!/^\d{1,5}$/.test(text)) return undefined;
  const n = Number(text);
  return n <= COMMUNITY_HALF_MAX ? n : undefined;
}

function u32(text: string): number | undefined {
  if (!/^\d{1,10}$/.test(text)) return undefined;
  const n = Number(text);
  return n <= U32_MAX ? n : undefined;
}

/**
 * A standard community or a pattern: "AS:value", "AS:*", "*:value", "*:*", a u32 in decimal,
 * or a well-known name (RFC 1997, 3765, 7999, 8326; "no-export" and FRR's "local-AS" too).
 */
export function parseCommunityPattern(text: string, path: string): CommunityPattern {
  const bad = () => new PolicyError('invalid-community', path, `not a community: ${String(text)}`);
  if (typeof text !== 'string') throw bad();
  const named = wellKnown(text);
  if (named !== undefined) return { value: named, mask: U32_MAX };
  const parts = text.split(':');
  if (parts.length === 1) {
    const n = u32(text);
    if (n === undefined) throw bad();
    return { value: n, mask: U32_MAX };
  }
  if (parts.length !== 2) throw bad();
  const [as, local] = parts;
  const hi = as === WILDCARD ? 0 : half(as);
  const lo = local === WILDCARD ? 0 : half(local);
  if (hi === undefined || lo === undefined) throw bad();
  const mask = ((as === WILDCARD ? 0 : HIGH_HALF) | (local === WILDCARD ? 0 : LOW_HALF)) >>> 0;
  return { value: ((hi << COMMUNITY_HALF_BITS) | lo) >>> 0, mask };
}

/** One community, no wildcards: what `set` and `add` take. */
export function parseCommunity(text: string, path = 'community'): number {
  const p = parseCommunityPattern(text, path);
  if (p.mask !== U32_MAX)
    throw new PolicyError('invalid-community', path, `a wildcard cannot be set: ${text}`);
  return p.value;
}

/** A large community pattern: field i matches when any bit i is set or it equals values[i]. */
export interface LargeCommunityPattern {
  readonly values: readonly [number, number, number];
  /** Bit i set: field i is `*`. */
  readonly any: number;
}

/** "global:local1:local2", each a u32 or `*` (RFC 8092 section 3). */
export function parseLargeCommunityPattern(text: string, path: string): LargeCommunityPattern {
  const bad = () =>
    new PolicyError('invalid-large-community', path, `not a large community: ${String(text)}`);
  if (typeof text !== 'string') throw bad();
  const parts = text.split(':');
  if (parts.length !== LARGE_COMMUNITY_FIELDS) throw bad();
  let any = 0;
  const values: number[] = [];
  parts.forEach((p, i) => {
    if (p === WILDCARD) {
      any |= 1 << i;
      values.push(0);
      return;
    }
    const n = u32(p);
    if (n === undefined) throw bad();
    values.push(n);
  });
  return { values: values as [number, number, number], any };
}

export function parseLargeCommunity(
  text: string,
  path = 'large community',
): readonly [number, number, number] {
  const p = parseLargeCommunityPattern(text, path);
  if (p.any !== 0)
    throw new PolicyError('invalid-large-community', path, `a wildcard cannot be set: ${text}`);
  return p.values;
}

export function communityMatches(p: CommunityPattern, c: number): boolean {
  return (c & p.mask) >>> 0 === p.value;
}

/** Whether the triple at `flat[at .. at + 3)` matches. */
export function largeCommunityMatches(
  p: LargeCommunityPattern,
  flat: readonly number[],
  at: number,
): boolean {
  for (let i = 0; i < LARGE_COMMUNITY_FIELDS; i++) {
    if ((p.any & (1 << i)) === 0 && flat[at + i] !== p.values[i]) return false;
  }
  return true;
}

interface ListEntry<P> {
  readonly permit: boolean;
  readonly patterns: readonly P[];
}

/**
 * A standard community list as FRR evaluates `match community`: the first entry all of whose
 * communities the route carries decides; no such entry means no match.
 */
export class CompiledCommunityList {
  readonly name: string;
  private readonly entries: readonly ListEntry<CommunityPattern>[];

  constructor(name: string, entries: readonly ListEntry<CommunityPattern>[]) {
    this.name = name;
    this.entries = entries;
  }

  matches(communities: readonly number[] | undefined): boolean {
    for (const entry of this.entries) {
      if (entry.patterns.every((p) => hasCommunity(communities, p))) return entry.permit;
    }
    return false;
  }

  /** `set comm-list NAME delete`: the first entry naming `c` decides; a permit deletes it. */
  deletes(c: number): boolean {
    for (const entry of this.entries) {
      if (entry.patterns.some((p) => communityMatches(p, c))) return entry.permit;
    }
    return false;
  }
}

function hasCommunity(communities: readonly number[] | undefined, p: CommunityPattern): boolean {
  if (!communities) return false;
  for (const c of communities) if (communityMatches(p, c)) return true;
  return false;
}

/** The large-community counterpart of CompiledCommunityList, over flattened triples. */
export class CompiledLargeCommunityList {
  readonly name: string;
  private readonly entries: readonly ListEntry<LargeCommunityPattern>[];

  constructor(name: string, entries: readonly ListEntry<LargeCommunityPattern>[]) {
    this.name = name;
    this.entries = entries;
  }

  matches(flat: readonly number[] | undefined): boolean {
    for (const entry of this.entries) {
      if (entry.patterns.every((p) => hasLarge(flat, p))) return entry.permit;
    }
    return false;
  }

  deletes(flat: readonly number[], at: number): boolean {
    for (const entry of this.entries) {
      if (entry.patterns.some((p) => largeCommunityMatches(p, flat, at))) return entry.permit;
    }
    return false;
  }
}

function hasLarge(flat: readonly number[] | undefined, p: LargeCommunityPattern): boolean {
  if (!flat) return false;
  for (let at = 0; at + LARGE_COMMUNITY_FIELDS <= flat.length; at += LARGE_COMMUNITY_FIELDS)
    if (largeCommunityMatches(p, flat, at)) return true;
  return false;
}

function compileEntries<P>(
  model: { name: string; entries: readonly { action: string; communities: readonly string[] }[] },
  path: string,
  parse: (text: string, path: string) => P,
): ListEntry<P>[] {
  if (!model || typeof model.name !== 'string' || model.name === '')
    throw new PolicyError('invalid-value', path, 'a list needs a name');
  if (!Array.isArray(model.entries))
    throw new PolicyError('invalid-value', `${path}.entries`, 'expected a list');
  return model.entries.map((e, i) => {
    const at = `${path}.entries[${i}]`;
    const permit = checkOneOf(e?.action, ['permit', 'deny'] as const, `${at}.action`) === 'permit';
    if (!Array.isArray(e.communities) || e.communities.length === 0)
      throw new PolicyError('invalid-value', `${at}.communities`, 'expected at least one community');
    return {
      permit,
      patterns: e.communities.map((c: string, k: number) => parse(c, `${at}.communities[${k}]`)),
    };
  });
}

export function compileCommunityList(
  model: CommunityListModel,
  path = `communityLists[${model?.name}]`,
): CompiledCommunityList {
  const entries = compileEntries(model, path, parseCommunityPattern);
  return new CompiledCommunityList(model.name, entries);
}

export function compileLargeCommunityList(
  model: LargeCommunityListModel,
  path = `largeCommunityLists[${model?.name}]`,
): CompiledLargeCommunityList {
  const entries = compileEntries(model, path, parseLargeCommunityPattern);
  return new CompiledLargeCommunityList(model.name, entries);
}
