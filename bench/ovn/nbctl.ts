/**
 * One timed NB change: `ovn-nbctl --wait=sb --print-wait-time ARGS`, whatever the build of
 * ovn-nbctl (the host's, or OVN 25.03's from the trixie root through `chroot`), and the
 * instant ovn-northd was done with it as the CommitWatch saw NB_Global.sb_cfg move.
 */
import { execFile } from 'node:child_process';
import type { CommitWatch } from './watch.js';

/** Arguments shown in an error: a batch has tens of thousands. */
const SHOWN_ARGS = 12;

export const withTimeout = <T>(p: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([
    p,
    new Promise<T>((_, reject) =>
      setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms).unref(),
    ),
  ]);

/**
 * ovn-nbctl with the changes of a sample; an error quotes its stderr, not 10,000 arguments.
 * `command` is how ovn-nbctl is run (`['ovn-nbctl']`, or `['chroot', ROOT, 'ovn-nbctl']`).
 */
export function nbctlChange(
  db: string,
  timeoutMs: number,
  args: readonly string[],
  command: readonly string[] = ['ovn-nbctl'],
): Promise<string> {
  const argv = [
    `--db=${db}`,
    `--timeout=${Math.ceil(timeoutMs / 1000)}`,
    '--wait=sb',
    '--print-wait-time',
    ...args,
  ];
  const [file, ...pre] = command;
  return new Promise((resolve, reject) => {
    execFile(
      file,
      [...pre, ...argv],
      { timeout: timeoutMs + 5000, maxBuffer: 64 << 20 },
      (err, stdout, stderr) => {
        if (!err) return resolve(stdout);
        const shown = argv.slice(0, SHOWN_ARGS).join(' ');
        reject(
          new Error(
            `ovn-nbctl ${shown}${argv.length > SHOWN_ARGS ? ` … (${argv.length} arguments)` : ''}: ${err.code ?? err.signal}: ${stderr.trim()}`,
          ),
        );
      },
    );
  });
}

/** ovn-northd's own time for the change, as `--print-wait-time` prints it (northd's clock). */
export function northdOwn(out: string): number {
  const m = /ovn-northd completion:\s*(-?\d+)ms/.exec(out);
  return m ? Number(m[1]) : Number.NaN;
}

/** performance.now() when sb_cfg reached `nbCfg`: ovn-northd had written SB for that commit. */
export async function northdDone(watch: CommitWatch, nbCfg: number, timeoutMs: number): Promise<number> {
  const end = performance.now() + timeoutMs;
  for (;;) {
    const at = watch.sbCfgAt(nbCfg);
    if (at !== undefined) return at;
    if (performance.now() > end) throw new Error(`sb_cfg never reached ${nbCfg}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

/**
 * The ovn-nbctl arguments that add `ips` as dnat_and_snat NATs of `router` (the i-th to
 * `logical(i)`), or remove them, in one commit either way. `nbctl` runs ovn-nbctl on the
 * lab's NB (needed to find the NATs' uuids for a removal).
 */
export async function natBatchArgs(
  change: 'add' | 'del',
  router: string,
  ips: readonly string[],
  logical: (i: number) => string,
  nbctl: (...args: string[]) => Promise<string>,
): Promise<string[]> {
  if (change === 'add')
    return ips.flatMap((ip, i) => ['--', 'lr-nat-add', router, 'dnat_and_snat', ip, logical(i)]).slice(1);
  // 10,000 lr-nat-del cost ovn-nbctl minutes before it commits (each scans the router's NATs
  // and rewrites its set); one `remove` of their uuids is the same commit.
  const listed = await nbctl(
    '--format=csv',
    '--data=bare',
    '--no-headings',
    '--columns=_uuid,external_ip',
    'list',
    'NAT',
  );
  const uuidOf = new Map(
    listed
      .trim()
      .split('\n')
      .map((l) => l.split(',').reverse() as [string, string]),
  );
  return ['remove', 'Logical_Router', router, 'nat', ...ips.map((ip) => uuidOf.get(ip) as string)];
}
