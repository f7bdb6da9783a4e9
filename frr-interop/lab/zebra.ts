import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FRR_DAEMON_DIR, FRR_USER } from './constants.js';
import { LabError } from './errors.js';
import type { DaemonRoot } from './root.js';

/**
 * FRR daemons run as user frr (running them as root fails: root is not in group frrvty); a
 * daemon from another root runs as that root's frr, whose ids differ from the host's.
 */
function frrIds(root?: DaemonRoot): { uid: number; gid: number } {
  if (root) return root.userIds(FRR_USER);
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${FRR_USER}:`));
  const [, , uid, gid] = line?.split(':') ?? [];
  if (uid === undefined || gid === undefined) {
    throw new LabError('unsupported', `no user ${FRR_USER}: install FRR (bash scripts/deps.sh)`);
  }
  return { uid: Number(uid), gid: Number(gid) };
}

/** A working directory the frr user can write its sockets, pid files and logs into. */
export function prepareFrrDir(dir: string, root?: DaemonRoot): void {
  mkdirSync(dir, { recursive: true });
  const { uid, gid } = frrIds(root);
  chownSync(dir, uid, gid);
  chmodSync(dir, 0o755);
}

/** Writes a file the frr user owns. */
export function writeFrrFile(path: string, text: string, root?: DaemonRoot): void {
  writeFileSync(path, text);
  const { uid, gid } = frrIds(root);
  chownSync(path, uid, gid);
}

export const zebraSocket = (dir: string): string => join(dir, 'zserv.api');

/**
 * zebra in the foreground (so the spawned PID is the daemon), every path explicit, no TCP vty;
 * from `root` when given (its `dir` must be mounted there).
 */
export function zebraArgv(ns: string, dir: string, root?: DaemonRoot): string[] {
  const argv = [
    join(FRR_DAEMON_DIR, 'zebra'),
    '-z',
    zebraSocket(dir),
    '--vty_socket',
    dir,
    '-i',
    join(dir, 'zebra.pid'),
    '-f',
    join(dir, 'zebra.conf'),
    '-P',
    '0',
  ];
  return root ? root.argv(argv, ns) : ['ip', 'netns', 'exec', ns, ...argv];
}

/** zebra's configuration: its log, and `extra` lines (e.g. `ip import-table 2`). */
export function writeZebraConfig(
  dir: string,
  hostname: string,
  root?: DaemonRoot,
  extra: readonly string[] = [],
): void {
  writeFrrFile(
    join(dir, 'zebra.conf'),
    [`hostname ${hostname}`, `log file ${join(dir, 'zebra.log')} informational`, ...extra, ''].join('\n'),
    root,
  );
}

/** zebra is ready once its ZAPI socket and its vty socket exist. */
export const zebraReady = (dir: string): boolean =>
  existsSync(zebraSocket(dir)) && existsSync(join(dir, 'zebra.vty'));
