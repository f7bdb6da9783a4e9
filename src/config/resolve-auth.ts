import { resolve as resolvePath } from 'node:path';
import { MAX_MD5_PASSWORD_BYTES } from './constants.js';
import type { Context } from './decoders.js';
import { type Path, problem } from './problem.js';
import type { PeerAuth } from './schema.js';
import type { RawPeer } from './sections.js';

export interface SecretFiles {
  /** Reads a password_file; throws (a Node error with `code`) when it cannot. */
  readonly readFile: (path: string) => string;
  /** Directory relative password_file paths start from; the configuration file's. */
  readonly baseDir?: string;
  /** The permission bits of a password_file (fs.statSync().mode); absent: not checked. */
  readonly modeOf?: (path: string) => number;
}

/** Group and other permission bits: a key anyone but its owner can read is not secret (as ssh refuses keys). */
const GROUP_OTHER_BITS = 0o077;

const octal = (mode: number): string => `0${(mode & 0o777).toString(8).padStart(3, '0')}`;

/** Whether a problem was already recorded at `path` or inside it. */
export function hasProblemUnder(ctx: Context, path: Path): boolean {
  return ctx.problems.some((p) => path.every((seg, i) => p.segments[i] === seg));
}

function fileErrorText(e: unknown): string {
  const code = (e as { code?: unknown }).code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'it is a directory';
  return e instanceof Error ? e.message : String(e);
}

function checkPassword(password: string, path: Path, ctx: Context, source: string): boolean {
  const bytes = Buffer.byteLength(password, 'utf8');
  if (bytes > MAX_MD5_PASSWORD_BYTES) {
    ctx.problems.push(
      problem(
        path,
        `${source} is ${bytes} bytes; Linux takes TCP-MD5 keys of at most ${MAX_MD5_PASSWORD_BYTES}`,
      ),
    );
    return false;
  }
  return true;
}

function readPasswordFile(
  file: string,
  path: Path,
  ctx: Context,
  files: SecretFiles,
): { password: string; file: string } | undefined {
  const abs = files.baseDir === undefined ? file : resolvePath(files.baseDir, file);
  let content: string;
  try {
    content = files.readFile(abs);
  } catch (e) {
    ctx.problems.push(problem(path, `cannot read ${abs}: ${fileErrorText(e)}`, file));
    return undefined;
  }
  const mode = files.modeOf?.(abs);
  if (mode !== undefined && (mode & GROUP_OTHER_BITS) !== 0) {
    ctx.problems.push(
      problem(
        path,
        `${abs} has mode ${octal(mode)}: group and others must have no access to a password file (chmod 600 ${abs})`,
        file,
      ),
    );
    return undefined;
  }
  // Files written by `echo secret > file` end in a newline that is not part of the key.
  const password = content.replace(/\r?\n$/, '');
  if (password === '') {
    ctx.problems.push(problem(path, `${abs} is empty`, file));
    return undefined;
  }
  if (/[\r\n]/.test(password)) {
    ctx.problems.push(problem(path, `${abs} holds more than one line`, file));
    return undefined;
  }
  return checkPassword(password, path, ctx, `the password in ${abs}`) ? { password, file: abs } : undefined;
}

/** md5 needs exactly one of password and password_file; none takes neither. */
export function resolveAuth(
  raw: Pick<RawPeer, 'authType' | 'password' | 'passwordFile'>,
  path: Path,
  ctx: Context,
  files: SecretFiles,
): PeerAuth | undefined {
  if ((raw.authType ?? 'none') === 'none') {
    for (const key of ['password', 'password_file'] as const) {
      if ((key === 'password' ? raw.password : raw.passwordFile) !== undefined) {
        ctx.problems.push(problem([...path, key], 'is set but auth_type is none; add auth_type: md5'));
      }
    }
    return { type: 'none' };
  }
  if (raw.password !== undefined && raw.passwordFile !== undefined) {
    ctx.problems.push(problem([...path, 'password_file'], 'give password or password_file, not both'));
    return undefined;
  }
  if (raw.password !== undefined) {
    const ok = checkPassword(raw.password, [...path, 'password'], ctx, 'the password');
    return ok ? { type: 'md5', password: raw.password, passwordFile: undefined } : undefined;
  }
  if (raw.passwordFile !== undefined) {
    const read = readPasswordFile(raw.passwordFile, [...path, 'password_file'], ctx, files);
    return read && { type: 'md5', password: read.password, passwordFile: read.file };
  }
  // A password that was given but bad has its own problem already.
  if (!hasProblemUnder(ctx, [...path, 'password']) && !hasProblemUnder(ctx, [...path, 'password_file'])) {
    ctx.problems.push(problem([...path, 'password'], 'auth_type is md5: give password or password_file'));
  }
  return undefined;
}
