import { invalid } from './errors.js';
import { type RunOptions, run, runResult } from './exec.js';

/** Linux limits interface names to IFNAMSIZ - 1 characters. */
const MAX_IFNAME = 15;
const NS_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;
const IF_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;

/**
 * Per-namespace kernel settings: no duplicate address detection, so IPv6 addresses (link-local
 * ones included, which `nodad` cannot reach) are usable at once; forwarding, so the speaker can
 * program routes that are actually used.
 */
const NAMESPACE_SYSCTLS = [
  'net.ipv6.conf.all.accept_dad=0',
  'net.ipv6.conf.default.accept_dad=0',
  'net.ipv4.ip_forward=1',
  'net.ipv6.conf.all.forwarding=1',
];

function checkNamespace(name: string): void {
  if (!NS_NAME.test(name)) throw invalid(`bad namespace name ${JSON.stringify(name)}`);
}

/** Creates a namespace with loopback up and the lab's sysctls; fails if it already exists. */
export async function createNamespace(name: string): Promise<void> {
  checkNamespace(name);
  await run(['ip', 'netns', 'add', name]);
  await run(['ip', 'netns', 'exec', name, 'sysctl', '-qw', ...NAMESPACE_SYSCTLS]);
  await run(['ip', '-n', name, 'link', 'set', 'lo', 'up']);
}

/** Deletes a namespace; a namespace that does not exist is not an error. */
export async function deleteNamespace(name: string): Promise<void> {
  checkNamespace(name);
  const r = await runResult(['ip', 'netns', 'del', name]);
  if (r.code !== 0 && !/No such file|not found/i.test(r.stderr)) {
    throw invalid(`ip netns del ${name}: ${r.stderr.trim()}`);
  }
}

/** Names of existing namespaces, optionally only those starting with `prefix`. */
export async function listNamespaces(prefix = ''): Promise<string[]> {
  const out = await run(['ip', 'netns', 'list']);
  return out
    .split('\n')
    .map((l) => l.trim().split(/\s+/)[0] ?? '')
    .filter((n) => n !== '' && n.startsWith(prefix));
}

/** PIDs of every process living in the namespace (empty when it does not exist). */
export async function namespacePids(name: string): Promise<number[]> {
  checkNamespace(name);
  const r = await runResult(['ip', 'netns', 'pids', name]);
  if (r.code !== 0) return [];
  return r.stdout
    .split('\n')
    .map((l) => Number.parseInt(l, 10))
    .filter((n) => Number.isInteger(n) && n > 0);
}

/** One end of a veth pair: its namespace, interface name and addresses in CIDR form. */
export interface VethEnd {
  readonly ns: string;
  readonly ifname: string;
  /** e.g. "198.18.1.1/24" */
  readonly ipv4?: string;
  /** e.g. "2001:db8:1::1/64"; added with `nodad`. */
  readonly ipv6?: string;
}

function checkIfname(name: string): void {
  if (name.length > MAX_IFNAME || !IF_NAME.test(name)) {
    throw invalid(`bad interface name ${JSON.stringify(name)} (at most ${MAX_IFNAME} characters)`);
  }
}

async function configureEnd(end: VethEnd): Promise<void> {
  const lines: string[] = [];
  if (end.ipv4) lines.push(`address add ${end.ipv4} dev ${end.ifname}`);
  if (end.ipv6) lines.push(`address add ${end.ipv6} dev ${end.ifname} nodad`);
  lines.push(`link set ${end.ifname} up`);
  await run(['ip', '-n', end.ns, '-batch', '-'], { input: `${lines.join('\n')}\n` });
}

/** Creates a veth pair directly inside the two namespaces, addresses both ends and brings them up. */
export async function createVeth(a: VethEnd, b: VethEnd): Promise<void> {
  checkNamespace(a.ns);
  checkNamespace(b.ns);
  checkIfname(a.ifname);
  checkIfname(b.ifname);
  await run([
    'ip',
    'link',
    'add',
    a.ifname,
    'netns',
    a.ns,
    'type',
    'veth',
    'peer',
    'name',
    b.ifname,
    'netns',
    b.ns,
  ]);
  await Promise.all([configureEnd(a), configureEnd(b)]);
}

/** The first link-local IPv6 address of an interface in a namespace; undefined while it has none. */
export async function linkLocalAddress(ns: string, ifname: string): Promise<string | undefined> {
  checkNamespace(ns);
  checkIfname(ifname);
  const out = await run(['ip', '-n', ns, '-j', '-6', 'addr', 'show', 'dev', ifname, 'scope', 'link']);
  const links = JSON.parse(out || '[]') as { addr_info?: { local?: string }[] }[];
  // Addresses the scope filter leaves out still come as empty objects.
  return links.flatMap((l) => l.addr_info ?? []).find((a) => a.local !== undefined)?.local;
}

/** Runs a command inside a namespace, bounded in time, and returns its stdout. */
export function execInNamespace(ns: string, argv: readonly string[], opts: RunOptions = {}): Promise<string> {
  checkNamespace(ns);
  return run(['ip', 'netns', 'exec', ns, ...argv], opts);
}
