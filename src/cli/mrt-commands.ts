import { basename, resolve } from 'node:path';
import { UsageError } from './show.js';

/** `dump rib [FILE]`: the speaker writes the file, so a relative FILE is made absolute here. */
export function dumpRequest(words: readonly string[], cwd: string = process.cwd()) {
  const [what, file, ...extra] = words;
  if (what !== 'rib' || extra.length > 0) throw new UsageError('dump: rib [FILE]');
  return { method: 'mrt.dump' as const, params: file === undefined ? {} : { path: resolve(cwd, file) } };
}

/** The name an injection gets when none is given: the file's name up to its first dot. */
export function injectionName(file: string): string {
  const base = basename(file)
    .split('.')[0]
    .replace(/[^A-Za-z0-9._-]/g, '_');
  return base === '' ? 'mrt' : base.slice(0, 64);
}

/** `mrt inject FILE [--name NAME]`, `mrt withdraw NAME`, `mrt list`. */
export function mrtRequest(words: readonly string[], name: string | undefined, cwd: string = process.cwd()) {
  const [action, arg, ...extra] = words;
  if (extra.length > 0) throw new UsageError(`mrt ${action}: unexpected ${extra.join(' ')}`);
  if (name !== undefined && action !== 'inject')
    throw new UsageError(`mrt ${action ?? ''}: --name goes with inject`);
  switch (action) {
    case 'inject':
      if (!arg) throw new UsageError('mrt inject: which FILE?');
      return {
        method: 'mrt.inject' as const,
        params: { name: name ?? injectionName(arg), path: resolve(cwd, arg) },
      };
    case 'withdraw':
      if (!arg) throw new UsageError('mrt withdraw: which NAME?');
      return { method: 'mrt.withdraw' as const, params: { name: arg } };
    case 'list':
      if (arg) throw new UsageError(`mrt list: unexpected ${arg}`);
      return { method: 'mrt.list' as const, params: {} };
    default:
      throw new UsageError('mrt: inject, withdraw or list?');
  }
}
