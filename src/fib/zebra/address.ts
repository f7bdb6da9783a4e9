import { formatIpv4, formatIpv6, parseIpv4, parseIpv6 } from '../../address/index.js';
import { AF, type AfNumber } from '../../bgp/transport/index.js';
import type { Reader, Writer } from '../../bgp/wire/index.js';
import { ZapiError } from './errors.js';

/*
 * Addresses and prefixes as ZAPI carries them: a Linux AF number, then network-order address
 * bytes. ROUTE_ADD/DELETE write only PSIZE = ceil(len / 8) bytes of the prefix; ROUTE_NOTIFY_OWNER
 * and ROUTER_ID_UPDATE write the full 4 or 16 (lib/zclient.c, zapi_route_encode vs zsend_*).
 */

/** A prefix on the wire: family, length, and the address as canonical text (host bits clear). */
export interface ZapiPrefix {
  readonly family: AfNumber;
  readonly len: number;
  readonly addr: string;
}

export function addressLength(family: AfNumber): 4 | 16 {
  return family === AF.INET ? 4 : 16;
}

export function maxPrefixLength(family: AfNumber): number {
  return family === AF.INET ? 32 : 128;
}

export function familyOfAddress(text: string): AfNumber {
  return text.includes(':') ? AF.INET6 : AF.INET;
}

export function checkFamily(family: number): AfNumber {
  if (family !== AF.INET && family !== AF.INET6)
    throw new ZapiError('malformed', `address family ${family} is neither AF_INET (2) nor AF_INET6 (10)`);
  return family;
}

/** Network-order bytes of an address given as text. */
export function addressBytes(text: string, family: AfNumber): Uint8Array {
  const out = new Uint8Array(addressLength(family));
  try {
    if (family === AF.INET) {
      const v = parseIpv4(text);
      out[0] = v >>> 24;
      out[1] = v >>> 16;
      out[2] = v >>> 8;
      out[3] = v;
    } else {
      const words = parseIpv6(text);
      for (let i = 0; i < 16; i++) out[i] = words[i >> 2] >>> (24 - 8 * (i & 3));
    }
  } catch (err) {
    throw new ZapiError('unencodable', (err as Error).message);
  }
  return out;
}

/** Canonical text (RFC 5952 for IPv6) of 4 or 16 network-order bytes. */
export function addressText(bytes: Uint8Array): string {
  const word = (i: number) =>
    ((bytes[i] << 24) | (bytes[i + 1] << 16) | (bytes[i + 2] << 8) | bytes[i + 3]) >>> 0;
  return bytes.length === 4 ? formatIpv4(word(0)) : formatIpv6(word(0), word(4), word(8), word(12));
}

/** Clears the bits past `len` (zebra applies the same mask, apply_mask()). */
function maskBytes(bytes: Uint8Array, len: number): Uint8Array {
  for (let i = 0; i < bytes.length; i++) {
    const keep = len - 8 * i;
    if (keep >= 8) continue;
    bytes[i] &= keep <= 0 ? 0 : (0xff << (8 - keep)) & 0xff;
  }
  return bytes;
}

function checkLength(family: AfNumber, len: number, kind: 'malformed' | 'unencodable'): void {
  if (!Number.isInteger(len) || len < 0 || len > maxPrefixLength(family))
    throw new ZapiError(kind, `prefix length ${len} out of range for family ${family}`);
}

/** u8 family, u8 len, PSIZE bytes (route messages). */
export function writeRoutePrefix(w: Writer, p: ZapiPrefix): void {
  checkLength(p.family, p.len, 'unencodable');
  const bytes = maskBytes(addressBytes(p.addr, p.family), p.len);
  w.u8(p.family)
    .u8(p.len)
    .bytes(bytes.subarray(0, (p.len + 7) >> 3));
}

export function readRoutePrefix(r: Reader): ZapiPrefix {
  const family = checkFamily(r.u8());
  const len = r.u8();
  checkLength(family, len, 'malformed');
  const bytes = new Uint8Array(addressLength(family));
  bytes.set(r.bytes((len + 7) >> 3));
  return { family, len, addr: addressText(maskBytes(bytes, len)) };
}

/** u8 family, u8 len, full address (ROUTE_NOTIFY_OWNER). */
export function readFullPrefix(r: Reader): ZapiPrefix {
  const family = checkFamily(r.u8());
  const len = r.u8();
  checkLength(family, len, 'malformed');
  const bytes = r.copy(addressLength(family));
  return { family, len, addr: addressText(maskBytes(bytes, len)) };
}

export function writeFullPrefix(w: Writer, p: ZapiPrefix): void {
  checkLength(p.family, p.len, 'unencodable');
  w.u8(p.family)
    .u8(p.len)
    .bytes(maskBytes(addressBytes(p.addr, p.family), p.len));
}

/**
 * The source prefix FRR 10.3 puts after a ROUTE_NOTIFY_OWNER's prefix: u8 len, then a full
 * address of the prefix's family (zeros, len 0, unless the route is source-specific).
 */
export function readSourcePrefix(r: Reader, family: AfNumber): ZapiPrefix | undefined {
  const len = r.u8();
  checkLength(family, len, 'malformed');
  const bytes = r.copy(addressLength(family));
  return len === 0 ? undefined : { family, len, addr: addressText(maskBytes(bytes, len)) };
}

export function writeSourcePrefix(w: Writer, family: AfNumber, p: ZapiPrefix | undefined): void {
  if (p === undefined) {
    w.u8(0).bytes(new Uint8Array(addressLength(family)));
    return;
  }
  if (p.family !== family)
    throw new ZapiError('unencodable', `source prefix of family ${p.family} for a prefix of ${family}`);
  checkLength(family, p.len, 'unencodable');
  w.u8(p.len).bytes(maskBytes(addressBytes(p.addr, family), p.len));
}

/** "198.18.0.0/24": the key the client's route table and status use. */
export function prefixText(p: ZapiPrefix): string {
  return `${p.addr}/${p.len}`;
}
