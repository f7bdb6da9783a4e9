import { SUGGESTION_MAX_DISTANCE } from './constants.js';
import { describeKind, describeValue, isMapping, type Path, type Problem, problem } from './problem.js';

/*
 * A small table-driven validator: a schema is a tree of decoders, each turning a parsed YAML
 * value into a typed one or recording why not. Decoders never throw and never stop at the
 * first problem: an object decodes every field it can, so one run reports everything.
 */

/** What a decoder returns for a value it rejected (after recording the problem). */
export const INVALID: unique symbol = Symbol('invalid');
export type Result<T> = T | typeof INVALID;

export interface Context {
  readonly problems: Problem[];
  readonly warnings: Problem[];
  /** Set while decoding a secret: problems then leave the value out. */
  readonly secret?: boolean;
}

/** How a decoder is built, for the reference documentation. */
export type Shape =
  | { readonly kind: 'scalar' }
  | { readonly kind: 'object'; readonly fields: Readonly<Record<string, Field<unknown>>> }
  | { readonly kind: 'list'; readonly item: Decoder<unknown> }
  | { readonly kind: 'dictionary'; readonly value: Decoder<unknown> }
  | { readonly kind: 'either'; readonly options: readonly Decoder<unknown>[] };

export interface Decoder<T> {
  /** What a good value looks like, as messages and the reference say it: "an integer 0..65535". */
  readonly expected: string;
  readonly shape: Shape;
  decode(value: unknown, path: Path, ctx: Context): Result<T>;
}

export interface Field<T> {
  readonly decoder: Decoder<T>;
  readonly required: boolean;
  /** One line for the reference. */
  readonly doc: string;
  /** The default as the reference prints it; absent when there is none. */
  readonly default?: string;
  readonly secret: boolean;
}

type CamelCase<S extends string> = S extends `${infer H}_${infer T}` ? `${H}${Capitalize<CamelCase<T>>}` : S;
type FieldValue<F> = F extends Field<infer T> ? T : never;
type FieldTable = Readonly<Record<string, Field<unknown>>>;

/**
 * What an object decoder yields: the fields that decoded, camelCased. Every field is optional
 * because a bad or missing one is left out (its problem is recorded instead).
 */
export type Decoded<F extends FieldTable> = {
  readonly [K in keyof F as CamelCase<K & string>]?: FieldValue<F[K]>;
};

/** Records "expected X, got Y" (or `detail`) at `path` and returns INVALID. */
export function reject(
  ctx: Context,
  path: Path,
  expected: string,
  value: unknown,
  detail?: string,
): typeof INVALID {
  const message =
    detail ?? `expected ${expected}, got ${ctx.secret ? describeKind(value) : describeValue(value)}`;
  ctx.problems.push(problem(path, message, value, ctx.secret));
  return INVALID;
}

/**
 * A decoder from a parse function. `bad(detail?)` records the problem (the standard
 * "expected … got …" without a detail) and returns INVALID for the parse function to return.
 */
export function scalar<T>(
  expected: string,
  parse: (value: unknown, bad: (detail?: string) => typeof INVALID, path: Path, ctx: Context) => Result<T>,
): Decoder<T> {
  return {
    expected,
    shape: { kind: 'scalar' },
    decode: (value, path, ctx) =>
      parse(value, (detail) => reject(ctx, path, expected, value, detail), path, ctx),
  };
}

export function integer(min: number, max: number, expected = `an integer ${min}..${max}`): Decoder<number> {
  return scalar(expected, (v, bad) =>
    typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max ? v : bad(),
  );
}

export const boolean: Decoder<boolean> = scalar('true or false', (v, bad) =>
  typeof v === 'boolean' ? v : bad(),
);

export interface TextRule {
  readonly expected: string;
  readonly pattern?: RegExp;
  readonly maxLength?: number;
}

/** A non-empty string, optionally matching a pattern. */
export function text(rule: TextRule): Decoder<string> {
  return scalar(rule.expected, (v, bad, _path, ctx) => {
    if (typeof v === 'number' || typeof v === 'boolean') {
      // YAML reads 0123, 1e3 or yes-like words as numbers and booleans; quoting keeps them text.
      const got = ctx.secret ? describeKind(v) : describeValue(v);
      return bad(`expected ${rule.expected}, got ${got} (quote it to make it text)`);
    }
    if (typeof v !== 'string' || v === '') return bad();
    if (rule.maxLength !== undefined && v.length > rule.maxLength) return bad();
    if (rule.pattern && !rule.pattern.test(v)) return bad();
    return v;
  });
}

export function oneOf<const T extends string | number>(values: readonly T[]): Decoder<T> {
  const expected = `one of ${values.join(', ')}`;
  return scalar(expected, (v, bad) => (values.includes(v as T) ? (v as T) : bad()));
}

export interface ListRule<T> {
  readonly min?: number;
  /** At most this many items; more is one problem at the list, saying how many and why not. */
  readonly max?: { readonly count: number; readonly advice: string };
  /** Items with equal keys are duplicates; each repeat is a problem at its index. */
  readonly key?: (item: T) => string;
  readonly expected?: string;
}

export function list<T>(item: Decoder<T>, rule: ListRule<T> = {}): Decoder<readonly T[]> {
  const expected = rule.expected ?? `a list of ${item.expected}`;
  return {
    expected,
    shape: { kind: 'list', item },
    decode(value, path, ctx) {
      if (!Array.isArray(value)) return reject(ctx, path, expected, value);
      const min = rule.min ?? 0;
      if (value.length < min) {
        return reject(ctx, path, expected, value, `expected at least ${min} item${min === 1 ? '' : 's'}`);
      }
      if (rule.max && value.length > rule.max.count) {
        const { count, advice } = rule.max;
        ctx.problems.push(problem(path, `${value.length} entries, over the limit of ${count}: ${advice}`));
        return INVALID;
      }
      const out: T[] = [];
      const seen = new Map<string, number>();
      value.forEach((v, i) => {
        const decoded = item.decode(v, [...path, i], ctx);
        if (decoded === INVALID) return;
        if (rule.key) {
          const k = rule.key(decoded);
          const first = seen.get(k);
          if (first !== undefined) {
            ctx.problems.push(problem([...path, i], `repeats item ${first} (${k})`, v, ctx.secret));
            return;
          }
          seen.set(k, i);
        }
        out.push(decoded);
      });
      return out;
    },
  };
}

function camelCase(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** Levenshtein distance, for "did you mean". Keys are short, so the plain table is fine. */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length];
}

function unknownKeyMessage(key: string, known: readonly string[]): string {
  const lower = key.toLowerCase().replace(/-/g, '_');
  let best: string | undefined;
  let bestDistance = SUGGESTION_MAX_DISTANCE + 1;
  for (const k of known) {
    const d = k === lower || camelCase(k).toLowerCase() === key.toLowerCase() ? 0 : distance(lower, k);
    if (d < bestDistance) {
      best = k;
      bestDistance = d;
    }
  }
  if (best !== undefined) return `unknown key (did you mean ${best}?)`;
  return `unknown key (expected one of: ${known.join(', ')})`;
}

/**
 * A YAML mapping with the given keys (snake_case, as written); anything else is an unknown
 * key. Yields the decoded fields under camelCase names.
 */
export function object<const F extends FieldTable>(expected: string, fields: F): Decoder<Decoded<F>> {
  const known = Object.keys(fields);
  return {
    expected,
    shape: { kind: 'object', fields },
    decode(value, path, ctx) {
      if (!isMapping(value)) return reject(ctx, path, expected, value);
      for (const key of Object.keys(value)) {
        if (!Object.hasOwn(fields, key)) {
          ctx.problems.push(problem([...path, key], unknownKeyMessage(key, known)));
        }
      }
      const out: Record<string, unknown> = {};
      for (const key of known) {
        const field = fields[key];
        if (!Object.hasOwn(value, key)) {
          if (field.required) ctx.problems.push(problem([...path, key], 'required key is missing'));
          continue;
        }
        const inner = field.secret ? { ...ctx, secret: true } : ctx;
        const decoded = field.decoder.decode(value[key], [...path, key], inner);
        if (decoded !== INVALID) out[camelCase(key)] = decoded;
      }
      return out as Decoded<F>;
    },
  };
}

export function required<T>(decoder: Decoder<T>, doc: string): Field<T> {
  return { decoder, required: true, doc, secret: false };
}

export function optional<T>(decoder: Decoder<T>, doc: string, defaultText?: string): Field<T> {
  return defaultText === undefined
    ? { decoder, required: false, doc, secret: false }
    : { decoder, required: false, doc, default: defaultText, secret: false };
}

/** An optional field whose value never appears in a problem or a printed configuration. */
export function secret<T>(decoder: Decoder<T>, doc: string): Field<T> {
  return { decoder, required: false, doc, secret: true };
}

/** A mapping from names (checked by `name`) to values of one kind, in file order. */
export function dictionary<T>(
  expected: string,
  name: Decoder<string>,
  value: Decoder<T>,
): Decoder<ReadonlyMap<string, T>> {
  return {
    expected,
    shape: { kind: 'dictionary', value },
    decode(input, path, ctx) {
      if (!isMapping(input)) return reject(ctx, path, expected, input);
      const out = new Map<string, T>();
      for (const [key, v] of Object.entries(input)) {
        if (name.decode(key, [...path, key], ctx) === INVALID) continue;
        const decoded = value.decode(v, [...path, key], ctx);
        if (decoded !== INVALID) out.set(key, decoded);
      }
      return out;
    },
  };
}

export interface Alternative<T> {
  readonly when: (value: unknown) => boolean;
  readonly decoder: Decoder<T>;
}

/** Chooses a decoder by the kind of value: `max_prefixes: 1000` or `max_prefixes: {limit: 1000}`. */
export function either<T>(expected: string, alternatives: readonly Alternative<T>[]): Decoder<T> {
  return {
    expected,
    shape: { kind: 'either', options: alternatives.map((a) => a.decoder) },
    decode(value, path, ctx) {
      const chosen = alternatives.find((a) => a.when(value));
      return chosen ? chosen.decoder.decode(value, path, ctx) : reject(ctx, path, expected, value);
    },
  };
}

/** Maps a decoded value; for shorthands (a number standing for `{limit: n}`). */
export function map<A, B>(decoder: Decoder<A>, f: (a: A) => B): Decoder<B> {
  return {
    expected: decoder.expected,
    shape: decoder.shape,
    decode(value, path, ctx) {
      const a = decoder.decode(value, path, ctx);
      return a === INVALID ? INVALID : f(a);
    },
  };
}

export const isNumber = (v: unknown): boolean => typeof v === 'number';
export const isBoolean = (v: unknown): boolean => typeof v === 'boolean';
export const isString = (v: unknown): boolean => typeof v === 'string';
export const isList = (v: unknown): boolean => Array.isArray(v);
export { isMapping };
