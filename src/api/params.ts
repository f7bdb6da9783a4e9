/**
 * Checks a request's params against what its method takes. Every failure is a
 * ControlError('bad-request') naming the field, so a typo never reaches the speaker.
 */
import { type PrefixRules, tryParseIpPrefix } from '../address/index.js';
import { SHUTDOWN_COMMUNICATION_MAX_LENGTH } from '../bgp/wire/index.js';
import { ApiDefaults, MAX_RIB_LIMIT } from './constants.js';
import { ControlError, type RibQuery, type WatchTopic } from './types.js';

export type Params = Readonly<Record<string, unknown>>;

/** A rib query names an address or any prefix around it: the RIB looks up its network. */
const RIB_QUERY_PREFIX: PrefixRules = { hostBits: 'keep', bareAddress: true };
const utf8 = new TextEncoder();

function bad(message: string): ControlError {
  return new ControlError('bad-request', message);
}

/** The params object itself: absent or `{}` for methods that take none. */
export function paramsObject(raw: unknown): Params {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) throw bad('params must be an object');
  return raw as Params;
}

export function onlyKeys(params: Params, allowed: readonly string[]): void {
  for (const key of Object.keys(params)) {
    if (!allowed.includes(key)) {
      const known = allowed.length ? allowed.join(', ') : 'none';
      throw bad(`unknown param "${key}" (takes: ${known})`);
    }
  }
}

export function peerParam(params: Params, required: true): string;
export function peerParam(params: Params, required: false): string | undefined;
export function peerParam(params: Params, required: boolean): string | undefined {
  const peer = params.peer;
  if (peer === undefined && !required) return undefined;
  if (typeof peer !== 'string' || peer.length === 0) throw bad('"peer" must be a neighbor name or address');
  return peer;
}

/** RFC 9003 section 2: at most 255 octets of UTF-8. */
export function shutdownMessageParam(params: Params): string | undefined {
  const message = params.message;
  if (message === undefined) return undefined;
  if (typeof message !== 'string') throw bad('"message" must be a string');
  const octets = utf8.encode(message).length;
  if (octets > SHUTDOWN_COMMUNICATION_MAX_LENGTH) {
    throw bad(`"message" is ${octets} octets; a shutdown communication holds at most 255 (RFC 9003)`);
  }
  return message;
}

/** The IP version of "addr" or "addr/len", or null when it is neither. */
export function prefixVersion(text: string): 4 | 6 | null {
  return tryParseIpPrefix(text, RIB_QUERY_PREFIX)?.family ?? null;
}

export function ribQueryParams(params: Params): RibQuery {
  const { prefix, afi, limit } = params;
  const version = prefix === undefined ? null : typeof prefix === 'string' ? prefixVersion(prefix) : null;
  if (prefix !== undefined && version === null) {
    throw bad(
      `"prefix" must be an address or a prefix such as 198.18.10.0/24, got ${JSON.stringify(prefix)}`,
    );
  }
  if (afi !== undefined && afi !== 4 && afi !== 6) throw bad('"afi" must be 4 or 6');
  if (afi !== undefined && version !== null && afi !== version) {
    throw bad(`"prefix" ${String(prefix)} is not an IPv${afi} prefix`);
  }
  if (
    limit !== undefined &&
    (!Number.isInteger(limit) || (limit as number) < 1 || (limit as number) > MAX_RIB_LIMIT)
  ) {
    throw bad(`"limit" must be an integer in 1..${MAX_RIB_LIMIT}`);
  }
  // A prefix alone says which family to look in.
  const family = (afi as 4 | 6 | undefined) ?? version ?? undefined;
  return {
    ...(prefix !== undefined && { prefix: prefix as string }),
    ...(family !== undefined && { afi: family }),
    limit: (limit as number | undefined) ?? ApiDefaults.RIB_LIMIT,
  };
}

/** A prefix such as 198.18.10.0/24 or 2001:db8:10::/48 (not a bare address). */
export function prefixParam(params: Params): string {
  const { prefix } = params;
  if (typeof prefix !== 'string' || !prefix.includes('/') || prefixVersion(prefix) === null) {
    throw bad(`"prefix" must be a prefix such as 198.18.10.0/24, got ${JSON.stringify(prefix)}`);
  }
  return prefix;
}

const WATCH_TOPICS: readonly WatchTopic[] = ['bestpath', 'sessions'];

/** The topics a watch asks for; all of them when left out. */
export function watchTopicsParam(params: Params): WatchTopic[] {
  const { topics } = params;
  if (topics === undefined) return [...WATCH_TOPICS];
  if (!Array.isArray(topics) || topics.length === 0 || topics.some((t) => !WATCH_TOPICS.includes(t))) {
    throw bad(`"topics" must be a non-empty list of ${WATCH_TOPICS.join(', ')}`);
  }
  return [...new Set(topics as WatchTopic[])];
}

/** A file path the speaker opens: absolute, since the speaker's working directory is not the caller's. */
export function filePathParam(params: Params, field: string, required: boolean): string | undefined {
  const v = params[field];
  if (v === undefined && !required) return undefined;
  if (typeof v !== 'string' || !v.startsWith('/') || v.includes('\0'))
    throw bad(`"${field}" must be an absolute file path`);
  return v;
}

/** An MRT injection's name: letters, digits and . _ - (it is logged and listed). */
export function mrtNameParam(params: Params): string {
  const v = params.name;
  if (typeof v !== 'string' || !/^[A-Za-z0-9._-]{1,64}$/.test(v)) {
    throw bad(`"name" must be 1..64 letters, digits, '.', '_' or '-', got ${JSON.stringify(v)}`);
  }
  return v;
}
