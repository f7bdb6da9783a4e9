import { type Context, INVALID } from './decoders.js';
import { policyCompileProblem } from './policy-compile.js';
import type { Problem } from './problem.js';
import { type ResolveOptions, resolveConfig } from './resolve.js';
import type { Config } from './schema.js';
import { configSchema } from './sections.js';

export interface ValidateOptions {
  /** Reads a password_file. Without it, a password_file is a problem ("cannot read"). */
  readonly readFile?: ResolveOptions['readFile'];
  /** Directory relative password_file paths start from. */
  readonly baseDir?: string;
  /** A password_file's mode bits; absent: not checked (see SecretFiles). */
  readonly modeOf?: ResolveOptions['modeOf'];
}

/** Every problem found, or the configuration; warnings either way (legal but likely unintended). */
export type Validation =
  | { readonly ok: true; readonly config: Config; readonly warnings: readonly Problem[] }
  | { readonly ok: false; readonly problems: readonly Problem[]; readonly warnings: readonly Problem[] };

function noFileReader(path: string): string {
  throw new Error(`no file reader to read ${path}`);
}

/**
 * Checks a parsed YAML value against the schema and returns every problem at once, each
 * naming its field path and the bad value. Never throws on any input.
 */
export function validateConfig(raw: unknown, options: ValidateOptions = {}): Validation {
  const ctx: Context = { problems: [], warnings: [] };
  const decoded = configSchema.decode(raw, [], ctx);
  const config =
    decoded === INVALID
      ? undefined
      : resolveConfig(decoded, ctx, {
          readFile: options.readFile ?? noFileReader,
          baseDir: options.baseDir,
          modeOf: options.modeOf,
        });
  if (config === undefined || ctx.problems.length > 0) {
    return { ok: false, problems: ctx.problems, warnings: ctx.warnings };
  }
  const refused = policyCompileProblem(config, raw);
  if (refused !== undefined) return { ok: false, problems: [refused], warnings: ctx.warnings };
  return { ok: true, config, warnings: ctx.warnings };
}
