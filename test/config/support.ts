import { ConfigError, formatProblem, type LoadedConfig, parseConfig } from '../../src/config/index.js';

/** Four lines, so what a case adds starts on line 5. */
export const SPEAKER = `speaker:
  name: s1
  local_as: 65000
  router_id: 198.18.0.1
`;

export const FILE = 'config.yaml';

/** A reader over an in-memory set of files; anything else is ENOENT, as fs would say. */
export function memoryFiles(files: Record<string, string>): (path: string) => string {
  return (path) => {
    if (Object.hasOwn(files, path)) return files[path];
    throw Object.assign(new Error(`ENOENT: no such file or directory, open '${path}'`), { code: 'ENOENT' });
  };
}

export function parse(text: string, files: Record<string, string> = {}): LoadedConfig {
  return parseConfig(text, { file: FILE, readFile: memoryFiles(files) });
}

/** The ConfigError `text` raises; fails the test when it parses. */
export function configError(text: string, files: Record<string, string> = {}): ConfigError {
  try {
    parse(text, files);
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error('expected a ConfigError, but the configuration was accepted');
}

/** Problems as the operator reads them: "config.yaml:12:5 peers[1].remote_as: expected …". */
export function problemLines(text: string, files: Record<string, string> = {}): string[] {
  return configError(text, files).problems.map((p) => formatProblem(p, FILE));
}
