import { readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { LineCounter, parseDocument, type YAMLError } from 'yaml';
import { MAX_CONFIG_ROUTES, TOO_MANY_ROUTES_ADVICE } from './constants.js';
import { withPositions } from './locate.js';
import { byPosition, ConfigError, type Problem, problem } from './problem.js';
import { countRouteItems } from './route-count.js';
import type { Config } from './schema.js';
import { validateConfig } from './validate.js';

/** Aliases a document may expand to before it is refused (a "billion laughs" guard). */
const MAX_ALIAS_COUNT = 100;

export interface LoadOptions {
  /** Reads the configuration file and password files; default fs.readFileSync as UTF-8. */
  readonly readFile?: (path: string) => string;
  /**
   * A password file's mode bits, to refuse one group or others can read; default fs.statSync
   * when readFile is the default too (an injected reader's files are not on disk to stat).
   */
  readonly modeOf?: (path: string) => number;
}

export interface ParseOptions extends LoadOptions {
  /** The name problems are reported under; also where relative password_file paths start. */
  readonly file?: string;
}

/** A usable configuration and the warnings it raised (legal settings that are likely mistakes). */
export interface LoadedConfig {
  readonly config: Config;
  readonly warnings: readonly Problem[];
  /** As given; undefined when parsed from text without a name. */
  readonly file: string | undefined;
  /** The document as parsed (snake_case keys), for changes made at run time over it. */
  readonly doc: unknown;
}

const readUtf8 = (path: string): string => readFileSync(path, 'utf8');
const statMode = (path: string): number => statSync(path).mode;

function yamlProblem(e: YAMLError, lines: LineCounter): Problem {
  const { line, col } = lines.linePos(e.pos[0]);
  return { path: '', segments: [], message: e.message, line, column: col };
}

/**
 * Parses and validates configuration text. Throws a ConfigError listing every problem (with
 * line and column) when the text is not YAML or not a valid configuration.
 */
export function parseConfig(text: string, options: ParseOptions = {}): LoadedConfig {
  const { file } = options;
  // Refused before YAML reads it: a million routes would take minutes and the whole heap there.
  const routes = countRouteItems(text, MAX_CONFIG_ROUTES);
  if (routes && routes.count > MAX_CONFIG_ROUTES) {
    const message = `${routes.count} entries, over the limit of ${MAX_CONFIG_ROUTES}: ${TOO_MANY_ROUTES_ADVICE}`;
    throw new ConfigError(
      'invalid',
      [{ ...problem(['routes'], message), line: routes.line, column: 1 }],
      file,
    );
  }
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, logLevel: 'silent' });
  if (doc.errors.length > 0) {
    throw new ConfigError(
      'syntax',
      doc.errors.map((e) => yamlProblem(e, lines)),
      file,
    );
  }
  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (e) {
    throw new ConfigError('syntax', [{ path: '', segments: [], message: (e as Error).message }], file);
  }
  const result = validateConfig(raw, {
    readFile: options.readFile ?? readUtf8,
    modeOf: options.modeOf ?? (options.readFile === undefined ? statMode : undefined),
    baseDir: file === undefined ? undefined : dirname(file),
  });
  const warnings = [
    ...doc.warnings.map((w) => yamlProblem(w, lines)),
    ...withPositions(result.warnings, doc, lines),
  ].sort(byPosition);
  if (!result.ok)
    throw new ConfigError('invalid', withPositions(result.problems, doc, lines).sort(byPosition), file);
  return { config: result.config, warnings, file, doc: raw };
}

/** Reads and validates the configuration file; throws ConfigError (kind 'unreadable' if it cannot be read). */
export function loadConfig(file: string, options: LoadOptions = {}): LoadedConfig {
  const read = options.readFile ?? readUtf8;
  let text: string;
  try {
    text = read(file);
  } catch (e) {
    const reason = (e as { code?: string }).code === 'ENOENT' ? 'no such file' : (e as Error).message;
    throw new ConfigError(
      'unreadable',
      [{ path: '', segments: [], message: `cannot read: ${reason}` }],
      file,
    );
  }
  return parseConfig(text, { ...options, file });
}
