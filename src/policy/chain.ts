import type { AfiCode, PathAttributes } from '../bgp/wire/index.js';
import { ACCEPT, type Policy, REJECT } from './policy.js';
import {
  AcceptedResults,
  DIRECTIVE_DEFAULT,
  FilterBase,
  type PolicyResult,
  type Rejected,
  rejected,
} from './results.js';

/**
 * A peer's policies for one direction, in order. A policy that accepts or rejects decides; one
 * that ends in `next` hands the route, with what it set, to the following policy. When every
 * policy passed the route on, it is rejected (the implicit deny).
 */
export class PolicyChain extends FilterBase {
  readonly name: string;
  readonly policies: readonly Policy[];
  private readonly fellThrough: Rejected;
  private readonly accepted = new AcceptedResults();

  constructor(name: string, policies: readonly Policy[]) {
    super();
    this.name = name;
    this.policies = policies;
    this.fellThrough = rejected(`${name}: no policy accepted the route`);
    // Only the first policy can decide for every route: a later one sees what the first passed on.
    this.acceptsAll = policies.length > 0 && policies[0].acceptsAll;
    this.rejectsAll = policies.length === 0 || policies[0].rejectsAll;
    this.readsNextHop = !this.acceptsAll && !this.rejectsAll && policies.some((p) => p.readsNextHop);
  }

  override readonly acceptsAll: boolean;
  override readonly rejectsAll: boolean;
  override readonly readsNextHop: boolean;

  evaluate(
    afi: AfiCode,
    words: ArrayLike<number>,
    offset: number,
    len: number,
    attrs: PathAttributes,
  ): PolicyResult {
    let cur = attrs;
    let directive = DIRECTIVE_DEFAULT;
    const policies = this.policies;
    for (let i = 0; i < policies.length; i++) {
      const p = policies[i];
      const code = p.run(afi, words, offset, len, cur);
      if (code === REJECT) return p.outRejected!;
      cur = p.outAttrs!;
      if (p.outDirective !== DIRECTIVE_DEFAULT) directive = p.outDirective;
      if (code === ACCEPT) return this.accepted.get(cur, directive);
    }
    return this.fellThrough;
  }
}

/** Every route rejected, with one reason: RFC 8212's default for eBGP peers without policy. */
export class RejectAll extends FilterBase {
  readonly name: string;
  override readonly rejectsAll = true;
  readonly result: Rejected;

  constructor(name: string, reason: string) {
    super();
    this.name = name;
    this.result = rejected(reason);
  }

  evaluate(): PolicyResult {
    return this.result;
  }
}

/** Every route accepted unchanged: iBGP without policy. */
export class AcceptAll extends FilterBase {
  readonly name: string;
  override readonly acceptsAll = true;
  private readonly accepted = new AcceptedResults();

  constructor(name: string) {
    super();
    this.name = name;
  }

  evaluate(_afi: AfiCode, _words: ArrayLike<number>, _offset: number, _len: number, attrs: PathAttributes) {
    return this.accepted.get(attrs, DIRECTIVE_DEFAULT);
  }
}
