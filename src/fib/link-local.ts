import { readFileSync } from 'node:fs';

/* Link-local next hops (RFC 4291 section 2.5.6): on the link by definition, so only usable with an interface. */

/** Whether an IPv6 address (RFC 5952 text) is link-local, fe80::/10. */
export function isLinkLocal(address: string): boolean {
  return /^fe[89ab][0-9a-f]?:/i.test(address);
}

/** The kernel's index of an interface (the reader's network namespace); undefined: no such link. */
export type IfindexOf = (name: string) => number | undefined;

/** if_nametoindex(3) through sysfs. */
export const sysfsIfindex: IfindexOf = (name) => {
  if (!/^[^/\s\0%]{1,15}$/.test(name) || name === '.' || name === '..') return undefined;
  try {
    const n = Number.parseInt(readFileSync(`/sys/class/net/${name}/ifindex`, 'utf8'), 10);
    return Number.isInteger(n) && n > 0 ? n : undefined;
  } catch {
    return undefined;
  }
};
