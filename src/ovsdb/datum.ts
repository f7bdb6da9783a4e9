import { ZERO_UUID } from './constants.js';
import { OvsdbError, preview } from './errors.js';
import type { AtomicType, BaseType, ColumnType } from './schema.js';

/*
 * RFC 7047 section 5.1 values, and the update2 diff rules of ovsdb-server(7) section 4.1.
 *
 * Wire                              In memory (by ColumnKind)
 *   "s" 1 1.5 true                    atom (string | number | boolean)
 *   ["uuid","<uuid>"]                 the uuid's string
 *   ["set",[a,b]]  or bare atom a     scalar: atom, optional: atom | null, set: readonly atom[]
 *   ["map",[[k,v],...]]               ReadonlyMap<atom, atom>
 * A set of one element travels as the bare atom; an empty optional as ["set",[]].
 */

export type Atom = string | number | boolean;
export type Value = Atom | null | readonly Atom[] | ReadonlyMap<Atom, Atom>;

/** A row inserted earlier in the same transaction, named by its "uuid-name" (RFC 7047 5.2.1). */
export class NamedUuid {
  readonly name: string;
  constructor(name: string) {
    this.name = name;
  }
}
export const namedUuid = (name: string): NamedUuid => new NamedUuid(name);

export type AtomInput = Atom | NamedUuid;
/** What callers may write into a column: the in-memory form, plus NamedUuid and plain records for maps. */
export type ValueInput =
  | AtomInput
  | null
  | undefined
  | readonly AtomInput[]
  | ReadonlySet<AtomInput>
  | ReadonlyMap<AtomInput, AtomInput>
  | { readonly [key: string]: AtomInput };

const UUID_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
export const isUuid = (s: unknown): s is string => typeof s === 'string' && UUID_RE.test(s);

/**
 * One instance stands for every empty map (and array for every empty set) in a replica: most
 * map columns of OVN rows are empty, and sharing them saves a Map per column per row. Replica
 * values are read-only by type; writing to one is a bug in the writer.
 */
export const EMPTY_MAP: ReadonlyMap<Atom, Atom> = new Map();
export const EMPTY_SET: readonly Atom[] = Object.freeze([]) as readonly Atom[];

function badDatum(message: string, json: unknown): never {
  throw new OvsdbError('bad-datum', `${message}: ${preview(json)}`);
}

/** ovsdb_atom_default(): the value a column is left out of updates at. */
export function defaultAtom(type: AtomicType): Atom {
  switch (type) {
    case 'integer':
    case 'real':
      return 0;
    case 'boolean':
      return false;
    case 'string':
      return '';
    case 'uuid':
      return ZERO_UUID;
  }
}

/** ovsdb_datum_init_default(): empty when min is 0, else one default atom (pair). */
export function defaultValue(type: ColumnType): Value {
  switch (type.kind) {
    case 'scalar':
      return defaultAtom(type.key.type);
    case 'optional':
      return null;
    case 'set':
      return type.min === 0 ? EMPTY_SET : Object.freeze([defaultAtom(type.key.type)]);
    case 'map':
      return type.min === 0
        ? EMPTY_MAP
        : new Map([[defaultAtom(type.key.type), defaultAtom((type.value as BaseType).type)]]);
  }
}

export function decodeAtom(base: BaseType, json: unknown): Atom {
  switch (base.type) {
    case 'string':
      if (typeof json === 'string') return json;
      break;
    case 'integer':
      if (Number.isInteger(json)) return json as number;
      break;
    case 'real':
      if (typeof json === 'number' && Number.isFinite(json)) return json;
      break;
    case 'boolean':
      if (typeof json === 'boolean') return json;
      break;
    case 'uuid':
      if (Array.isArray(json) && json.length === 2 && json[0] === 'uuid' && isUuid(json[1])) return json[1];
      break;
  }
  return badDatum(`expected ${base.type} atom`, json);
}

function isTagged(json: unknown, tag: string): json is [string, unknown[]] {
  return Array.isArray(json) && json.length === 2 && json[0] === tag && Array.isArray(json[1]);
}

/** The atoms of a set datum: `["set",[...]]` or one bare atom. No count check (diffs may break min). */
function decodeSetAtoms(base: BaseType, json: unknown): Atom[] {
  if (isTagged(json, 'set')) {
    const elems = json[1];
    const out = new Array<Atom>(elems.length);
    for (let i = 0; i < elems.length; i++) out[i] = decodeAtom(base, elems[i]);
    return out;
  }
  return [decodeAtom(base, json)];
}

function decodePairs(type: ColumnType, json: unknown): Map<Atom, Atom> {
  if (!isTagged(json, 'map')) return badDatum('expected ["map", [...]]', json);
  const out = new Map<Atom, Atom>();
  for (const pair of json[1]) {
    if (!Array.isArray(pair) || pair.length !== 2) badDatum('expected a [key, value] pair', pair);
    out.set(decodeAtom(type.key, pair[0]), decodeAtom(type.value as BaseType, pair[1]));
  }
  return out;
}

function checkCount(type: ColumnType, n: number, json: unknown): void {
  if (n < type.min || n > type.max)
    badDatum(`${n} element(s) where ${type.min}..${type.max} are allowed`, json);
}

/** Decodes a whole datum for a column (RFC 7047 5.1); throws OvsdbError('bad-datum'). */
export function decodeValue(type: ColumnType, json: unknown): Value {
  switch (type.kind) {
    case 'scalar': {
      if (!isTagged(json, 'set')) return decodeAtom(type.key, json);
      const atoms = decodeSetAtoms(type.key, json);
      checkCount(type, atoms.length, json);
      return atoms[0];
    }
    case 'optional': {
      const atoms = decodeSetAtoms(type.key, json);
      checkCount(type, atoms.length, json);
      return atoms.length === 0 ? null : atoms[0];
    }
    case 'set': {
      const atoms = decodeSetAtoms(type.key, json);
      checkCount(type, atoms.length, json);
      return atoms.length === 0 ? EMPTY_SET : atoms;
    }
    case 'map': {
      const pairs = decodePairs(type, json);
      checkCount(type, pairs.size, json);
      return pairs.size === 0 ? EMPTY_MAP : pairs;
    }
  }
}

/**
 * Applies an update2/update3 `modify` entry to a column (ovsdb_datum_apply_diff):
 * non-composite columns (max 1) carry the new value; sets carry the symmetric difference;
 * maps carry pairs where a new key is added, a new value replaces, and the same value removes.
 */
export function applyDiff(type: ColumnType, old: Value, json: unknown): Value {
  if (!type.composite) return decodeValue(type, json);
  if (type.kind === 'map') {
    const diff = decodePairs(type, json);
    const result = new Map(old as ReadonlyMap<Atom, Atom>);
    for (const [k, v] of diff) {
      if (result.has(k) && result.get(k) === v) result.delete(k);
      else result.set(k, v);
    }
    checkCount(type, result.size, json);
    return result.size === 0 ? EMPTY_MAP : result;
  }
  const toggled = new Set(decodeSetAtoms(type.key, json));
  const before = old as readonly Atom[];
  const result: Atom[] = [];
  for (const atom of before) {
    if (toggled.has(atom)) toggled.delete(atom);
    else result.push(atom);
  }
  const removed = before.length - result.length;
  for (const atom of toggled) result.push(atom);
  // Atoms seen in `before` were deleted from `toggled`, so what remains there is new.
  if (removed === 0 && toggled.size === 0) return before;
  checkCount(type, result.length, json);
  return result.length === 0 ? EMPTY_SET : result;
}

/** Equality of two in-memory values of one column (sets compare as sets). */
export function valueEquals(type: ColumnType, a: Value, b: Value): boolean {
  if (a === b) return true;
  switch (type.kind) {
    case 'scalar':
    case 'optional':
      return false;
    case 'set': {
      const x = a as readonly Atom[];
      const y = b as readonly Atom[];
      if (x.length !== y.length) return false;
      if (x.length <= 8) return x.every((atom) => y.includes(atom));
      const ys = new Set(y);
      return x.every((atom) => ys.has(atom));
    }
    case 'map': {
      const x = a as ReadonlyMap<Atom, Atom>;
      const y = b as ReadonlyMap<Atom, Atom>;
      if (x.size !== y.size) return false;
      for (const [k, v] of x) if (!y.has(k) || y.get(k) !== v) return false;
      return true;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Encoding (for transact and monitor conditions)

export function encodeAtom(base: BaseType, atom: unknown): unknown {
  if (atom instanceof NamedUuid) {
    if (base.type !== 'uuid') badDatum(`named-uuid in a ${base.type} column`, atom.name);
    return ['named-uuid', atom.name];
  }
  switch (base.type) {
    case 'string':
      if (typeof atom === 'string') return atom;
      break;
    case 'integer':
      if (Number.isInteger(atom)) return atom;
      break;
    case 'real':
      if (typeof atom === 'number' && Number.isFinite(atom)) return atom;
      break;
    case 'boolean':
      if (typeof atom === 'boolean') return atom;
      break;
    case 'uuid':
      if (isUuid(atom)) return ['uuid', atom];
      break;
  }
  return badDatum(`expected ${base.type} atom`, atom);
}

function isAtomInput(v: unknown): v is AtomInput {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || v instanceof NamedUuid;
}

/** Encodes a caller's value for a column as RFC 7047 5.1 JSON. */
export function encodeValue(type: ColumnType, value: ValueInput): unknown {
  if (type.kind === 'map') {
    let entries: Iterable<readonly [unknown, unknown]>;
    if (value instanceof Map) entries = value.entries();
    else if (
      value !== null &&
      typeof value === 'object' &&
      !Array.isArray(value) &&
      !(value instanceof Set)
    ) {
      entries = Object.entries(value);
    } else if (value === null || value === undefined) entries = [];
    else return badDatum('expected a Map or a record for a map column', value);
    const pairs: unknown[] = [];
    for (const [k, v] of entries)
      pairs.push([encodeAtom(type.key, k), encodeAtom(type.value as BaseType, v)]);
    return ['map', pairs];
  }
  if (isAtomInput(value)) {
    return encodeAtom(type.key, value);
  }
  let atoms: readonly unknown[];
  if (value === null || value === undefined) atoms = [];
  else if (Array.isArray(value)) atoms = value;
  else if (value instanceof Set) atoms = [...value];
  else return badDatum(`expected a ${type.kind} value`, value);
  if (type.kind === 'scalar' && atoms.length !== 1) badDatum('a scalar column needs exactly one atom', value);
  if (atoms.length > type.max) badDatum(`more than ${type.max} element(s)`, value);
  return ['set', atoms.map((atom) => encodeAtom(type.key, atom))];
}
