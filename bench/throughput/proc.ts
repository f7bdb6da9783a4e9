/** What /proc says about a process: CPU time (all its threads) and resident memory. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Clock ticks per second of utime/stime (USER_HZ); 100 on Linux unless told otherwise. */
const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8', timeout: 5_000 }).trim()) || 100;
  } catch {
    return 100;
  }
})();
/** Fields 14 and 15 of /proc/PID/stat, counted after the command name. */
const UTIME_AFTER_NAME = 11;
const STIME_AFTER_NAME = 12;
const KIB = 1024;

/** User + system CPU seconds the process (every thread) has used so far. */
export function cpuSeconds(pid: number): number {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name may hold spaces and parentheses: fields are counted after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[UTIME_AFTER_NAME]) + Number(fields[STIME_AFTER_NAME])) / TICKS_PER_SECOND;
}

export interface Memory {
  /** Resident set now. */
  readonly rssBytes: number;
  /** Peak resident set since the process started (VmHWM). */
  readonly peakBytes: number;
  /** Of the resident set now, the anonymous part (RssAnon: heap, not the binary's pages). */
  readonly anonBytes: number;
}

export function memory(pid: number): Memory {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (key: string): number => {
    const m = text.match(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm'));
    if (!m) throw new Error(`/proc/${pid}/status has no ${key}`);
    return Number(m[1]) * KIB;
  };
  return { rssBytes: kib('VmRSS'), peakBytes: kib('VmHWM'), anonBytes: kib('RssAnon') };
}

/** The process's usage at one moment. */
export interface Usage {
  readonly cpuSeconds: number;
  readonly memory: Memory;
}

export function usage(pid: number): Usage {
  return { cpuSeconds: cpuSeconds(pid), memory: memory(pid) };
}
