/**
 * The ZAPI captures in fixtures/zapi/ (made by frr-interop/capture/zapi-capture.ts): bgpd and
 * our sink talking to a real zebra of FRR 8.4.4 and of FRR 10.3, every frame whole.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { FRR_8_4, FRR_10_3, type ZapiDialect } from '../../../src/fib/zebra/index.js';

export interface CapturedFrame {
  readonly seq: number;
  readonly from: 'client' | 'zebra';
  readonly command: number;
  readonly hex: string;
}

export interface ZapiCapture {
  readonly name: string;
  readonly frr: { readonly version: string; readonly package: string };
  /** zebra's own name for each command number seen ("ZEBRA_HELLO"), from its debug log. */
  readonly commands: Record<string, string>;
  readonly events: { readonly afterSeq: number; readonly event: string }[];
  readonly connections: { readonly client: string; readonly frames: CapturedFrame[] }[];
}

function load(file: string): ZapiCapture {
  return JSON.parse(
    readFileSync(fileURLToPath(new URL(`../../../fixtures/zapi/${file}`, import.meta.url)), 'utf8'),
  );
}

/** Each capture with the dialect its zebra speaks. */
export const CAPTURES: readonly { readonly capture: ZapiCapture; readonly dialect: ZapiDialect }[] = [
  { capture: load('frr-8.4.4.json'), dialect: FRR_8_4 },
  { capture: load('frr-10.3.json'), dialect: FRR_10_3 },
];

export const bytesOf = (f: CapturedFrame): Uint8Array => Uint8Array.from(Buffer.from(f.hex, 'hex'));

/** The first connection of `client` ("bgpd" is bgpd's main zclient, its first). */
export function connection(c: ZapiCapture, client: string) {
  const conn = c.connections.find((x) => x.client === client);
  if (conn === undefined) throw new Error(`${c.name}: no ${client} connection`);
  return conn;
}

/** zebra's name of a command number in this capture, without the ZEBRA_ prefix. */
export function nameOf(c: ZapiCapture, command: number): string | undefined {
  return c.commands[String(command)]?.replace(/^ZEBRA_/, '');
}

/** The frames of one connection whose command zebra names `name` (e.g. "ROUTE_ADD"). */
export function framesNamed(
  c: ZapiCapture,
  conn: { frames: CapturedFrame[] },
  name: string,
  from: CapturedFrame['from'],
) {
  return conn.frames.filter((f) => f.from === from && nameOf(c, f.command) === name);
}
