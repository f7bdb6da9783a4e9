/**
 * A zebra of FRR 8.4 in its own namespace, with one veth to a second namespace that holds the
 * next hops (two IPv4 and two IPv6 addresses, for ECMP). zebra runs as user frr with every path
 * explicit and no TCP vty; it is stopped by PID, and the namespaces are deleted, in destroy().
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createNamespace,
  createVeth,
  deleteNamespace,
  execInNamespace,
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

export interface ZebraEntry {
  protocol: string;
  instance?: number;
  distance: number;
  metric: number;
  installed?: boolean;
  selected?: boolean;
  nexthops: { ip?: string; fib?: boolean; active?: boolean }[];
}

export interface KernelRoute {
  dst: string;
  gateway?: string;
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

export class ZebraLab {
  readonly dir: string;
  /** The namespace zebra runs in (and whose kernel it programs). */
  readonly ns: string;
  readonly peerNs: string;
  readonly ifname: string;
  #zebra: ProcessRecord | undefined;

  private constructor(tag: string) {
    this.dir = mkdtempSync(join(tmpdir(), 'obs-zb-'));
    this.ns = `obs-zb-${tag}-r`;
    this.peerNs = `obs-zb-${tag}-p`;
    this.ifname = `obs-zb-r${tag}`;
  }

  get socket(): string {
    return zebraSocket(this.dir);
  }

  /** `tag`: at most 7 characters (interface names are limited to 15). */
  static async create(tag: string): Promise<ZebraLab> {
    const lab = new ZebraLab(tag);
    try {
      prepareFrrDir(lab.dir);
      writeFrrFile(
        join(lab.dir, 'zebra.conf'),
        `hostname obs-zb\nlog file ${join(lab.dir, 'zebra.log')} informational\n`,
      );
      await createNamespace(lab.ns);
      await createNamespace(lab.peerNs);
      const peerIf = `obs-zb-p${tag}`;
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
    this.#zebra = spawnDetached(
      zebraArgv(this.ns, this.dir),
      'frr/zebra',
      join(this.dir, 'zebra.out'),
    ).record;
    await waitUntil('zebra sockets', () => (zebraReady(this.dir) ? true : undefined), 10_000, 25);
    // Next hops resolve over the veth's connected routes: wait until zebra has read them from
    // the kernel, or a route sent in the first milliseconds may stay unresolved (zebra sends no
    // notification for a route it cannot resolve; it would show as `pending`).
    await waitUntil('zebra to know the connected routes', async () => {
      const v4 = (await this.zebraRoutes())['198.18.40.0/24']?.[0];
      const v6 = (await this.zebraRoutes(true))['2001:db8:40::/64']?.[0];
      return v4?.protocol === 'connected' && v6?.protocol === 'connected' ? true : undefined;
    });
  }

  /** SIGKILL leaves zebra's kernel routes behind (the next zebra sweeps them); SIGTERM takes ~2 s. */
  async stopZebra(signal: 'SIGKILL' | 'SIGTERM'): Promise<void> {
    const rec = this.#zebra;
    if (!rec) return;
    this.#zebra = undefined;
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

  async zebraRoutes(v6 = false): Promise<Record<string, ZebraEntry[]>> {
    const out = await execInNamespace(this.ns, [
      'vtysh',
      '--vty_socket',
      this.dir,
      '-c',
      `show ${v6 ? 'ipv6' : 'ip'} route json`,
    ]);
    return JSON.parse(out);
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

  async destroy(): Promise<void> {
    try {
      await this.stopZebra('SIGTERM');
    } finally {
      await deleteNamespace(this.ns);
      await deleteNamespace(this.peerNs);
      rmSync(this.dir, { recursive: true, force: true });
    }
  }
}
