import {
  AddressError,
  addressBits,
  formatAddress,
  formatIp,
  formatWords,
  isV4Mapped,
  networkOf,
  type PrefixRules,
  parseIpPrefix,
  tryParseIp,
} from '../address/index.js';
import { Afi, type AfiCode } from '../bgp/wire/index.js';
import {
  IPV4_BROADCAST,
  IPV4_MULTICAST_FIRST_OCTET,
  IPV4_UNSPECIFIED,
  IPV6_MULTICAST_FIRST_BYTE,
  IPV6_UNSPECIFIED,
  MAX_PORT,
  OVSDB_DEFAULT_PORT,
} from './constants.js';
import { type Decoder, INVALID, scalar } from './decoders.js';
import { problem } from './problem.js';
import type { ConfigPrefix, OvsdbRemote } from './schema.js';

/* Decoders for addresses, prefixes, endpoints and paths: canonical text out, reasons for refusal in. */

/** The IPv4 address in the last 32 bits of an IPv6 one. */
const IPV4_IN_IPV6_AT = 12;

/** RFC 5952 text of an IPv4 or IPv6 address, or why it is not one. */
function parseAddress(t: string): { text: string; version: 4 | 6; first: number } | { error?: string } {
  if (t.includes('/')) return { error: 'a prefix, not an address' };
  if (t.includes('%')) return { error: 'zone indexes are not supported' };
  const ip = tryParseIp(t);
  if (!ip) return {};
  // RFC 4291 section 2.5.5.2: an IPv4 peer is written as IPv4, never v4-mapped (nor with a dotted tail).
  if (ip.family === 6 && (t.includes('.') || isV4Mapped(ip))) {
    return { error: `write the IPv4 address ${formatAddress(ip.bytes.subarray(IPV4_IN_IPV6_AT))} itself` };
  }
  return { text: formatIp(ip), version: ip.family, first: ip.bytes[0] };
}

/** By the first byte: RFC 5771 224.0.0.0/4, RFC 4291 section 2.7 ff00::/8. */
function isMulticast(a: { version: 4 | 6; first: number }): boolean {
  if (a.version === 6) return a.first === IPV6_MULTICAST_FIRST_BYTE;
  return a.first >= IPV4_MULTICAST_FIRST_OCTET.min && a.first <= IPV4_MULTICAST_FIRST_OCTET.max;
}

const UNSPECIFIED = new Set([IPV4_UNSPECIFIED, IPV6_UNSPECIFIED]);

export interface AddressRule {
  readonly version?: 4 | 6;
  /** The wildcard 0.0.0.0 / :: is fine (a listen address), else an error. */
  readonly wildcard?: boolean;
}

/** An IP address, returned in canonical text (RFC 5952 for IPv6). Unicast unless `wildcard`. */
export function ipAddress(rule: AddressRule = {}): Decoder<string> {
  const kind = rule.version === undefined ? 'an IP address' : `an IPv${rule.version} address`;
  return scalar(kind, (v, bad) => {
    if (typeof v !== 'string') return bad();
    const parsed = parseAddress(v);
    if (!('text' in parsed)) {
      return bad(
        parsed.error === undefined
          ? undefined
          : `expected ${kind}, got ${JSON.stringify(v)} (${parsed.error})`,
      );
    }
    if (rule.version !== undefined && parsed.version !== rule.version) return bad();
    if (UNSPECIFIED.has(parsed.text)) {
      return rule.wildcard ? parsed.text : bad(`expected ${kind}, got the wildcard ${JSON.stringify(v)}`);
    }
    if (isMulticast(parsed) || parsed.text === IPV4_BROADCAST) {
      return bad(`expected a unicast address, got ${JSON.stringify(v)}`);
    }
    return parsed.text;
  });
}

/** The IP version of canonical address text. */
export function versionOf(address: string): 4 | 6 {
  return address.includes(':') ? 6 : 4;
}

/** RFC 6286 section 2.1: the BGP Identifier is a non-zero 32-bit number, written as a dotted quad. */
export const routerId: Decoder<string> = scalar('a non-zero IPv4 dotted quad (RFC 6286)', (v, bad) => {
  if (typeof v !== 'string') return bad();
  const parsed = parseAddress(v);
  if (!('text' in parsed) || parsed.version !== 4) return bad();
  if (parsed.text === IPV4_UNSPECIFIED) return bad('the BGP Identifier must not be 0.0.0.0 (RFC 6286)');
  return parsed.text;
});

/** Host bits are kept here, so the error can name the network they hide. */
const CONFIG_PREFIX: PrefixRules = { hostBits: 'keep' };

/** Parses "198.18.0.0/15": canonical address, length, and the network when host bits are set. */
export function parsePrefix(t: string): { prefix: ConfigPrefix; network: string } | { error?: string } {
  const slash = t.indexOf('/');
  const a = parseAddress(slash < 0 ? t : t.slice(0, slash));
  if (slash < 0)
    return 'text' in a ? { error: `no length; a host route is ${a.text}/${addressBits(a.version)}` } : {};
  if (!('text' in a)) return {};
  try {
    const network = networkOf(parseIpPrefix(t, CONFIG_PREFIX));
    const afi: AfiCode = a.version === 4 ? Afi.IPV4 : Afi.IPV6;
    return {
      prefix: { afi, addr: a.text, len: network.len },
      network: formatWords(a.version, network.words),
    };
  } catch (error) {
    if (!(error instanceof AddressError)) throw error;
    const bits = addressBits(a.version);
    return error.kind === 'length-out-of-range'
      ? { error: `IPv${a.version} prefixes are at most /${bits}` }
      : {};
  }
}

export function formatPrefix(p: ConfigPrefix): string {
  return `${p.addr}/${p.len}`;
}

/** A prefix whose bits past the length are zero: "198.18.0.0/15", "2001:db8::/32". */
export const prefix: Decoder<ConfigPrefix> = scalar(
  'a prefix such as 198.18.0.0/15 or 2001:db8::/32',
  (v, bad) => {
    if (typeof v !== 'string') return bad();
    const parsed = parsePrefix(v);
    if (!('prefix' in parsed)) {
      return bad(
        parsed.error === undefined
          ? undefined
          : `expected a prefix such as 198.18.0.0/15, got ${JSON.stringify(v)} (${parsed.error})`,
      );
    }
    const p = parsed.prefix;
    if (parsed.network !== p.addr) {
      return bad(`${JSON.stringify(v)} has host bits set (the network is ${parsed.network}/${p.len})`);
    }
    return p;
  },
);

export const absolutePath: Decoder<string> = scalar('an absolute file path', (v, bad) =>
  typeof v === 'string' && v.startsWith('/') && !v.includes('\0') ? v : bad(),
);

/** A file path; a relative one is taken from the configuration file's directory. */
export const filePath: Decoder<string> = scalar('a file path', (v, bad) =>
  typeof v === 'string' && v !== '' && !v.includes('\0') ? v : bad(),
);

const HOST_NAME =
  /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
const PORT_TEXT = /^(0|[1-9][0-9]{0,4})$/;

function splitHostPort(t: string): { host: string; port?: string; bracketed: boolean } | undefined {
  if (t.startsWith('[')) {
    const close = t.indexOf(']');
    if (close < 0) return undefined;
    const tail = t.slice(close + 1);
    if (tail !== '' && !tail.startsWith(':')) return undefined;
    return { host: t.slice(1, close), port: tail === '' ? undefined : tail.slice(1), bracketed: true };
  }
  const parts = t.split(':');
  if (parts.length > 2) return undefined;
  return { host: parts[0], port: parts[1], bracketed: false };
}

function parsePort(t: string | undefined): number | undefined {
  if (t === undefined || !PORT_TEXT.test(t)) return undefined;
  const n = Number(t);
  return n >= 1 && n <= MAX_PORT ? n : undefined;
}

/** "127.0.0.1:9179" or "[::1]:9179": an address to listen on (metrics). */
export const listenAddress: Decoder<{ readonly address: string; readonly port: number }> = scalar(
  'ADDRESS:PORT, an IPv6 address in brackets ("[::1]:9179")',
  (v, bad) => {
    if (typeof v !== 'string') return bad();
    const hp = splitHostPort(v);
    const a = hp && parseAddress(hp.host);
    const port = parsePort(hp?.port);
    if (!hp || !a || !('text' in a) || port === undefined || (a.version === 6) !== hp.bracketed) return bad();
    return { address: a.text, port };
  },
);

/**
 * One OVSDB remote as OVS and OVN spell them (ovsdb-server(1) "Active database server
 * connection methods"): unix:FILE, tcp:HOST[:PORT], ssl:HOST[:PORT], IPv6 hosts in brackets.
 */
function parseRemote(t: string): OvsdbRemote | string {
  const colon = t.indexOf(':');
  const method = colon < 0 ? t : t.slice(0, colon);
  const rest = colon < 0 ? '' : t.slice(colon + 1);
  if (method === 'unix') {
    return rest.startsWith('/') ? { method, path: rest, text: t } : 'unix: needs an absolute path';
  }
  if (method !== 'tcp' && method !== 'ssl') return 'the method is unix:, tcp: or ssl:';
  const hp = splitHostPort(rest);
  if (!hp) return 'an IPv6 host goes in brackets, e.g. tcp:[2001:db8::1]:6641';
  const a = parseAddress(hp.host);
  const isIp = 'text' in a;
  if (!isIp && !HOST_NAME.test(hp.host)) return `${JSON.stringify(hp.host)} is not a host`;
  if (isIp && (a.version === 6) !== hp.bracketed) return 'an IPv6 host goes in brackets';
  const port = hp.port === undefined ? OVSDB_DEFAULT_PORT : parsePort(hp.port);
  if (port === undefined) return `bad port ${JSON.stringify(hp.port)}`;
  return { method, host: isIp ? a.text : hp.host, port, portGiven: hp.port !== undefined, text: t };
}

/** A connection string: one remote or a comma-separated list of them (a RAFT cluster). */
export const ovsdbRemotes: Decoder<readonly OvsdbRemote[]> = scalar(
  'an OVSDB connection string such as "tcp:198.18.0.10:6641,tcp:198.18.0.11:6641"',
  (v, bad, path, ctx) => {
    if (typeof v !== 'string' || v.trim() === '') return bad();
    const out: OvsdbRemote[] = [];
    for (const part of v.split(',')) {
      const spec = part.trim();
      const r = parseRemote(spec);
      if (typeof r === 'string') return bad(`${JSON.stringify(spec)} is not an OVSDB remote: ${r}`);
      if (r.method !== 'unix' && !r.portGiven) {
        ctx.warnings.push(
          problem(
            path,
            `${spec} has no port: OVSDB's default ${OVSDB_DEFAULT_PORT} is used (OVN listens on 6641 for NB, 6642 for SB)`,
          ),
        );
      }
      out.push(r);
    }
    return out;
  },
);

/** A keyword ('self', …) or an IP address of any version, for next hops. */
export function keywordOrAddress(keywords: readonly string[]): Decoder<string> {
  const address = ipAddress();
  const expected = `${keywords.join(', ')} or an IP address`;
  return scalar(expected, (v, bad, path, ctx) => {
    if (typeof v === 'string' && keywords.includes(v)) return v;
    if (typeof v !== 'string') return bad();
    const scratch = { problems: [], warnings: ctx.warnings };
    const a = address.decode(v, path, scratch);
    return a === INVALID ? bad() : a;
  });
}

/** A prefix-list entry's prefix: canonical "addr/len", or FRR's "any". */
export const prefixOrAny: Decoder<string> = {
  expected: `any or ${prefix.expected}`,
  shape: { kind: 'scalar' },
  decode(v, path, ctx) {
    if (v === 'any') return v;
    const p = prefix.decode(v, path, ctx);
    return p === INVALID ? INVALID : formatPrefix(p);
  },
};
