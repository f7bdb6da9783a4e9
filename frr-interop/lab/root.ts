import { execFileSync } from 'node:child_process';
import { type Dirent, existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LabError } from './errors.js';
import { run, runResult } from './exec.js';

/** Building the root takes a minute or two (debootstrap and the packages), once per machine. */
const BUILD_TIMEOUT = 20 * 60_000;

/** scripts/trixie-root.sh of this checkout, from the sources or from their build in dist/. */
function rootScript(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dir !== dirname(dir); dir = dirname(dir)) {
    const script = join(dir, 'scripts', 'trixie-root.sh');
    if (existsSync(script)) return script;
  }
  throw new LabError('unsupported', 'scripts/trixie-root.sh not found above the lab');
}

/**
 * A Debian root whose daemons (FRR 10.3, BIRD 3.1, GoBGP 3.36, OVN 25.03, OVS 3.5) run in the
 * lab's namespaces: `ip netns exec NS chroot ROOT CMD`, so the PID the lab records is the
 * daemon's own (both exec). A daemon's working directory is bind-mounted at the same path
 * inside the root, so configs, sockets and logs mean the same on both sides; client tools
 * (vtysh, birdc, ovn-nbctl) run chrooted too, against those sockets.
 */
export class DaemonRoot {
  readonly path: string;
  /** Host dir mounted → the mount point's first directory `mount` created (its parents were there). */
  readonly #mounts = new Map<string, string>();

  private constructor(path: string) {
    this.path = path;
  }

  /** The trixie root, built by scripts/trixie-root.sh when this machine has none yet. */
  static async trixie(): Promise<DaemonRoot> {
    trixieRoot ??= run(['bash', rootScript(), 'ensure'], { timeoutMs: BUILD_TIMEOUT }).then(
      (out) => new DaemonRoot(out.trim().split('\n').pop() ?? ''),
    );
    trixieRoot.catch(() => {
      trixieRoot = undefined;
    });
    return trixieRoot;
  }

  /** A root built before (its path from a lab's state file, say), without running the build script. */
  static at(path: string): DaemonRoot {
    if (!existsSync(join(path, 'usr/bin')))
      throw new LabError('unsupported', `${path} is not a daemon root (no usr/bin)`);
    return new DaemonRoot(path);
  }

  /** The argv that runs `argv` from this root, inside namespace `ns` when one is given. */
  argv(argv: readonly string[], ns?: string): string[] {
    const chrooted = ['chroot', this.path, ...argv];
    return ns === undefined ? chrooted : ['ip', 'netns', 'exec', ns, ...chrooted];
  }

  /** The uid and gid a daemon's user has inside the root (they differ from the host's). */
  userIds(user: string): { uid: number; gid: number } {
    const line = readFileSync(join(this.path, 'etc/passwd'), 'utf8')
      .split('\n')
      .find((l) => l.startsWith(`${user}:`));
    const [, , uid, gid] = line?.split(':') ?? [];
    if (uid === undefined || gid === undefined)
      throw new LabError('unsupported', `no user ${user} in ${this.path}`);
    return { uid: Number(uid), gid: Number(gid) };
  }

  /**
   * Makes host directory `dir` visible at the same path inside the root; nothing to do when it
   * or a directory above it is mounted already.
   */
  async mount(dir: string): Promise<void> {
    const mounted = mountTargets();
    for (const m of this.#mounts.keys()) {
      // One unmounted behind its back (a teardown by another lab object) counts no more.
      if (!mounted.includes(join(this.path, m))) this.#mounts.delete(m);
      else if (dir === m || dir.startsWith(`${m}/`)) return;
    }
    const inside = join(this.path, dir);
    const created = mkdirSync(inside, { recursive: true }) ?? inside;
    await run(['mount', '--bind', dir, inside]);
    this.#mounts.set(dir, created);
  }

  /**
   * Undoes `mount` and removes the then empty mount point with the parents `mount` created for
   * it; a directory no longer mounted is not an error.
   */
  async unmount(dir: string): Promise<void> {
    const created = this.#mounts.get(dir);
    if (created === undefined) return;
    this.#mounts.delete(dir);
    const inside = join(this.path, dir);
    const r = await runResult(['umount', inside]);
    if (r.code !== 0 && !/not mounted|no mount point/i.test(r.stderr))
      throw new LabError('command-failed', `umount ${dir} in ${this.path}: ${r.stderr.trim()}`);
    removeMountPoint(inside, created);
  }

  /** Synchronous last resort at process exit: lazy-unmounts whatever is still mounted. */
  unmountAllNow(): void {
    for (const [dir, created] of this.#mounts) {
      const inside = join(this.path, dir);
      if (!existsSync(inside)) continue;
      try {
        execFileSync('umount', ['-l', inside], { stdio: 'ignore', timeout: 5000 });
      } catch {
        // already gone
      }
      removeMountPoint(inside, created);
    }
    this.#mounts.clear();
  }
}

let trixieRoot: Promise<DaemonRoot> | undefined;

/**
 * Lazily unmounts every bind mount of `dir` (or of a directory below it) inside a root, and
 * removes the empty mount points: what a lab leaves in the root it ran daemons from, also when
 * it died before its teardown. `root` is the root's path when known; without it every mount
 * whose path ends in `dir` (or goes on below it) after a root's path is taken.
 */
export async function unmountRootCopies(dir: string, root?: string): Promise<string[]> {
  const copies = new Set(root === undefined ? [] : [join(root, dir)]);
  const targets = mountTargets()
    .filter((target) => {
      const at = target.indexOf(dir);
      const rest = target.slice(at + dir.length);
      const match = at > 0 && (rest === '' || rest.startsWith('/'));
      if (match) copies.add(target.slice(0, at + dir.length));
      return match;
    })
    // Deepest first, so nothing is unmounted from under another mount.
    .sort((a, b) => b.length - a.length);
  for (const t of targets) await runResult(['umount', '-l', t]);
  for (const c of copies) removeEmptyDirs(c);
  return targets;
}

/** Every mount point of this mount namespace, as /proc/mounts lists them. */
function mountTargets(): string[] {
  return readFileSync('/proc/mounts', 'utf8')
    .split('\n')
    .map((line) => (line.split(' ')[1] ?? '').replace(/\\040/g, ' '))
    .filter(Boolean);
}

/**
 * Removes the empty mount point `inside`, then its parents up to and including `created`, the
 * first one `mount` made; stops at the first that is not empty (another mount's parent).
 */
function removeMountPoint(inside: string, created: string): void {
  removeEmptyDirs(inside);
  for (let dir = dirname(inside); dir.length >= created.length && dir !== dirname(dir); dir = dirname(dir)) {
    try {
      rmdirSync(dir);
    } catch {
      return;
    }
  }
}

/**
 * Removes `dir` and the directories below it when they hold nothing else. rmdir only: it never
 * removes a file, and a mount point still in use (EBUSY) or anything not empty stays.
 */
function removeEmptyDirs(dir: string): void {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) if (e.isDirectory()) removeEmptyDirs(join(dir, e.name));
  try {
    rmdirSync(dir);
  } catch {
    // not empty, or still a mount point
  }
}
