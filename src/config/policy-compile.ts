import { compilePolicies, PolicyError } from '../policy/index.js';
import { isMapping, type Path, type Problem, problem } from './problem.js';
import type { Config } from './schema.js';

/*
 * The last check of the policy sections: the policy compiler itself, so the configuration
 * never accepts what the running speaker could not compile. The checks before it report every
 * problem with its line; this catches what they might miss, as one problem at the field the
 * compiler names ("prefixLists[pl].entries[2].le" is prefix_lists.pl[2].le in the file).
 */

const TOKEN = /([^.[\]]+)|\[([^\]]*)\]/g;

function snake(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** The file's path for a policy model path; `raw` tells whether a prefix list was written as {family, entries}. */
export function filePathOf(modelPath: string, raw: unknown): Path {
  const tokens: (string | number)[] = [];
  for (const m of modelPath.matchAll(TOKEN)) {
    if (m[1] !== undefined) tokens.push(m[1]);
    else tokens.push(/^[0-9]+$/.test(m[2]) ? Number(m[2]) : m[2]);
  }
  if (tokens.length === 0 || typeof tokens[0] !== 'string') return [];
  const section = snake(tokens[0]);
  const out: (string | number)[] = [section];
  if (tokens.length > 1) out.push(tokens[1]);
  let rest = tokens.slice(2);
  if (rest[0] === 'entries') {
    const sectionValue = isMapping(raw) ? raw[section] : undefined;
    const list = isMapping(sectionValue) ? sectionValue[String(tokens[1])] : undefined;
    // Lists are written as their entries, except a prefix list written as {family, entries}.
    if (!isMapping(list)) rest = rest.slice(1);
  }
  for (const t of rest) out.push(typeof t === 'string' ? snake(t) : t);
  return out;
}

/** A problem when the policy compiler refuses the configuration's policies; undefined when it compiles them. */
export function policyCompileProblem(config: Config, raw: unknown): Problem | undefined {
  try {
    compilePolicies(config.policy, { localAs: config.speaker.localAs });
    return undefined;
  } catch (e) {
    if (!(e instanceof PolicyError)) throw e;
    const detail = e.message.startsWith(`${e.path}: `) ? e.message.slice(e.path.length + 2) : e.message;
    return problem(filePathOf(e.path, raw), detail);
  }
}
