/**
 * zebra for the sink's lab tests: the host's FRR 8.4 or the trixie root's FRR 10.3
 * (scripts/trixie-root.sh), run as that FRR's user frr with every path explicit and no TCP vty,
 * stopped by PID. `ZebraLab` gives it a namespace of its own with one veth to a second
 * namespace that holds the next hops (two IPv4 and two IPv6 addresses, for ECMP); `Zebra`
 * alone runs in a namespace someone else made (a Lab's speaker namespace).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createNamespace,
  createVeth,
  DaemonRoot,
  deleteNamespace,
  linkLocalAddress,
  run,
} from '../../frr-interop/lab/index.js';
import { type ProcessRecord, spawnDetached, stopProcesses } from '../../frr-interop/lab/process.js';
import { waitFor } from '../../frr-interop/lab/wait.js';
import {
  prepareFrrDir,
  writeFrrFile,
  zebraArgv,
  zebraReady,
  zebraSocket,
} from '../../frr-interop/lab/zebra.js';

export const LAB_NH4 = ['198.18.40.2', '198.18.40.3'] as const;
export const LAB_NH6 = ['2001:db8:40::2', '2001:db8:40::3'] as const;

/** The zebras the sink is tested against: the same assertions run for each. */
export interface ZebraVersion {
  /** As the sink's status().zapi names its dialect. */
  readonly name: 'FRR 8.4' | 'FRR 10.3';
  /** Short, for namespace names. */
  readonly tag: string;
  /** Where its binaries come from: the host, or the trixie root (built on first use). */
  readonly root: () => Promise<DaemonRoot | undefined>;
}

export const ZEBRA_VERSIONS: readonly ZebraVersion[] = [
  { name: 'FRR 8.4', tag: '8', root: async () => undefined },
  { name: 'FRR 10.3', tag: '10', root: () => DaemonRoot.trixie() },
];

export interface ZebraEntry {
  protocol: string;
  instance?: number;
  distance: number;
  metric: number;
  installed?: boolean;
  selected?: boolean;
  nexthops: { ip?: string; fib?: boolean; active?: boolean; interfaceName?: string }[];
}

export interface KernelRoute {
  dst: string;
  gateway?: string;
  dev?: string;
  metric?: number;
  protocol?: string;
  via?: { family: string; host: string };
  nexthops?: { gateway: string }[];
}

export function waitUntil<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 10_000,
  intervalMs = 50,
): Promise<T> {
  return waitFor(async () => probe(), { timeoutMs, intervalMs, what });
}

/** One zebra in namespace `ns`, its files in a temp dir (mounted into the root when it has one). */
export class Zebra {
  readonly dir: string;
  readonly ns: string;
  readonly root: DaemonRoot | undefined;
  #proc: ProcessRecord | undefined;

  private constructor(ns: string, root: DaemonRoot | undefined) {
    this.ns = ns;
    this.root = root;
    this.dir = mkdtempSync(join(tmpdir(), 'obs-zb-'));
  }

  /** Prepares its directory; `start()` runs it. */
  static async create(ns: string, root?: DaemonRoot): Promise<Zebra> {
    const z = new Zebra(ns, root);
    try {
      prepareFrrDir(z.dir, root);
      writeFrrFile(
        join(z.dir, 'zebra.conf'),
        `hostname obs-zb\nlog file ${join(z.dir, 'zebra.log')} informational\n`,
        root,
      );
      await root?.mount(z.dir);
      return z;
    } catch (err) {
      await z.destroy();
      throw err;
    }
  }

  get socket(): string {
    return zebraSocket(this.dir);
  }

  async start(): Promise<void> {
    this.#proc = spawnDetached(
      zebraArgv(this.ns, this.dir, this.root),
      'frr/zebra',
      join(this.dir, 'zebra.out'),
    ).record;
    await waitUntil('zebra sockets', () => (zebraReady(this.dir) ? true : undefined), 10_000, 25);
  }

  /** SIGKILL leaves zebra's kernel routes behind (the next zebra sweeps them); SIGTERM takes ~2 s. */
  async stop(signal: 'SIGKILL' | 'SIGTERM'): Promise<void> {
    const rec = this.#proc;
    if (!rec) return;
    this.#proc = undefined;
    if (signal === 'SIGKILL') {
      try {
        process.kill(rec.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await stopProcesses([rec], { graceMs: 3000 });
    // Stale sockets would make zebraReady() true before the next zebra listens.
    rmSync(zebraSocket(this.dir), { force: true });
    rmSync(join(this.dir, 'zebra.vty'), { force: true });
  }

  /** `show ip[v6] route json`, through this zebra's own vtysh. */
  async routes(v6 = false): Promise<Record<string, ZebraEntry[]>> {
    const argv = ['vtysh', '--vty_socket', this.dir, '-c', `show ${v6 ? 'ipv6' : 'ip'} route json`];
    return JSON.parse(await run(this.root ? this.root.argv(argv) : argv));
  }

  async destroy(): Promise<void> {
    try {
      await this.stop('SIGTERM');
      if (this.root) {
        await this.root.unmount(this.dir);
      }
    } finally {
      rmSync(this.dir, { recursive: true, force: true });
    }
  }
}

export class ZebraLab {
  /** The namespace zebra runs in (and whose kernel it programs). */
  readonly ns: string;
  readonly peerNs: string;
  /** Our end of the veth, in `ns`. */
  readonly ifname: string;
  /** The other end, in `peerNs`: the next hops' side. */
  readonly peerIfname: string;
  readonly zebra: Zebra;

  private constructor(tag: string, zebra: Zebra) {
    this.ns = `obs-zb-${tag}-r`;
    this.peerNs = `obs-zb-${tag}-p`;
    this.ifname = `obs-zb-r${tag}`;
    this.peerIfname = `obs-zb-p${tag}`;
    this.zebra = zebra;
  }

  get dir(): string {
    return this.zebra.dir;
  }

  get socket(): string {
    return this.zebra.socket;
  }

  /** `tag`: at most 7 characters (interface names are limited to 15); zebra from `root` if given. */
  static async create(tag: string, root?: DaemonRoot): Promise<ZebraLab> {
    const lab = new ZebraLab(tag, await Zebra.create(`obs-zb-${tag}-r`, root));
    try {
      await createNamespace(lab.ns);
      await createNamespace(lab.peerNs);
      const peerIf = lab.peerIfname;
      await createVeth(
        { ns: lab.ns, ifname: lab.ifname, ipv4: '198.18.40.1/24', ipv6: '2001:db8:40::1/64' },
        { ns: lab.peerNs, ifname: peerIf, ipv4: `${LAB_NH4[0]}/24`, ipv6: `${LAB_NH6[0]}/64` },
      );
      await run(['ip', '-n', lab.peerNs, '-batch', '-'], {
        input: `address add ${LAB_NH4[1]}/24 dev ${peerIf}\naddress add ${LAB_NH6[1]}/64 dev ${peerIf} nodad\n`,
      });
      return lab;
    } catch (err) {
      await lab.destroy();
      throw err;
    }
  }

  async startZebra(): Promise<void> {
    await this.zebra.start();
    // Next hops resolve over the veth's connected routes: wait until zebra has read them from
    // the kernel, or a route sent in the first milliseconds may stay unresolved (zebra sends no
    // notification for a route it cannot resolve; it would show as `pending`).
    await waitUntil('zebra to know the connected routes', async () => {
      const v4 = (await this.zebraRoutes())['198.18.40.0/24']?.[0];
      const v6 = (await this.zebraRoutes(true))['2001:db8:40::/64']?.[0];
      return v4?.protocol === 'connected' && v6?.protocol === 'connected' ? true : undefined;
    });
  }

  stopZebra(signal: 'SIGKILL' | 'SIGTERM'): Promise<void> {
    return this.zebra.stop(signal);
  }

  zebraRoutes(v6 = false): Promise<Record<string, ZebraEntry[]>> {
    return this.zebra.routes(v6);
  }

  async kernelRoutes(v6: boolean, proto?: string): Promise<KernelRoute[]> {
    const argv = [
      'ip',
      '-n',
      this.ns,
      '-j',
      v6 ? '-6' : '-4',
      'route',
      'show',
      ...(proto ? ['proto', proto] : []),
    ];
    return JSON.parse((await run(argv, { timeoutMs: 60_000 })) || '[]');
  }

  /** The index of our end of the veth, in `ns` (where zebra runs). */
  async ifindex(): Promise<number> {
    const [link] = JSON.parse(await run(['ip', '-n', this.ns, '-j', 'link', 'show', 'dev', this.ifname]));
    return link.ifindex;
  }

  /** The link-local address the kernel gave the other end of the veth. */
  peerLinkLocal(): Promise<string> {
    return waitUntil(`a link-local address on ${this.peerIfname}`, () =>
      linkLocalAddress(this.peerNs, this.peerIfname),
    );
  }

  async destroy(): Promise<void> {
    try {
      await this.zebra.destroy();
    } finally {
      await deleteNamespace(this.ns);
      await deleteNamespace(this.peerNs);
    }
  }
}
