import { type CompiledAsPathList, compileAsPathList } from './as-path-match.js';
import {
  type CompiledCommunityList,
  type CompiledLargeCommunityList,
  compileCommunityList,
  compileLargeCommunityList,
} from './communities.js';
import { U32_MAX } from './constants.js';
import { checkInteger, checkOneOf, PolicyError } from './errors.js';
import { type CompiledExtCommunityList, compileExtCommunityList } from './ext-communities.js';
import type {
  CompileOptions,
  ListDefinitions,
  MatchModel,
  PolicyDefinitions,
  PolicyModel,
  StatementAction,
  StatementModel,
} from './model.js';
import {
  ACCEPT,
  type ActionCode,
  type AttrTest,
  type CompiledStatement,
  NEXT,
  Policy,
  REJECT,
} from './policy.js';
import { type CompiledPrefixList, compilePrefixList, familyAfi } from './prefix-match.js';
import { directiveCode, rejected } from './results.js';
import { compileSets, nextHopDirective, type SetListLookup } from './set-actions.js';

const ACTIONS: Readonly<Record<StatementAction, ActionCode>> = { accept: ACCEPT, reject: REJECT, next: NEXT };
const MATCH_KEYS = [
  'prefixList',
  'communityList',
  'largeCommunityList',
  'extendedCommunityList',
  'asPath',
  'nextHop',
  'family',
];
const SET_KEYS = [
  'localPref',
  'med',
  'communities',
  'largeCommunities',
  'extendedCommunities',
  'asPathPrepend',
  'nextHop',
];
const STATEMENT_KEYS = ['name', 'match', 'set', 'action'];

/** The named lists, compiled once and shared by every policy that names them. */
export class CompiledLists implements SetListLookup {
  private readonly prefix: ReadonlyMap<string, CompiledPrefixList>;
  private readonly community: ReadonlyMap<string, CompiledCommunityList>;
  private readonly large: ReadonlyMap<string, CompiledLargeCommunityList>;
  private readonly ext: ReadonlyMap<string, CompiledExtCommunityList>;
  private readonly asPath: ReadonlyMap<string, CompiledAsPathList>;

  constructor(defs: ListDefinitions) {
    this.prefix = byName(defs.prefixLists, 'prefixLists', (m, p) => compilePrefixList(m, p));
    this.community = byName(defs.communityLists, 'communityLists', (m, p) => compileCommunityList(m, p));
    this.large = byName(defs.largeCommunityLists, 'largeCommunityLists', (m, p) =>
      compileLargeCommunityList(m, p),
    );
    this.ext = byName(defs.extendedCommunityLists, 'extendedCommunityLists', (m, p) =>
      compileExtCommunityList(m, p),
    );
    this.asPath = byName(defs.asPathLists, 'asPathLists', (m, p) => compileAsPathList(m, p));
  }

  prefixList(name: string, path: string): CompiledPrefixList {
    return find(this.prefix, name, path, 'prefix list');
  }
  communityList(name: string, path: string): CompiledCommunityList {
    return find(this.community, name, path, 'community list');
  }
  largeCommunityList(name: string, path: string): CompiledLargeCommunityList {
    return find(this.large, name, path, 'large community list');
  }
  extendedCommunityList(name: string, path: string): CompiledExtCommunityList {
    return find(this.ext, name, path, 'extended community list');
  }
  asPathList(name: string, path: string): CompiledAsPathList {
    return find(this.asPath, name, path, 'AS path list');
  }
}

function byName<M extends { name: string }, C>(
  models: readonly M[] | undefined,
  field: string,
  compile: (model: M, path: string) => C,
): Map<string, C> {
  const out = new Map<string, C>();
  if (models === undefined) return out;
  if (!Array.isArray(models)) throw new PolicyError('invalid-value', field, 'expected a list');
  models.forEach((m, i) => {
    const path = `${field}[${typeof m?.name === 'string' ? m.name : i}]`;
    const compiled = compile(m, path);
    if (out.has(m.name)) throw new PolicyError('duplicate-name', path, `${m.name} is defined twice`);
    out.set(m.name, compiled);
  });
  return out;
}

function find<T>(map: ReadonlyMap<string, T>, name: string, path: string, what: string): T {
  const found = typeof name === 'string' ? map.get(name) : undefined;
  if (found === undefined) throw new PolicyError('unknown-list', path, `no ${what} named ${String(name)}`);
  return found;
}

export function compileLists(defs: ListDefinitions): CompiledLists {
  return new CompiledLists(defs ?? {});
}

/** Compiles every list and policy; the result maps policy names to evaluators. */
export function compilePolicies(
  defs: PolicyDefinitions,
  options: CompileOptions = {},
): ReadonlyMap<string, Policy> {
  if (!defs || typeof defs !== 'object')
    throw new PolicyError('invalid-value', 'policy', 'expected definitions');
  const lists = compileLists(defs);
  const policies = byName(defs.policies, 'policies', (m, p) => compilePolicy(m, lists, options, p));
  for (const builtin of BUILTIN_POLICIES) {
    if (policies.has(builtin.name)) {
      const path = `policies[${builtin.name}]`;
      throw new PolicyError('duplicate-name', path, `${builtin.name} is built in and cannot be redefined`);
    }
    policies.set(builtin.name, compilePolicy(builtin, lists, options));
  }
  return policies;
}

/**
 * Policies every configuration has without defining them, so a lab or a small deployment
 * need not write the same two. Peers still name them: RFC 8212's default stays deny.
 * Redefining one is refused rather than allowed to change what the name means.
 */
export const BUILTIN_POLICIES: readonly PolicyModel[] = [
  { name: 'accept-all', statements: [{ name: 'accept-all', action: 'accept' }] },
  { name: 'reject-all', statements: [{ name: 'reject-all', action: 'reject' }] },
];

/** Compiles one policy against already compiled lists. Throws PolicyError naming the field at fault. */
export function compilePolicy(
  model: PolicyModel,
  lists: CompiledLists = compileLists({}),
  options: CompileOptions = {},
  path = `policies[${model?.name}]`,
): Policy {
  if (!model || typeof model.name !== 'string' || model.name === '')
    throw new PolicyError('invalid-value', path, 'a policy needs a name');
  if (!Array.isArray(model.statements))
    throw new PolicyError('invalid-value', `${path}.statements`, 'expected a list');
  const localAs =
    options.localAs === undefined ? undefined : checkInteger(options.localAs, 0, U32_MAX, 'localAs');
  const tests: AttrTest[] = [];
  const testIds = new Map<string, number>();
  const testFor = (key: string, make: () => AttrTest) => {
    let id = testIds.get(key);
    if (id === undefined) {
      id = tests.length;
      tests.push(make());
      testIds.set(key, id);
    }
    return id;
  };
  const statements = model.statements.map((s, i) =>
    compileStatement(model.name, s, i, lists, localAs, testFor, `${path}.statements[${i}]`),
  );
  const defaultAction =
    ACTIONS[
      checkOneOf(
        model.defaultAction ?? 'reject',
        ['accept', 'reject', 'next'] as const,
        `${path}.defaultAction`,
      )
    ];
  return new Policy(model.name, statements, defaultAction, tests);
}

function compileStatement(
  policy: string,
  s: StatementModel,
  index: number,
  lists: CompiledLists,
  localAs: number | undefined,
  testFor: (key: string, make: () => AttrTest) => number,
  path: string,
): CompiledStatement {
  checkKeys(s, STATEMENT_KEYS, path);
  const action = ACTIONS[checkOneOf(s.action, ['accept', 'reject', 'next'] as const, `${path}.action`)];
  const m: MatchModel = s.match ?? {};
  checkKeys(m, MATCH_KEYS, `${path}.match`);
  if (s.set !== undefined) checkKeys(s.set, SET_KEYS, `${path}.set`);
  const at = (field: string) => `${path}.match.${field}`;
  const tests: number[] = [];
  if (m.communityList !== undefined) {
    const list = lists.communityList(m.communityList, at('communityList'));
    tests.push(testFor(`community:${list.name}`, () => (attrs) => list.matches(attrs.communities)));
  }
  if (m.largeCommunityList !== undefined) {
    const list = lists.largeCommunityList(m.largeCommunityList, at('largeCommunityList'));
    tests.push(testFor(`large:${list.name}`, () => (attrs) => list.matches(attrs.largeCommunities)));
  }
  if (m.extendedCommunityList !== undefined) {
    const list = lists.extendedCommunityList(m.extendedCommunityList, at('extendedCommunityList'));
    tests.push(testFor(`ext:${list.name}`, () => (attrs) => list.matches(attrs.extCommunities)));
  }
  if (m.asPath !== undefined) {
    const list = lists.asPathList(m.asPath, at('asPath'));
    tests.push(testFor(`as-path:${list.name}`, () => (attrs, entry) => list.matches(entry.asPath(attrs))));
  }
  const sets = compileSets(s.set, lists, localAs, `${path}.set`);
  const directive = sets === null ? null : nextHopDirective(sets);
  const label = typeof s.name === 'string' && s.name !== '' ? s.name : `#${index + 1}`;
  return {
    index,
    action,
    afi:
      m.family === undefined ? 0 : familyAfi(checkOneOf(m.family, ['ipv4', 'ipv6'] as const, at('family'))),
    prefixList: m.prefixList === undefined ? null : lists.prefixList(m.prefixList, at('prefixList')),
    nextHopList: m.nextHop === undefined ? null : lists.prefixList(m.nextHop, at('nextHop')),
    tests,
    sets,
    directive: directive === null ? -1 : directiveCode(directive),
    rejected: rejected(`policy ${policy} statement ${label}: reject`),
  };
}

/** A misspelt key would silently widen a match: refuse what the model does not know. */
function checkKeys(value: unknown, allowed: readonly string[], path: string): void {
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new PolicyError('invalid-value', path, 'expected an object');
  for (const key of Object.keys(value))
    if (!allowed.includes(key))
      throw new PolicyError(
        'invalid-value',
        `${path}.${key}`,
        `unknown field (known: ${allowed.join(', ')})`,
      );
}
