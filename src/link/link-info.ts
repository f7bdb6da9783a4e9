import { readFileSync } from 'node:fs';

/** What neighbour discovery needs to know of an interface, read when needed (it may come and go). */
export interface LinkInfo {
  readonly ifindex: number;
  /** "aa:bb:cc:dd:ee:ff", or undefined for a link without one. */
  readonly mac: string | undefined;
  /** The kernel's operstate: "up" once the link carries packets ("unknown" for some virtual links). */
  readonly up: boolean;
}

const IFNAME = /^[^/\s\0]{1,15}$/;

/** Linux interface names: 1..15 bytes (IFNAMSIZ - 1), no '/', no white space, not '.' or '..'. */
export function isInterfaceName(name: string): boolean {
  return IFNAME.test(name) && name !== '.' && name !== '..' && Buffer.byteLength(name) <= 15;
}

/** Reads /sys/class/net/NAME (the sysfs of the reader's network namespace); undefined: no such link. */
export function readLinkInfo(name: string): LinkInfo | undefined {
  if (!isInterfaceName(name)) return undefined;
  const dir = `/sys/class/net/${name}`;
  try {
    const ifindex = Number.parseInt(readFileSync(`${dir}/ifindex`, 'utf8'), 10);
    const mac = readFileSync(`${dir}/address`, 'utf8').trim();
    const state = readFileSync(`${dir}/operstate`, 'utf8').trim();
    return { ifindex, mac: mac === '' ? undefined : mac, up: state === 'up' || state === 'unknown' };
  } catch {
    return undefined;
  }
}
