import { KindedError } from '../components/index.js';
import { MAX_SHOWN_VALUE_LENGTH } from './constants.js';

/** Where a value sits in the file: keys and list indexes from the top, e.g. ['peers', 1, 'remote_as']. */
export type Path = readonly (string | number)[];

/**
 * One thing wrong with a configuration. `path` is as the operator reads it
 * ("peers[1].remote_as"); `message` says what was expected and what was found.
 * `line` and `column` (1-based) are known when the problem came from a file.
 */
export interface Problem {
  readonly path: string;
  readonly segments: Path;
  /** The offending value as parsed; undefined for a missing key. Secrets are never kept. */
  readonly value?: unknown;
  readonly message: string;
  readonly line?: number;
  readonly column?: number;
}

/** Stands in for a secret in problems and printed configurations. */
export const HIDDEN = '(hidden)';

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** ['peers', 1, 'remote_as'] → "peers[1].remote_as"; odd keys are quoted: policies["a b"]. */
export function formatPath(path: Path): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (PLAIN_KEY.test(seg)) out += out === '' ? seg : `.${seg}`;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out === '' ? '(top level)' : out;
}

function clip(text: string): string {
  return text.length <= MAX_SHOWN_VALUE_LENGTH ? text : `${text.slice(0, MAX_SHOWN_VALUE_LENGTH - 1)}…`;
}

/** How a parsed value is named in a message: strings quoted, collections by kind. */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'an empty value';
  switch (typeof value) {
    case 'string':
      return clip(JSON.stringify(value));
    case 'number':
    case 'boolean':
    case 'bigint':
      return String(value);
    case 'object':
      if (Array.isArray(value)) return 'a list';
      if (value instanceof Map) return 'an ordered map';
      if (value instanceof Set) return 'a set';
      if (value instanceof Uint8Array) return 'binary data';
      if (value instanceof Date) return 'a timestamp';
      return isMapping(value) ? 'a mapping' : 'an object';
    default:
      return typeof value;
  }
}

/** What kind of value it is, without showing it: for secrets. */
export function describeKind(value: unknown): string {
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'number') return 'a number';
  if (typeof value === 'boolean') return 'a boolean';
  return describeValue(value);
}

/** A YAML mapping as `yaml` gives it: an object straight from Object (or from nothing). */
export function isMapping(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Builds a problem at `path`; pass `secret` to keep the value out of it. */
export function problem(path: Path, message: string, value?: unknown, secret = false): Problem {
  const base = { path: formatPath(path), segments: path, message };
  if (value === undefined) return base;
  return { ...base, value: secret ? HIDDEN : value };
}

/**
 * `config.yaml:12:5 peers[1].remote_as: expected …`; the location is left out when unknown, the
 * path when empty (a syntax error is about the text, not a field).
 */
export function formatProblem(p: Problem, file?: string): string {
  const where =
    file === undefined ? '' : p.line === undefined ? `${file}: ` : `${file}:${p.line}:${p.column ?? 1} `;
  return p.path === '' ? `${where}${p.message}` : `${where}${p.path}: ${p.message}`;
}

/** Orders problems as they appear in the file; those without a position keep their order, first. */
export function byPosition(a: Problem, b: Problem): number {
  return (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0);
}

/**
 * Why a configuration cannot be used, stable for callers: 'unreadable' (the file could not be
 * read), 'syntax' (not YAML), 'invalid' (not a valid configuration), 'restart-required' (valid,
 * but it changes what only a restart can: a running speaker keeps its old configuration).
 */
export type ConfigErrorKind = 'unreadable' | 'syntax' | 'invalid' | 'restart-required';

/** A configuration that cannot be used: every problem found, one per line. */
export class ConfigError extends KindedError<ConfigErrorKind> {
  readonly file: string | undefined;
  readonly problems: readonly Problem[];

  constructor(kind: ConfigErrorKind, problems: readonly Problem[], file?: string) {
    const lines = problems.map((p) => formatProblem(p, file));
    const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
    super(kind, `${file ?? 'configuration'}: ${count}\n${lines.join('\n')}`);
    this.file = file;
    this.problems = problems;
  }
}
