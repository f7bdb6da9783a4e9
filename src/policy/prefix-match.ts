import {
  AddressError,
  IPV4_BITS,
  IPV6_BITS,
  IPV6_WORDS,
  type PrefixRules,
  parseIpPrefix,
  WORD_BITS,
  wordMask,
} from '../address/index.js';
import { Afi, type AfiCode } from '../bgp/wire/index.js';
import { LINEAR_SCAN_MAX_ENTRIES, PREFIX_LIST_SEQ_STEP, U32_MAX } from './constants.js';
import { checkInteger, checkOneOf, PolicyError } from './errors.js';
import type { Family, PrefixListEntryModel, PrefixListModel } from './model.js';

/** No entry matched. */
export const NO_ENTRY = -1;
const NONE = 0x7fffffff;

/** A prefix parsed from text: its words (1 or 4, most significant first) and length. */
export interface ParsedPrefix {
  readonly afi: AfiCode;
  readonly words: Uint32Array;
  readonly len: number;
}

export function familyAfi(family: Family): AfiCode {
  return family === 'ipv4' ? Afi.IPV4 : Afi.IPV6;
}

export function bitsOf(afi: AfiCode): number {
  return afi === Afi.IPV4 ? IPV4_BITS : IPV6_BITS;
}

/** An entry names its network: bits past the length are an error, not silently cleared. */
const ENTRY_PREFIX: PrefixRules = { hostBits: 'refuse' };

/** "198.18.0.0/15" or "2001:db8::/32"; throws PolicyError (host bits set, bad length, bad address). */
export function parsePrefixText(text: string, path: string): ParsedPrefix {
  if (typeof text !== 'string')
    throw new PolicyError('invalid-prefix', path, `expected ADDRESS/LENGTH, got ${String(text)}`);
  try {
    const p = parseIpPrefix(text, ENTRY_PREFIX);
    return { afi: p.family === 4 ? Afi.IPV4 : Afi.IPV6, words: p.words, len: p.len };
  } catch (error) {
    if (error instanceof AddressError) throw new PolicyError('invalid-prefix', path, error.message);
    throw error;
  }
}

/**
 * A compiled prefix list. Entries in evaluation order as struct-of-arrays: masked value and
 * mask words, the length range [lo, hi] a matching prefix must fall in, and the verdict.
 * Lookups read typed arrays only: no strings, no allocation.
 *
 * Lists longer than LINEAR_SCAN_MAX_ENTRIES also get a binary trie over the entry prefixes:
 * the first matching entry is the lowest-ordered one among the entries on the path from the
 * root to the prefix, so a lookup costs at most one step per prefix bit whatever the list's
 * size. Each node records the lowest entry order in its subtree, which ends the walk as soon
 * as nothing below can beat what was found.
 */
export class CompiledPrefixList {
  readonly name: string;
  readonly afi: AfiCode;
  readonly size: number;
  /** Per entry, in evaluation order. */
  readonly seqs: readonly number[];
  private readonly permit: Uint8Array;
  private readonly lo: Uint8Array;
  private readonly hi: Uint8Array;
  /** IPv4 only: one word per entry. */
  private readonly value: Uint32Array;
  private readonly mask: Uint32Array;
  private readonly linear: boolean;
  // Trie, one slot per node; empty arrays when the list is scanned linearly.
  private readonly child0: Int32Array;
  private readonly child1: Int32Array;
  /** Entries stored at node n are nodeEntries[entryStart[n] .. entryStart[n + 1]). */
  private readonly entryStart: Int32Array;
  private readonly nodeEntries: Int32Array;
  private readonly subtreeMin: Int32Array;

  constructor(
    name: string,
    afi: AfiCode,
    entries: readonly CompiledEntry[],
    strategy: LookupStrategy = 'auto',
  ) {
    this.name = name;
    this.afi = afi;
    this.size = entries.length;
    const wpp = afi === Afi.IPV4 ? 1 : IPV6_WORDS;
    this.seqs = entries.map((e) => e.seq);
    this.permit = Uint8Array.from(entries, (e) => (e.permit ? 1 : 0));
    this.lo = Uint8Array.from(entries, (e) => e.lo);
    this.hi = Uint8Array.from(entries, (e) => e.hi);
    this.value = new Uint32Array(entries.length * wpp);
    this.mask = new Uint32Array(entries.length * wpp);
    entries.forEach((e, i) => {
      for (let w = 0; w < wpp; w++) {
        this.value[i * wpp + w] = e.words[w];
        this.mask[i * wpp + w] = wordMask(e.len - WORD_BITS * w);
      }
    });
    this.linear = strategy === 'linear' || (strategy === 'auto' && entries.length <= LINEAR_SCAN_MAX_ENTRIES);
    const trie = this.linear ? emptyTrie() : buildTrie(entries, bitsOf(afi));
    this.child0 = trie.child0;
    this.child1 = trie.child1;
    this.entryStart = trie.entryStart;
    this.nodeEntries = trie.nodeEntries;
    this.subtreeMin = trie.subtreeMin;
  }

  /** Whether the list permits the prefix; a prefix of the other family is never permitted. */
  permits(afi: AfiCode, words: ArrayLike<number>, off: number, len: number): boolean {
    if (afi !== this.afi) return false;
    const e = afi === Afi.IPV4 ? this.lookupIpv4(words[off], len) : this.lookupIpv6(words, off, len);
    return e !== NO_ENTRY && this.permit[e] === 1;
  }

  permitsIpv4(addr: number, len: number): boolean {
    if (this.afi !== Afi.IPV4) return false;
    const e = this.lookupIpv4(addr, len);
    return e !== NO_ENTRY && this.permit[e] === 1;
  }

  /** Whether entry i (evaluation order) permits. */
  entryPermits(i: number): boolean {
    return this.permit[i] === 1;
  }

  /** The first entry (evaluation order) matching an IPv4 prefix, or NO_ENTRY. */
  lookupIpv4(addr: number, len: number): number {
    if (this.afi !== Afi.IPV4) return NO_ENTRY;
    if (this.linear) {
      for (let e = 0; e < this.size; e++) {
        if ((addr & this.mask[e]) >>> 0 === this.value[e] && this.lo[e] <= len && len <= this.hi[e]) return e;
      }
      return NO_ENTRY;
    }
    let best = NONE;
    let node = 0;
    for (let depth = 0; ; depth++) {
      if (this.subtreeMin[node] >= best) break;
      best = this.bestAtNode(node, len, best);
      if (depth >= len) break;
      node = (addr >>> (WORD_BITS - 1 - depth)) & 1 ? this.child1[node] : this.child0[node];
      if (node < 0) break;
    }
    return best === NONE ? NO_ENTRY : best;
  }

  /** The first entry matching an IPv6 prefix whose words are words[off .. off + 4), or NO_ENTRY. */
  lookupIpv6(words: ArrayLike<number>, off: number, len: number): number {
    if (this.afi !== Afi.IPV6) return NO_ENTRY;
    if (this.linear) {
      for (let e = 0; e < this.size; e++) {
        const at = e * IPV6_WORDS;
        if (
          (words[off] & this.mask[at]) >>> 0 === this.value[at] &&
          (words[off + 1] & this.mask[at + 1]) >>> 0 === this.value[at + 1] &&
          (words[off + 2] & this.mask[at + 2]) >>> 0 === this.value[at + 2] &&
          (words[off + 3] & this.mask[at + 3]) >>> 0 === this.value[at + 3] &&
          this.lo[e] <= len &&
          len <= this.hi[e]
        )
          return e;
      }
      return NO_ENTRY;
    }
    let best = NONE;
    let node = 0;
    for (let depth = 0; ; depth++) {
      if (this.subtreeMin[node] >= best) break;
      best = this.bestAtNode(node, len, best);
      if (depth >= len) break;
      const bit = (words[off + (depth >>> 5)] >>> (WORD_BITS - 1 - (depth & (WORD_BITS - 1)))) & 1;
      node = bit ? this.child1[node] : this.child0[node];
      if (node < 0) break;
    }
    return best === NONE ? NO_ENTRY : best;
  }

  /** The first entry stored at `node` whose length range holds `len`, if it comes before `best`. */
  private bestAtNode(node: number, len: number, best: number): number {
    for (let k = this.entryStart[node], end = this.entryStart[node + 1]; k < end; k++) {
      const e = this.nodeEntries[k];
      if (e >= best) break;
      if (this.lo[e] <= len && len <= this.hi[e]) return e;
    }
    return best;
  }
}

/** How lookups find the first match: 'auto' scans small lists and walks a trie for larger ones. */
export type LookupStrategy = 'auto' | 'linear' | 'trie';

/** An entry after validation: order is its index in the list. */
export interface CompiledEntry {
  readonly seq: number;
  readonly permit: boolean;
  readonly words: Uint32Array;
  readonly len: number;
  readonly lo: number;
  readonly hi: number;
}

interface Trie {
  child0: Int32Array;
  child1: Int32Array;
  entryStart: Int32Array;
  nodeEntries: Int32Array;
  subtreeMin: Int32Array;
}

function emptyTrie(): Trie {
  const none = new Int32Array(0);
  return { child0: none, child1: none, entryStart: none, nodeEntries: none, subtreeMin: none };
}

function buildTrie(entries: readonly CompiledEntry[], bits: number): Trie {
  const c0: number[] = [-1];
  const c1: number[] = [-1];
  const at: number[][] = [[]];
  entries.forEach((e, i) => {
    let node = 0;
    for (let d = 0; d < e.len && d < bits; d++) {
      const bit = (e.words[d >>> 5] >>> (WORD_BITS - 1 - (d & (WORD_BITS - 1)))) & 1;
      const next = bit ? c1 : c0;
      if (next[node] < 0) {
        next[node] = c0.length;
        c0.push(-1);
        c1.push(-1);
        at.push([]);
      }
      node = next[node];
    }
    at[node].push(i);
  });
  const n = c0.length;
  const entryStart = new Int32Array(n + 1);
  const nodeEntries = new Int32Array(entries.length);
  let k = 0;
  for (let i = 0; i < n; i++) {
    entryStart[i] = k;
    for (const e of at[i]) nodeEntries[k++] = e;
  }
  entryStart[n] = k;
  // Children always get higher indexes than their parent: one pass from the end fills minima.
  const subtreeMin = new Int32Array(n).fill(NONE);
  for (let i = n - 1; i >= 0; i--) {
    let m = at[i].length ? at[i][0] : NONE;
    if (c0[i] >= 0) m = Math.min(m, subtreeMin[c0[i]]);
    if (c1[i] >= 0) m = Math.min(m, subtreeMin[c1[i]]);
    subtreeMin[i] = m;
  }
  return { child0: Int32Array.from(c0), child1: Int32Array.from(c1), entryStart, nodeEntries, subtreeMin };
}

const SEQ_MAX = U32_MAX;

/** Validates a prefix list model and compiles it. `path` names it in errors. */
export function compilePrefixList(
  model: PrefixListModel,
  path = `prefixLists[${model?.name}]`,
  strategy: LookupStrategy = 'auto',
): CompiledPrefixList {
  if (!model || typeof model.name !== 'string' || model.name === '')
    throw new PolicyError('invalid-value', path, 'a prefix list needs a name');
  if (!Array.isArray(model.entries))
    throw new PolicyError('invalid-value', `${path}.entries`, 'expected a list');
  let afi: AfiCode | undefined =
    model.family === undefined
      ? undefined
      : familyAfi(checkOneOf(model.family, ['ipv4', 'ipv6'] as const, `${path}.family`));
  if (afi === undefined) {
    // The first entry with a prefix says; a malformed entry is reported by compileEntry below.
    const i = model.entries.findIndex((e) => !e || typeof e !== 'object' || e.prefix !== 'any');
    const first = i < 0 ? undefined : model.entries[i];
    if (first && typeof first === 'object')
      afi = parsePrefixText(first.prefix, `${path}.entries[${i}].prefix`).afi;
    else if (i < 0 && model.entries.length)
      throw new PolicyError('family-mismatch', path, 'say the family of a list of "any"');
    else afi = Afi.IPV4;
  }
  const seen = new Set<number>();
  let highest = 0;
  const compiled = model.entries.map((entry, i) => {
    const at = `${path}.entries[${i}]`;
    const e = compileEntry(entry, afi, at);
    const seq = entry.seq === undefined ? autoSeq(highest) : checkInteger(entry.seq, 1, SEQ_MAX, `${at}.seq`);
    if (seen.has(seq)) throw new PolicyError('duplicate-seq', `${at}.seq`, `seq ${seq} is used twice`);
    seen.add(seq);
    highest = Math.max(highest, seq);
    return { ...e, seq };
  });
  compiled.sort((a, b) => a.seq - b.seq);
  return new CompiledPrefixList(model.name, afi, compiled, strategy);
}

function autoSeq(highest: number): number {
  return Math.floor(highest / PREFIX_LIST_SEQ_STEP) * PREFIX_LIST_SEQ_STEP + PREFIX_LIST_SEQ_STEP;
}

function compileEntry(entry: PrefixListEntryModel, afi: AfiCode, at: string): Omit<CompiledEntry, 'seq'> {
  if (!entry || typeof entry !== 'object') throw new PolicyError('invalid-value', at, 'expected an entry');
  const permit = checkOneOf(entry.action, ['permit', 'deny'] as const, `${at}.action`) === 'permit';
  const max = bitsOf(afi);
  if (entry.prefix === 'any') {
    if (entry.ge !== undefined || entry.le !== undefined)
      throw new PolicyError('invalid-length-range', at, '"any" takes no ge or le');
    return { permit, words: new Uint32Array(afi === Afi.IPV4 ? 1 : IPV6_WORDS), len: 0, lo: 0, hi: max };
  }
  const p = parsePrefixText(entry.prefix, `${at}.prefix`);
  if (p.afi !== afi)
    throw new PolicyError('family-mismatch', `${at}.prefix`, `${entry.prefix} is not of the list's family`);
  const ge = entry.ge === undefined ? 0 : checkInteger(entry.ge, 0, max, `${at}.ge`);
  const le = entry.le === undefined ? 0 : checkInteger(entry.le, 0, max, `${at}.le`);
  // FRR's check (lib/filter_nb.c): length <= ge, length <= le, ge <= le.
  const range = `need ${p.len} <= ge <= le <= ${max}`;
  if (entry.ge !== undefined && ge < p.len)
    throw new PolicyError(
      'invalid-length-range',
      `${at}.ge`,
      `ge ${ge} is below the prefix length: ${range}`,
    );
  if (entry.le !== undefined && le < p.len)
    throw new PolicyError(
      'invalid-length-range',
      `${at}.le`,
      `le ${le} is below the prefix length: ${range}`,
    );
  if (entry.ge !== undefined && entry.le !== undefined && ge > le)
    throw new PolicyError('invalid-length-range', at, `ge ${ge} is above le ${le}: ${range}`);
  // As FRR's prefix_list_entry_match: a bound of 0 is no bound; neither bound means exact length.
  const lo = ge || p.len;
  const hi = le || (ge ? max : p.len);
  return { permit, words: p.words, len: p.len, lo, hi };
}
