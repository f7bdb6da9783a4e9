/**
 * What a lab run that died before its teardown left behind, found by the lab's name prefix
 * (`ol-<id>-`, `dr-<id>-`), which is that lab's alone: whatever lives in its namespaces is
 * stopped and they go; a daemon that runs in no namespace is stopped only if its pidfile is in
 * one of the lab's temp dirs and its command line names that dir; bind mounts of those dirs in
 * a daemon root are undone; the dirs go.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type DaemonRoot,
  deleteNamespace,
  listNamespaces,
  namespacePids,
  type ProcessRecord,
  recordOf,
  stopProcesses,
  unmountRootCopies,
} from '../../../frr-interop/lab/index.js';

export async function removeLabLeftovers(prefix: string, root?: DaemonRoot): Promise<void> {
  for (const ns of await listNamespaces(prefix)) {
    const pids = (await namespacePids(ns)).filter((p) => p !== process.pid);
    await stopProcesses(pids.flatMap((pid) => recordOf(pid, `left in ${ns}`) ?? []));
    await deleteNamespace(ns);
  }
  const dirs = readdirSync(tmpdir())
    .filter((d) => d.startsWith(prefix))
    .map((d) => join(tmpdir(), d));
  const daemons: ProcessRecord[] = [];
  for (const dir of dirs)
    for (const f of readdirSync(dir, { recursive: true })
      .map(String)
      .filter((n) => n.endsWith('.pid'))) {
      const pid = Number.parseInt(readFileSync(join(dir, f), 'utf8'), 10);
      const cmdline = Number.isInteger(pid) ? readCmdline(pid) : '';
      const rec = cmdline.includes(dir) ? recordOf(pid, `left by ${dir}`) : undefined;
      if (rec) daemons.push(rec);
    }
  await stopProcesses(daemons);
  // Without the root at hand, any root's copy of our dirs is found by its path.
  for (const dir of dirs) await unmountRootCopies(dir, root?.path);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}

function readCmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}
