import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { STATE_FILE } from './constants.js';
import type { ProcessRecord } from './process.js';

/** A process the lab started, with the lab node it belongs to ("speaker", a peer name, …). */
export interface OwnedProcess extends ProcessRecord {
  readonly owner: string;
}

/**
 * What a lab leaves on disk so another process (`lab.sh down`, a later `up`, a test's cleanup)
 * can find and remove everything after a crash. Namespaces are recorded before they are created.
 */
export interface LabStateFile<Options = unknown> {
  readonly version: 1;
  readonly id: string;
  readonly dir: string;
  readonly createdAt: string;
  readonly options: Options;
  readonly namespaces: readonly string[];
  readonly processes: readonly OwnedProcess[];
  /** The trixie root its daemons of today's versions run from, when it has any. */
  readonly trixieRoot?: string;
}

export const statePath = (dir: string): string => join(dir, STATE_FILE);

/** Reads the state file; undefined when it is missing or unreadable (cleanup then works from names). */
export function readState<Options>(dir: string): LabStateFile<Options> | undefined {
  const file = statePath(dir);
  if (!existsSync(file)) return undefined;
  try {
    const s = JSON.parse(readFileSync(file, 'utf8')) as LabStateFile<Options>;
    if (s.version !== 1 || !Array.isArray(s.namespaces) || !Array.isArray(s.processes)) return undefined;
    return s;
  } catch {
    return undefined;
  }
}

/** Writes atomically (temp file + rename), so a crash never leaves half a state file. */
export function writeState<Options>(state: LabStateFile<Options>): void {
  const file = statePath(state.dir);
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`);
  renameSync(tmp, file);
}
