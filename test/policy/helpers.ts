import { addressBytes, parseIpv4 } from '../../src/address/index.js';
import { makeAttributes, type PathAttributes } from '../../src/bgp/wire/attributes/types.js';
import { Afi, type AfiCode, AsPathSegmentType, Origin } from '../../src/bgp/wire/constants.js';
import {
  compileLists,
  compilePolicy,
  type ListDefinitions,
  type Policy,
  type PolicyResult,
  type RouteFilter,
  type StatementModel,
} from '../../src/policy/index.js';

/** Attributes as a peer would send them: origin IGP, a path, an IPv4 next hop. */
export function attrs(init: Partial<PathAttributes> & { path?: number[] } = {}): PathAttributes {
  const { path, ...rest } = init;
  return makeAttributes({
    origin: Origin.IGP,
    asPath: path === undefined ? [{ type: AsPathSegmentType.AS_SEQUENCE, asns: [65001] }] : seq(...path),
    nextHop: parseIpv4('198.18.0.2'),
    ...rest,
  });
}

export function seq(...asns: number[]) {
  return asns.length ? [{ type: AsPathSegmentType.AS_SEQUENCE, asns }] : [];
}

/** IPv6 attributes: MP_REACH_NLRI carries the next hop. */
export function attrs6(nextHop = '2001:db8::2', init: Partial<PathAttributes> = {}): PathAttributes {
  return makeAttributes({
    origin: Origin.IGP,
    asPath: seq(65001),
    mpReach: { afi: Afi.IPV6, safi: 1, nextHop: addressBytes(nextHop), reserved: 0 },
    ...init,
  });
}

/** "198.18.0.0/24" → {afi, addr, len}. */
export function prefix(text: string): { afi: AfiCode; addr: string; len: number } {
  const [addr, len] = text.split('/');
  return { afi: addr.includes(':') ? Afi.IPV6 : Afi.IPV4, addr, len: Number(len) };
}

export function run(filter: RouteFilter, p: string, a: PathAttributes): PolicyResult {
  return filter.evaluatePrefix(prefix(p), a);
}

/** A policy from statements, with lists. */
export function policy(
  statements: StatementModel[],
  lists: ListDefinitions = {},
  defaultAction: 'accept' | 'reject' | 'next' = 'reject',
  name = 'P',
  localAs?: number,
): Policy {
  return compilePolicy({ name, statements, defaultAction }, compileLists(lists), { localAs });
}

/** The attributes of an accepted result; fails the test when rejected. */
export function accepted(r: PolicyResult): PathAttributes {
  if (!r.accept) throw new Error(`expected acceptance, got rejection: ${r.reason}`);
  return r.attrs;
}

/** Deep-freezes a value so any write to it throws (modules are strict). */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value) && !ArrayBuffer.isView(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
