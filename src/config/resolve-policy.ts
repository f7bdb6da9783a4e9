import { IPV4_BITS, IPV6_BITS } from '../address/index.js';
import { BUILTIN_POLICIES } from '../policy/index.js';
import type { Context } from './decoders.js';
import { type Path, problem } from './problem.js';
import type {
  AsPathListConfig,
  AsPathListEntry,
  CommunityListConfig,
  PolicyConfig,
  PolicyDefinition,
  PolicyFamily,
  PrefixListConfig,
  PrefixListEntry,
  StatementConfig,
} from './schema.js';
import type { RawConfig, RawPolicy, RawPrefixList, RawPrefixListEntry, RawStatement } from './sections.js';

/*
 * Checks of the policy sections that need more than one value: prefix-list length ranges and
 * families, AS-path length ranges, and every name a statement refers to. The decoded values
 * already have the policy model's field names, so what passes goes through as it is; it is
 * only used when no problem was found, when every required field is present.
 */

function prefixFamily(prefix: string): PolicyFamily | undefined {
  if (prefix === 'any') return undefined;
  return prefix.includes(':') ? 'ipv6' : 'ipv4';
}

/** FRR ip prefix-list (lib/filter_nb.c): prefix length <= ge <= le <= address bits; "any" takes neither. */
function checkLengths(e: RawPrefixListEntry, bits: number, path: Path, ctx: Context): void {
  if (e.prefix === 'any') {
    if (e.ge !== undefined || e.le !== undefined) {
      ctx.problems.push(
        problem([...path, e.ge === undefined ? 'le' : 'ge'], '"any" takes no ge or le', e.ge ?? e.le),
      );
    }
    return;
  }
  const len = e.prefix === undefined ? 0 : Number(e.prefix.split('/')[1]);
  for (const [key, value] of [
    ['ge', e.ge],
    ['le', e.le],
  ] as const) {
    if (value === undefined) continue;
    if (value > bits)
      ctx.problems.push(problem([...path, key], `${key} ${value} is longer than /${bits}`, value));
    else if (value < len) {
      ctx.problems.push(
        problem([...path, key], `${key} ${value} is shorter than the prefix length ${len}`, value),
      );
    }
  }
  if (e.ge !== undefined && e.le !== undefined && e.le < e.ge) {
    ctx.problems.push(problem([...path, 'le'], `le ${e.le} is less than ge ${e.ge}`, e.le));
  }
}

function resolvePrefixList(name: string, raw: RawPrefixList, ctx: Context): PrefixListConfig {
  const path = ['prefix_lists', name];
  const entries = raw.entries ?? [];
  // Entries written as a plain list sit right under the name; in {family, entries} under entries.
  const entryPath = (i: number): Path => (raw.written === 'list' ? [...path, i] : [...path, 'entries', i]);
  const family =
    raw.family ??
    entries.map((e) => (e.prefix === undefined ? undefined : prefixFamily(e.prefix))).find(Boolean);
  if (family === undefined && entries.length > 0 && entries.every((e) => e.prefix === 'any')) {
    ctx.problems.push(
      problem(path, 'a list of only "any" needs its family: { family: ipv4, entries: [...] }'),
    );
  }
  const bits = family === 'ipv4' ? IPV4_BITS : IPV6_BITS;
  const seqs = new Map<number, number>();
  entries.forEach((e, i) => {
    const own = e.prefix === undefined ? undefined : prefixFamily(e.prefix);
    if (own !== undefined && own !== family) {
      const why = raw.family === undefined ? 'this list is' : "the list's family is";
      ctx.problems.push(
        problem(
          [...entryPath(i), 'prefix'],
          `${e.prefix} is ${own}, but ${why} ${family}; a prefix list holds one family`,
          e.prefix,
        ),
      );
    }
    checkLengths(e, own === 'ipv4' ? IPV4_BITS : own === 'ipv6' ? IPV6_BITS : bits, entryPath(i), ctx);
    if (e.seq !== undefined) {
      const first = seqs.get(e.seq);
      if (first === undefined) seqs.set(e.seq, i);
      else
        ctx.problems.push(
          problem([...entryPath(i), 'seq'], `seq ${e.seq} is already used by entry ${first}`, e.seq),
        );
    }
  });
  const list = { name, entries: entries as readonly PrefixListEntry[] };
  return family === undefined ? list : { ...list, family };
}

/** accept-all and reject-all: every configuration has them (src/policy/compile.ts). */
export const BUILTIN_POLICY_NAMES: readonly string[] = BUILTIN_POLICIES.map((p) => p.name);

type Lookup = (kind: string, section: string, value: string, path: Path) => void;

function checkStatement(s: RawStatement, path: Path, check: Lookup): void {
  const m = s.match;
  if (m?.prefixList !== undefined)
    check('prefix list', 'prefix_lists', m.prefixList, [...path, 'match', 'prefix_list']);
  if (m?.nextHop !== undefined)
    check('prefix list', 'prefix_lists', m.nextHop, [...path, 'match', 'next_hop']);
  if (m?.communityList !== undefined) {
    check('community list', 'community_lists', m.communityList, [...path, 'match', 'community_list']);
  }
  if (m?.largeCommunityList !== undefined) {
    const at = [...path, 'match', 'large_community_list'];
    check('large community list', 'large_community_lists', m.largeCommunityList, at);
  }
  if (m?.extendedCommunityList !== undefined) {
    const at = [...path, 'match', 'extended_community_list'];
    check('extended community list', 'extended_community_lists', m.extendedCommunityList, at);
  }
  if (m?.asPath !== undefined)
    check('AS-path list', 'as_path_lists', m.asPath, [...path, 'match', 'as_path']);
  const del = s.set?.communities?.deleteList;
  if (del !== undefined) {
    check('community list', 'community_lists', del, [...path, 'set', 'communities', 'delete_list']);
  }
  const delLarge = s.set?.largeCommunities?.deleteList;
  if (delLarge !== undefined) {
    const at = [...path, 'set', 'large_communities', 'delete_list'];
    check('large community list', 'large_community_lists', delLarge, at);
  }
  const delExt = s.set?.extendedCommunities?.deleteList;
  if (delExt !== undefined) {
    const at = [...path, 'set', 'extended_communities', 'delete_list'];
    check('extended community list', 'extended_community_lists', delExt, at);
  }
}

/** The policy sections as the policy compiler takes them, after the checks above. */
export function resolvePolicy(raw: RawConfig, ctx: Context): PolicyConfig {
  const prefixLists = [...(raw.prefixLists ?? new Map<string, RawPrefixList>())].map(([name, l]) =>
    resolvePrefixList(name, l, ctx),
  );
  const lists = <T>(m: ReadonlyMap<string, readonly T[]> | undefined) =>
    [...(m ?? new Map<string, readonly T[]>())].map(([name, entries]) => ({ name, entries }));
  const communityLists = lists(raw.communityLists) as CommunityListConfig[];
  const largeCommunityLists = lists(raw.largeCommunityLists) as CommunityListConfig[];
  const extendedCommunityLists = lists(raw.extendedCommunityLists) as CommunityListConfig[];
  const asPathLists = lists(raw.asPathLists) as AsPathListConfig[];
  for (const l of asPathLists) {
    l.entries.forEach((e: AsPathListEntry, i) => {
      if (e.minLength !== undefined && e.maxLength !== undefined && e.maxLength < e.minLength) {
        ctx.problems.push(
          problem(
            ['as_path_lists', l.name, i, 'max_length'],
            `${e.maxLength} is less than min_length ${e.minLength}`,
            e.maxLength,
          ),
        );
      }
    });
  }
  const defined: Record<string, ReadonlySet<string>> = {
    prefix_lists: new Set(prefixLists.map((l) => l.name)),
    community_lists: new Set(communityLists.map((l) => l.name)),
    large_community_lists: new Set(largeCommunityLists.map((l) => l.name)),
    extended_community_lists: new Set(extendedCommunityLists.map((l) => l.name)),
    as_path_lists: new Set(asPathLists.map((l) => l.name)),
  };
  const check: Lookup = (kind, section, value, path) => {
    const names = defined[section];
    if (names.has(value)) return;
    const known = names.size === 0 ? `${section} is empty` : `defined: ${[...names].join(', ')}`;
    ctx.problems.push(problem(path, `no ${kind} named ${JSON.stringify(value)} (${known})`, value));
  };
  const policies: PolicyDefinition[] = [];
  for (const [name, p] of raw.policies ?? new Map<string, RawPolicy>()) {
    if (BUILTIN_POLICY_NAMES.includes(name)) {
      ctx.problems.push(
        problem(['policies', name], `${name} is a built-in policy and cannot be redefined; use another name`),
      );
    }
    (p.statements ?? []).forEach((s: RawStatement, i: number) => {
      checkStatement(s, ['policies', name, 'statements', i], check);
    });
    const statements = (p.statements ?? []) as readonly StatementConfig[];
    policies.push(
      p.defaultAction === undefined
        ? { name, statements }
        : { name, statements, defaultAction: p.defaultAction },
    );
  }
  return { prefixLists, communityLists, largeCommunityLists, extendedCommunityLists, asPathLists, policies };
}
