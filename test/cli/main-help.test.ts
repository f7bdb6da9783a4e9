import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { asksForHelp, COMMAND_USAGE, commandHelp } from '../../src/cli/usage.js';

const MAIN = join(import.meta.dirname, '../../src/cli/main.ts');

function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', MAIN, ...args],
      { timeout: 30_000, cwd: join(import.meta.dirname, '../..') },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? -1) : 0, stdout, stderr }),
    );
  });
}

describe('COMMAND --help', () => {
  it.each(Object.keys(COMMAND_USAGE))(
    '`%s --help` prints that command’s usage and exits 0',
    async (command) => {
      const r = await cli(command, '--help');
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`ovn-bgp-speaker ${command}`);
      expect(r.stdout).toBe(`${commandHelp(command)}\n`);
    },
  );

  it('finds -h after other arguments, for show and neighbor subcommands too', async () => {
    const r = await cli('show', 'received', 'spine1', '-h');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('ovn-bgp-speaker show received PEER');
  });

  it('`help COMMAND` is the same text; an unknown one is a usage error', async () => {
    expect((await cli('help', 'run')).stdout).toBe(`${commandHelp('run')}\n`);
    const bad = await cli('help', 'frobnicate');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown command: frobnicate');
  });

  it('stops looking at `--`, so a file may be named -h', () => {
    expect(asksForHelp(['--', '-h'])).toBe(false);
    expect(asksForHelp(['x', '--help'])).toBe(true);
  });
});

describe('check-config without a file', () => {
  it('says the file is missing and that no default location is looked in', async () => {
    const r = await cli('check-config');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^check-config: FILE is missing/);
    expect(r.stderr).toContain('there is no default location, so none was looked in');
  });
});
