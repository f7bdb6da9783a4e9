import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { KILL_WAIT, STOP_GRACE, STOP_POLL_INTERVAL } from './constants.js';
import { LabError } from './errors.js';
import { sleep } from './wait.js';

/**
 * A process the lab started. The kernel start time (field 22 of /proc/<pid>/stat) pins the PID to
 * this very process, so a PID reused after a crash is never signalled by mistake.
 */
export interface ProcessRecord {
  readonly pid: number;
  readonly startTime: string;
  /** What it is, e.g. "frr/bgpd" or "speaker". */
  readonly name: string;
}

interface ProcStat {
  readonly state: string;
  readonly startTime: string;
}

function readProcStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may contain spaces: split after the last ')'.
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = rest[0];
  const startTime = rest[19];
  if (state === undefined || startTime === undefined) return undefined;
  return { state, startTime };
}

/** True while the recorded process exists, is the same process, and is not a zombie. */
export function isRunning(rec: ProcessRecord): boolean {
  const st = readProcStat(rec.pid);
  return st !== undefined && st.startTime === rec.startTime && st.state !== 'Z' && st.state !== 'X';
}

/** Any PID (not only ours) that exists and is not a zombie: used for processes found in lab namespaces. */
export function recordOf(pid: number, name: string): ProcessRecord | undefined {
  const st = readProcStat(pid);
  return st === undefined ? undefined : { pid, startTime: st.startTime, name };
}

/** Sends a signal to a recorded process if it is still that process; false when it is gone. */
export function signalProcess(rec: ProcessRecord, signal: NodeJS.Signals): boolean {
  if (!isRunning(rec)) return false;
  try {
    process.kill(rec.pid, signal);
    return true;
  } catch {
    return false;
  }
}

export interface SpawnedProcess {
  readonly record: ProcessRecord;
  readonly child: ChildProcess;
}

/**
 * Starts a long-running process in its own session (so it outlives a crashed test runner and
 * the state file can still find it), with stdout and stderr appended to `logFile`.
 */
export function spawnDetached(argv: readonly string[], name: string, logFile: string): SpawnedProcess {
  const [file, ...args] = argv;
  if (file === undefined) throw new LabError('command-failed', 'empty command');
  const fd = openSync(logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn(file, args, { detached: true, stdio: ['ignore', fd, fd] });
  } finally {
    closeSync(fd);
  }
  child.on('error', () => {
    // Reported below through the missing pid, or later through the exit seen by isRunning.
  });
  child.unref();
  const pid = child.pid;
  const st = pid === undefined ? undefined : readProcStat(pid);
  if (pid === undefined || st === undefined) {
    throw new LabError('command-failed', `${argv.join(' ')}: could not start (see ${logFile})`);
  }
  return { record: { pid, startTime: st.startTime, name }, child };
}

async function waitGone(recs: readonly ProcessRecord[], timeoutMs: number): Promise<ProcessRecord[]> {
  const deadline = Date.now() + timeoutMs;
  let alive = recs.filter(isRunning);
  while (alive.length > 0 && Date.now() < deadline) {
    await sleep(STOP_POLL_INTERVAL);
    alive = alive.filter(isRunning);
  }
  return alive;
}

export interface StopOptions {
  /** Time between SIGTERM and SIGKILL; default STOP_GRACE. */
  readonly graceMs?: number;
}

/**
 * Stops processes by PID: SIGTERM (and SIGCONT, in case one is paused) to all of them first, one
 * bounded wait for all, then SIGKILL to the rest. Returns the records still running afterwards
 * (normally none).
 */
export async function stopProcesses(
  recs: readonly ProcessRecord[],
  opts: StopOptions = {},
): Promise<ProcessRecord[]> {
  const targets = recs.filter((r) => signalProcess(r, 'SIGTERM'));
  for (const r of targets) signalProcess(r, 'SIGCONT');
  const stubborn = await waitGone(targets, opts.graceMs ?? STOP_GRACE);
  for (const r of stubborn) signalProcess(r, 'SIGKILL');
  return waitGone(stubborn, KILL_WAIT);
}
