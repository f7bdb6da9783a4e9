import { parseIpv4, parseIpv6 } from '../address/index.js';
import { Afi, type AfiCode, type PathAttributes } from '../bgp/wire/index.js';
import type { NextHopDirective } from './set-actions.js';

export interface Accepted {
  readonly accept: true;
  /** The input object itself when nothing was set; otherwise one shared by every prefix that got the same changes. */
  readonly attrs: PathAttributes;
  readonly nextHop: NextHopDirective;
}

export interface Rejected {
  readonly accept: false;
  /** Which rule rejected the route, for logs and `show`. */
  readonly reason: string;
}

/** Results are shared and immutable: evaluating a prefix allocates none. */
export type PolicyResult = Accepted | Rejected;

/** Anything that filters routes: a compiled policy, a peer's chain of them, a default. */
export interface RouteFilter {
  readonly name: string;
  /** True when every route is rejected (RFC 8212 default deny): callers may skip the work. */
  readonly rejectsAll: boolean;
  /** True when every route is accepted unchanged (iBGP without policy). */
  readonly acceptsAll: boolean;
  /**
   * True when a statement that can run matches on the next hop or keeps it (`next_hop:
   * unchanged`): on export such a filter must see the route's own next hop, before RFC 4271
   * section 5.1.3 puts ours in its place. Never true together with acceptsAll.
   */
  readonly readsNextHop: boolean;
  /**
   * The hot path. The prefix is `len` bits of words[offset] (IPv4) or words[offset .. offset + 4)
   * (IPv6, most significant first), as PrefixList keeps them; bits past `len` are ignored.
   */
  evaluate(
    afi: AfiCode,
    words: ArrayLike<number>,
    offset: number,
    len: number,
    attrs: PathAttributes,
  ): PolicyResult;
  evaluateIpv4(addr: number, len: number, attrs: PathAttributes): PolicyResult;
  /** With the prefix as text ("198.18.0.0", 15): for the API and tests, not the hot path. */
  evaluatePrefix(
    prefix: { readonly afi: AfiCode; readonly addr: string; readonly len: number },
    attrs: PathAttributes,
  ): PolicyResult;
}

/** Directives as small integers inside the evaluator; index into this table for the text. */
export const DIRECTIVES: readonly NextHopDirective[] = ['default', 'self', 'unchanged'];
export const DIRECTIVE_DEFAULT = 0;
export const DIRECTIVE_UNCHANGED = 2;

export function directiveCode(d: NextHopDirective): number {
  return DIRECTIVES.indexOf(d);
}

export function rejected(reason: string): Rejected {
  return Object.freeze({ accept: false, reason });
}

/**
 * The Accepted result for (attrs, directive), made once and handed out again. The last pair
 * asked for is checked first: the prefixes of one UPDATE share their attributes, so runs of
 * lookups skip the WeakMap.
 */
export class AcceptedResults {
  private lastAttrs: PathAttributes | null = null;
  private lastDirective = DIRECTIVE_DEFAULT;
  private lastResult: Accepted | null = null;
  private readonly byAttrs = new WeakMap<PathAttributes, (Accepted | undefined)[]>();

  get(attrs: PathAttributes, directive: number): Accepted {
    if (attrs === this.lastAttrs && directive === this.lastDirective) return this.lastResult!;
    let row = this.byAttrs.get(attrs);
    if (row === undefined) {
      row = [undefined, undefined, undefined];
      this.byAttrs.set(attrs, row);
    }
    let result = row[directive];
    if (result === undefined) {
      result = Object.freeze({ accept: true, attrs, nextHop: DIRECTIVES[directive] }) as Accepted;
      row[directive] = result;
    }
    this.lastAttrs = attrs;
    this.lastDirective = directive;
    this.lastResult = result;
    return result;
  }
}

/** Words of a prefix given as text, for evaluatePrefix. */
export function prefixWordsOf(afi: AfiCode, addr: string): Uint32Array {
  return afi === Afi.IPV4 ? Uint32Array.of(parseIpv4(addr)) : parseIpv6(addr);
}

/**
 * Shared by every filter: evaluateIpv4 and evaluatePrefix in terms of evaluate. The scratch
 * word lets an IPv4 address travel as a words array without allocating.
 */
export abstract class FilterBase implements RouteFilter {
  abstract readonly name: string;
  readonly rejectsAll: boolean = false;
  readonly acceptsAll: boolean = false;
  readonly readsNextHop: boolean = false;
  private readonly scratch = new Uint32Array(1);

  abstract evaluate(
    afi: AfiCode,
    words: ArrayLike<number>,
    offset: number,
    len: number,
    attrs: PathAttributes,
  ): PolicyResult;

  evaluateIpv4(addr: number, len: number, attrs: PathAttributes): PolicyResult {
    this.scratch[0] = addr;
    return this.evaluate(Afi.IPV4, this.scratch, 0, len, attrs);
  }

  evaluatePrefix(
    prefix: { readonly afi: AfiCode; readonly addr: string; readonly len: number },
    attrs: PathAttributes,
  ): PolicyResult {
    return this.evaluate(prefix.afi, prefixWordsOf(prefix.afi, prefix.addr), 0, prefix.len, attrs);
  }
}
