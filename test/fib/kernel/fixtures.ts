/**
 * rtnetlink bytes from fixtures/netlink/rtnetlink.json (what `ip` 6.1 sends and Linux 6.18
 * answers, captured by fixtures/netlink/capture.sh), and NLMSG_ERROR answers built by hand from
 * include/uapi/linux/netlink.h, because strace prints those decoded rather than as bytes.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { hex } from '../../support/hex.js';

interface Capture {
  readonly name: string;
  readonly command: string;
  readonly requests: readonly string[];
  readonly answers: readonly string[];
}

const CAPTURES: readonly Capture[] = JSON.parse(
  readFileSync(fileURLToPath(new URL('../../../fixtures/netlink/rtnetlink.json', import.meta.url)), 'utf8'),
);

export function capture(name: string): Capture {
  const c = CAPTURES.find((x) => x.name === name);
  if (!c) throw new Error(`no capture ${name}`);
  return c;
}

export function request(name: string): Uint8Array {
  const c = capture(name);
  if (c.requests.length !== 1) throw new Error(`${name}: ${c.requests.length} requests`);
  return Uint8Array.from(Buffer.from(c.requests[0], 'hex'));
}

export function answers(name: string): Uint8Array[] {
  return capture(name).answers.map((a) => Uint8Array.from(Buffer.from(a, 'hex')));
}

/** The ifindex of fk-c0 in the capture namespace (lo is 1, the pair 2 and 3). */
export const CAPTURE_IFINDEX = 3;

/** ACK of seq 7 with NETLINK_CAP_ACK: error 0 and the request's header only. */
export const ACK_CAPPED = hex`
  24000000 0200 0001 07000000 00000000   # nlmsghdr: len 36, NLMSG_ERROR, flags CAPPED, seq 7, pid 0
  00000000                               # error 0
  3c000000 1800 0506 07000000 00000000   # the request's nlmsghdr: len 60, NEWROUTE, REQUEST|ACK|EXCL|CREATE
`;

/** EEXIST for seq 8, capped, no TLVs. */
export const EEXIST_CAPPED = hex`
  24000000 0200 0001 08000000 00000000
  efffffff                               # error -17
  3c000000 1800 0406 08000000 00000000   # REQUEST|EXCL|CREATE (no ACK asked: errors come anyway)
`;

/** ENETUNREACH for seq 9, capped, with an extended-ACK message. */
export const ENETUNREACH_EXTACK = hex`
  44000000 0200 0003 09000000 00000000   # len 68, flags CAPPED|ACK_TLVS
  9bffffff                               # error -101
  34000000 1800 0406 09000000 00000000
  2000 0100                              # NLMSGERR_ATTR_MSG, len 32
  4e657874686f70206861732069 6e76616c69642067617465776179 00   # "Nexthop has invalid gateway\\0"
`;

/** ESRCH for seq 10 without NETLINK_CAP_ACK: the whole 44-byte request is echoed. */
export const ESRCH_UNCAPPED = hex`
  40000000 0200 0000 0a000000 00000000   # len 64, no flags
  fdffffff                               # error -3
  2c000000 1900 0500 0a000000 00000000   # the echoed DELROUTE ...
  02180000 feba ff00 00000000            # rtmsg
  08000100 c6130100 08000600 14000000    # RTA_DST 198.19.1.0, RTA_PRIORITY 20
`;
