import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FRR_DAEMON_DIR, FRR_USER } from './constants.js';
import { LabError } from './errors.js';

/** FRR daemons run as user frr (running them as root fails: root is not in group frrvty). */
function frrIds(): { uid: number; gid: number } {
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
export function prepareFrrDir(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const { uid, gid } = frrIds();
  chownSync(dir, uid, gid);
  chmodSync(dir, 0o755);
}

/** Writes a file the frr user owns. */
export function writeFrrFile(path: string, text: string): void {
  writeFileSync(path, text);
  const { uid, gid } = frrIds();
  chownSync(path, uid, gid);
}

export const zebraSocket = (dir: string): string => join(dir, 'zserv.api');

/** zebra in the foreground (so the spawned PID is the daemon), every path explicit, no TCP vty. */
export function zebraArgv(ns: string, dir: string): string[] {
  return [
    'ip',
    'netns',
    'exec',
    ns,
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
}

export function writeZebraConfig(dir: string, hostname: string): void {
  writeFrrFile(
    join(dir, 'zebra.conf'),
    `hostname ${hostname}\nlog file ${join(dir, 'zebra.log')} informational\n`,
  );
}

/** zebra is ready once its ZAPI socket and its vty socket exist. */
export const zebraReady = (dir: string): boolean =>
  existsSync(zebraSocket(dir)) && existsSync(join(dir, 'zebra.vty'));
