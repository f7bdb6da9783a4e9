import {
  type AsPathSegment,
  AsPathSegmentType,
  asPathLength,
  formatAsPath,
  mergeAs4Path,
  type PathAttributes,
} from '../bgp/wire/index.js';
import { U32_MAX } from './constants.js';
import { checkInteger, checkOneOf, PolicyError } from './errors.js';
import type { AsPathListEntryModel, AsPathListModel } from './model.js';

/**
 * What FRR's bgp_regcomp puts for `_`: the start or end of the path, or one of the characters
 * that separate ASNs in the printed path. FRR lists `,{}() `; the brackets of a confederation
 * set are added so `_` also ends an ASN there.
 */
const DELIMITER = '(?:^|[,{}()\\[\\] ]|$)';

/** POSIX bracket classes that can occur in an AS path regex, as JavaScript ranges. */
const POSIX_CLASSES: Readonly<Record<string, string>> = {
  '[:digit:]': '0-9',
  '[:space:]': '\\s',
  '[:blank:]': ' \\t',
  '[:alpha:]': 'A-Za-z',
  '[:alnum:]': '0-9A-Za-z',
  '[:punct:]': '!-\\/:-@\\[-`{-~',
};

/**
 * An FRR (POSIX extended) AS path regex as a JavaScript one: `_` outside brackets becomes the
 * delimiter group, POSIX classes inside brackets become ranges. Everything else means the same
 * in both for the patterns AS paths call for (digits, spaces, anchors, `.*+?|()` and intervals).
 */
export function translateAsPathRegex(regex: string): string {
  let out = '';
  let i = 0;
  while (i < regex.length) {
    const c = regex[i];
    if (c === '\\' && i + 1 < regex.length) {
      out += regex.slice(i, i + 2);
      i += 2;
    } else if (c === '[') {
      const end = bracketEnd(regex, i);
      out += bracketBody(regex.slice(i, end));
      i = end;
    } else {
      out += c === '_' ? DELIMITER : c;
      i++;
    }
  }
  return out;
}

/** Index just past the bracket expression at `start` (a `]` first or after `^` is literal). */
function bracketEnd(regex: string, start: number): number {
  let i = start + 1;
  if (regex[i] === '^') i++;
  if (regex[i] === ']') i++;
  while (i < regex.length && regex[i] !== ']') {
    const cls = regex.startsWith('[:', i) ? regex.indexOf(':]', i + 2) : -1;
    i = cls >= 0 ? cls + 2 : i + 1;
  }
  return Math.min(i + 1, regex.length);
}

function bracketBody(bracket: string): string {
  let body = bracket;
  for (const [posix, js] of Object.entries(POSIX_CLASSES)) body = body.split(posix).join(js);
  return body;
}

export function compileAsPathRegex(regex: string, path: string): RegExp {
  if (typeof regex !== 'string' || regex === '')
    throw new PolicyError('invalid-regex', path, 'expected a non-empty regular expression');
  try {
    return new RegExp(translateAsPathRegex(regex));
  } catch (e) {
    throw new PolicyError('invalid-regex', path, `bad regular expression ${regex}: ${(e as Error).message}`);
  }
}

/** The path a policy sees: AS4_PATH merged in (RFC 6793 section 4.2.3), printed only when a regex asks. */
export class AsPathView {
  readonly segments: readonly AsPathSegment[];
  private printed: string | undefined;

  constructor(attrs: PathAttributes) {
    this.segments = mergeAs4Path(attrs.asPath ?? [], attrs.as4Path, attrs.aggregator);
  }

  get text(): string {
    this.printed ??= formatAsPath(this.segments);
    return this.printed;
  }
}

interface AsPathEntry {
  readonly permit: boolean;
  readonly regex: RegExp | null;
  readonly originAs: number | null;
  readonly containsAs: number | null;
  readonly minLength: number;
  readonly maxLength: number;
}

/** An AS path access list: the first entry whose conditions all hold decides; none means no match. */
export class CompiledAsPathList {
  readonly name: string;
  private readonly entries: readonly AsPathEntry[];

  constructor(name: string, entries: readonly AsPathEntry[]) {
    this.name = name;
    this.entries = entries;
  }

  matches(view: AsPathView): boolean {
    for (const e of this.entries) if (entryMatches(e, view)) return e.permit;
    return false;
  }
}

function entryMatches(e: AsPathEntry, view: AsPathView): boolean {
  const segs = view.segments;
  if (e.originAs !== null && originAs(segs) !== e.originAs) return false;
  if (e.containsAs !== null && !segs.some((s) => s.asns.includes(e.containsAs!))) return false;
  const len = asPathLength(segs);
  if (len < e.minLength || len > e.maxLength) return false;
  return e.regex === null || e.regex.test(view.text);
}

/** The AS that originated the route: the last one, if the path ends in an AS_SEQUENCE. */
export function originAs(segments: readonly AsPathSegment[]): number | undefined {
  const last = segments[segments.length - 1];
  if (!last || last.type !== AsPathSegmentType.AS_SEQUENCE) return undefined;
  return last.asns[last.asns.length - 1];
}

export function compileAsPathList(
  model: AsPathListModel,
  path = `asPathLists[${model?.name}]`,
): CompiledAsPathList {
  if (!model || typeof model.name !== 'string' || model.name === '')
    throw new PolicyError('invalid-value', path, 'a list needs a name');
  if (!Array.isArray(model.entries))
    throw new PolicyError('invalid-value', `${path}.entries`, 'expected a list');
  const entries = model.entries.map((e, i) => compileEntry(e, `${path}.entries[${i}]`));
  return new CompiledAsPathList(model.name, entries);
}

function compileEntry(e: AsPathListEntryModel, at: string): AsPathEntry {
  if (!e || typeof e !== 'object') throw new PolicyError('invalid-value', at, 'expected an entry');
  const asn = (v: number | undefined, field: string) =>
    v === undefined ? null : checkInteger(v, 0, U32_MAX, `${at}.${field}`);
  const minLength = e.minLength === undefined ? 0 : checkInteger(e.minLength, 0, U32_MAX, `${at}.minLength`);
  const maxLength =
    e.maxLength === undefined ? U32_MAX : checkInteger(e.maxLength, 0, U32_MAX, `${at}.maxLength`);
  if (minLength > maxLength)
    throw new PolicyError('invalid-value', at, `minLength ${minLength} is above maxLength ${maxLength}`);
  return {
    permit: checkOneOf(e.action, ['permit', 'deny'] as const, `${at}.action`) === 'permit',
    regex: e.regex === undefined ? null : compileAsPathRegex(e.regex, `${at}.regex`),
    originAs: asn(e.originAs, 'originAs'),
    containsAs: asn(e.containsAs, 'containsAs'),
    minLength,
    maxLength,
  };
}
