/**
 * A network namespace for the kernel route sink: a veth pair inside it (fk-v0 addressed
 * 198.18.40.1/24 and 2001:db8:40::1/64, peer fk-v1 up), so next hops 198.18.40.x and
 * 2001:db8:40::x are on a connected subnet. The test process enters the namespace (setns on its
 * main thread, where the netlink add-on opens its sockets) and leaves it in destroy().
 */
import { closeSync, openSync } from 'node:fs';
import koffi from 'koffi';
import { runResult } from '../../frr-interop/lab/exec.js';
import { createNamespace, deleteNamespace, run } from '../../frr-interop/lab/index.js';

export const KLAB_NH4 = ['198.18.40.2', '198.18.40.3'] as const;
export const KLAB_NH6 = ['2001:db8:40::2', '2001:db8:40::3'] as const;
const CLONE_NEWNET = 0x40000000;

let setnsFn: ((fd: number, nstype: number) => number) | undefined;

function setns(fd: number): void {
  setnsFn ??= koffi.load('libc.so.6').func('int setns(int fd, int nstype)') as (
    fd: number,
    t: number,
  ) => number;
  if (setnsFn(fd, CLONE_NEWNET) !== 0) throw new Error(`setns failed: errno ${koffi.errno()}`);
}

export interface IpRoute {
  dst: string;
  gateway?: string;
  dev?: string;
  protocol?: string;
  metric?: number;
  table?: string;
  via?: { family: string; host: string };
  nexthops?: { gateway?: string; dev?: string; via?: { family: string; host: string } }[];
}

export class KernelLab {
  readonly ns: string;
  readonly ifname = 'fk-v0';
  #home: number | undefined;

  private constructor(ns: string) {
    this.ns = ns;
  }

  /** `tag` keeps parallel labs apart: the namespace is fk-<tag>. */
  static async create(tag: string): Promise<KernelLab> {
    const lab = new KernelLab(`fk-${tag}`);
    try {
      await deleteNamespace(lab.ns);
      await createNamespace(lab.ns);
      await lab.batch([
        'link add fk-v0 type veth peer name fk-v1',
        'address add 198.18.40.1/24 dev fk-v0',
        'address add 2001:db8:40::1/64 dev fk-v0 nodad',
        'link set fk-v0 up',
        'link set fk-v1 up',
      ]);
      return lab;
    } catch (error) {
      await lab.destroy();
      throw error;
    }
  }

  /** Moves this thread (and the sockets it opens from now on) into the namespace. */
  enter(): void {
    if (this.#home !== undefined) return;
    this.#home = openSync('/proc/thread-self/ns/net', 'r');
    const target = openSync(`/run/netns/${this.ns}`, 'r');
    try {
      setns(target);
    } finally {
      closeSync(target);
    }
  }

  leave(): void {
    if (this.#home === undefined) return;
    setns(this.#home);
    closeSync(this.#home);
    this.#home = undefined;
  }

  ip(args: readonly string[], input?: string): Promise<string> {
    return run(['ip', '-n', this.ns, ...args], input === undefined ? {} : { input });
  }

  batch(lines: readonly string[]): Promise<string> {
    return this.ip(['-batch', '-'], `${lines.join('\n')}\n`);
  }

  /** `ip -j route show table T [proto P]` for one family. */
  async routes(v6: boolean, table: number | string, protocol?: number): Promise<IpRoute[]> {
    const args = [...(v6 ? ['-6'] : []), '-j', 'route', 'show', 'table', String(table)];
    if (protocol !== undefined) args.push('proto', String(protocol));
    // IPv6 has no table until a route goes in it: "FIB table does not exist" means empty.
    const r = await runResult(['ip', '-n', this.ns, ...args]);
    if (r.code !== 0 && /table does not exist/.test(r.stderr)) return [];
    if (r.code !== 0) throw new Error(`ip ${args.join(' ')}: ${r.stderr.trim()}`);
    return r.stdout.trim() === '' ? [] : (JSON.parse(r.stdout) as IpRoute[]);
  }

  /** Route count of a protocol in a table, both families (`ip route show` lines, for big tables). */
  async count(table: number, protocol: number): Promise<number> {
    let n = 0;
    for (const v of ['-4', '-6']) {
      const out = await this.ip([v, 'route', 'show', 'table', String(table), 'proto', String(protocol)]);
      n += out.split('\n').filter((l) => l !== '' && !l.startsWith('\t') && !l.startsWith(' ')).length;
    }
    return n;
  }

  async destroy(): Promise<void> {
    this.leave();
    await deleteNamespace(this.ns);
  }
}
