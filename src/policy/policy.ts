import { bytesWord, IPV4_BITS, IPV4_BYTES, IPV6_BITS, IPV6_BYTES, IPV6_WORDS } from '../address/index.js';
import { Afi, type AfiCode, type PathAttributes } from '../bgp/wire/index.js';
import { AsPathView } from './as-path-match.js';
import type { CompiledPrefixList } from './prefix-match.js';
import {
  AcceptedResults,
  DIRECTIVE_DEFAULT,
  DIRECTIVE_UNCHANGED,
  FilterBase,
  type PolicyResult,
  type Rejected,
  rejected,
} from './results.js';
import { applySets, type CompiledSets, setsNextHop } from './set-actions.js';

/** Statement and default actions inside the evaluator. */
export const ACCEPT = 0;
export const REJECT = 1;
export const NEXT = 2;
export type ActionCode = typeof ACCEPT | typeof REJECT | typeof NEXT;

/**
 * A test that depends on the attributes only (community lists, AS path lists): its answer is
 * kept per attribute object, so thousands of prefixes sharing one set ask it once.
 */
export type AttrTest = (attrs: PathAttributes, entry: AttrsEntry) => boolean;

export interface CompiledStatement {
  /** Position in the policy; keys the memo of set results. */
  readonly index: number;
  readonly action: ActionCode;
  /** 0 for any family. */
  readonly afi: AfiCode | 0;
  readonly prefixList: CompiledPrefixList | null;
  readonly nextHopList: CompiledPrefixList | null;
  /** Indexes into the policy's attribute tests, all of which must hold. */
  readonly tests: readonly number[];
  readonly sets: CompiledSets | null;
  /** Next-hop directive code this statement sets, or -1. */
  readonly directive: number;
  /** Returned when this statement rejects. */
  readonly rejected: Rejected;
}

const UNKNOWN = 0;
const FALSE = 1;
const TRUE = 2;

/** What a policy remembers about one attribute object it has seen. */
export class AttrsEntry {
  /** Per attribute test: UNKNOWN, FALSE or TRUE. */
  readonly facts: Uint8Array;
  /** Memo of set results per family: IPv4 at 0, IPv6 at 1. */
  readonly roots: (MemoNode | undefined)[] = [undefined, undefined];
  private view: AsPathView | null = null;

  constructor(tests: number) {
    this.facts = new Uint8Array(tests);
  }

  asPath(attrs: PathAttributes): AsPathView {
    this.view ??= new AsPathView(attrs);
    return this.view;
  }
}

/**
 * The attributes after the set clauses of the statements on the path from the root: children
 * are keyed by the index of the next statement whose sets apply. The same input attributes,
 * family and sequence of applied statements always give the same output object.
 */
class MemoNode {
  readonly attrs: PathAttributes;
  readonly directive: number;
  readonly children: (MemoNode | undefined)[] = [];

  constructor(attrs: PathAttributes, directive: number) {
    this.attrs = attrs;
    this.directive = directive;
  }
}

/**
 * A compiled policy. `run` is the evaluation loop shared with chains: it leaves its outcome in
 * out* fields rather than in a new object, so evaluating a prefix allocates nothing once the
 * attributes have been seen.
 */
export class Policy extends FilterBase {
  readonly name: string;
  readonly statements: readonly CompiledStatement[];
  private readonly defaultAction: ActionCode;
  private readonly defaultRejected: Rejected;
  private readonly fellThrough: Rejected;
  private readonly tests: readonly AttrTest[];
  private readonly entries = new WeakMap<PathAttributes, AttrsEntry>();
  private lastAttrs: PathAttributes | null = null;
  private lastEntry: AttrsEntry | null = null;
  private readonly accepted = new AcceptedResults();
  private readonly nextHopWords = new Uint32Array(IPV6_WORDS);

  /** Outcome of the last run: attributes and directive when accepted (or passed on), else the reason. */
  outAttrs: PathAttributes | null = null;
  outDirective = DIRECTIVE_DEFAULT;
  outRejected: Rejected | null = null;

  constructor(
    name: string,
    statements: readonly CompiledStatement[],
    defaultAction: ActionCode,
    tests: readonly AttrTest[],
  ) {
    super();
    this.name = name;
    this.statements = statements;
    this.defaultAction = defaultAction;
    this.tests = tests;
    this.defaultRejected = rejected(`policy ${name}: no statement matched, default action reject`);
    this.fellThrough = rejected(`policy ${name}: no statement accepted the route`);
    const first = statements[0];
    this.acceptsAll = first === undefined ? defaultAction === ACCEPT : acceptsUnchanged(first);
    this.rejectsAll =
      first === undefined ? defaultAction === REJECT : first.action === REJECT && matchesAll(first);
    this.readsNextHop =
      !this.acceptsAll &&
      !this.rejectsAll &&
      statements.some((s) => s.nextHopList !== null || s.directive === DIRECTIVE_UNCHANGED);
  }

  /** True when the first statement accepts every route unchanged: callers may skip evaluation. */
  override readonly acceptsAll: boolean;
  /** True when the first statement rejects every route. */
  override readonly rejectsAll: boolean;
  /** True when a statement matches on the next hop or keeps it, and the policy decides per route. */
  override readonly readsNextHop: boolean;

  evaluate(
    afi: AfiCode,
    words: ArrayLike<number>,
    offset: number,
    len: number,
    attrs: PathAttributes,
  ): PolicyResult {
    const code = this.run(afi, words, offset, len, attrs);
    if (code === REJECT) return this.outRejected!;
    // Alone, a policy that passes the route on has nobody to pass it to: the implicit deny.
    if (code === NEXT) return this.fellThrough;
    return this.accepted.get(this.outAttrs!, this.outDirective);
  }

  run(
    afi: AfiCode,
    words: ArrayLike<number>,
    offset: number,
    len: number,
    attrs: PathAttributes,
  ): ActionCode {
    let cur = attrs;
    let node: MemoNode | null = null;
    let entry: AttrsEntry | null = null;
    const statements = this.statements;
    for (let i = 0; i < statements.length; i++) {
      const s = statements[i];
      if (s.afi !== 0 && s.afi !== afi) continue;
      if (s.prefixList !== null && !s.prefixList.permits(afi, words, offset, len)) continue;
      if (s.nextHopList !== null && !this.nextHopPermitted(s.nextHopList, cur, afi)) continue;
      if (s.tests.length !== 0) {
        entry ??= this.entryFor(cur);
        if (!this.testsHold(s.tests, entry, cur)) continue;
      }
      if (s.action === REJECT) {
        this.outRejected = s.rejected;
        return REJECT;
      }
      if (s.sets !== null) {
        node ??= this.root(entry ?? this.entryFor(cur), cur, afi);
        node = this.child(node, s, afi);
        if (node.attrs !== cur) {
          cur = node.attrs;
          entry = null;
        }
      }
      if (s.action === ACCEPT) return this.pass(ACCEPT, cur, node);
    }
    if (this.defaultAction === REJECT) {
      this.outRejected = this.defaultRejected;
      return REJECT;
    }
    return this.pass(this.defaultAction, cur, node);
  }

  private pass(code: ActionCode, attrs: PathAttributes, node: MemoNode | null): ActionCode {
    this.outAttrs = attrs;
    this.outDirective = node === null ? DIRECTIVE_DEFAULT : node.directive;
    return code;
  }

  private entryFor(attrs: PathAttributes): AttrsEntry {
    if (attrs === this.lastAttrs) return this.lastEntry!;
    let entry = this.entries.get(attrs);
    if (entry === undefined) {
      entry = new AttrsEntry(this.tests.length);
      this.entries.set(attrs, entry);
    }
    this.lastAttrs = attrs;
    this.lastEntry = entry;
    return entry;
  }

  private testsHold(tests: readonly number[], entry: AttrsEntry, attrs: PathAttributes): boolean {
    for (let k = 0; k < tests.length; k++) {
      const t = tests[k];
      let fact = entry.facts[t];
      if (fact === UNKNOWN) {
        fact = this.tests[t](attrs, entry) ? TRUE : FALSE;
        entry.facts[t] = fact;
      }
      if (fact !== TRUE) return false;
    }
    return true;
  }

  private root(entry: AttrsEntry, attrs: PathAttributes, afi: AfiCode): MemoNode {
    const slot = afi === Afi.IPV4 ? 0 : 1;
    let root = entry.roots[slot];
    if (root === undefined) {
      root = new MemoNode(attrs, DIRECTIVE_DEFAULT);
      entry.roots[slot] = root;
    }
    return root;
  }

  private child(node: MemoNode, s: CompiledStatement, afi: AfiCode): MemoNode {
    let next = node.children[s.index];
    if (next === undefined) {
      const attrs = s.sets === null ? node.attrs : applySets(s.sets, node.attrs, afi);
      // An address set for this family is final, as a directive is: the next hop it put in the
      // attributes goes as it is ("unchanged"), until a later statement says otherwise.
      const directive =
        s.directive >= 0 ? s.directive : setsNextHop(s.sets, afi) ? DIRECTIVE_UNCHANGED : node.directive;
      next = new MemoNode(attrs, directive);
      node.children[s.index] = next;
    }
    return next;
  }

  /**
   * The next hop as a host prefix: MP_REACH_NLRI's when it carries this family (RFC 4760
   * section 3), else NEXT_HOP for IPv4. A 16- or 32-octet next hop is tested by its global address.
   */
  private nextHopPermitted(list: CompiledPrefixList, attrs: PathAttributes, afi: AfiCode): boolean {
    const mp = attrs.mpReach;
    if (mp !== undefined && mp.afi === afi) {
      const b = mp.nextHop;
      if (b.length === IPV4_BYTES) return list.permitsIpv4(bytesWord(b, 0), IPV4_BITS);
      if (b.length < IPV6_BYTES) return false;
      const w = this.nextHopWords;
      for (let i = 0; i < IPV6_WORDS; i++) w[i] = bytesWord(b, i * IPV4_BYTES);
      return list.permits(Afi.IPV6, w, 0, IPV6_BITS);
    }
    if (afi === Afi.IPV4 && attrs.nextHop !== undefined) return list.permitsIpv4(attrs.nextHop, IPV4_BITS);
    return false;
  }
}

function matchesAll(s: CompiledStatement): boolean {
  return s.afi === 0 && s.prefixList === null && s.nextHopList === null && s.tests.length === 0;
}

function acceptsUnchanged(s: CompiledStatement): boolean {
  return s.action === ACCEPT && matchesAll(s) && s.sets === null && s.directive === -1;
}
