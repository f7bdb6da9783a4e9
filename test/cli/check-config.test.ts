import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkConfigFileArg } from '../../src/cli/check-config.js';
import { tempDir } from '../speaker/support.js';

// `check-config` takes its file as `run` does (`--config FILE`, `-c FILE`) or alone: it used to
// take the first argument as the file, so `check-config --config FILE` checked a file named
// "--config" ("--config: cannot read: no such file").

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

const t = tempDir();
afterAll(() => t.cleanup());
const GOOD = join(t.dir, 'good.yaml');
writeFileSync(GOOD, 'speaker: { name: s1, local_as: 65000, router_id: 198.18.0.1 }\n');
const BAD = join(t.dir, 'bad.yaml');
writeFileSync(BAD, 'speaker: { name: s1, local_as: 0, router_id: 198.18.0.1 }\n');

describe('checkConfigFileArg', () => {
  it('takes FILE, --config FILE, -c FILE and --config=FILE alike', () => {
    for (const args of [
      ['f.yaml'],
      ['--config', 'f.yaml'],
      ['-c', 'f.yaml'],
      ['--config=f.yaml'],
      ['f.yaml', '-c', 'f.yaml'],
    ]) {
      expect(checkConfigFileArg(args), args.join(' ')).toEqual({ file: 'f.yaml' });
    }
  });

  it('refuses two different files, an unknown option, a missing file', () => {
    expect(checkConfigFileArg(['a.yaml', '--config', 'b.yaml'])).toEqual({
      error: 'two files given ("b.yaml" and "a.yaml"): give one',
    });
    expect(checkConfigFileArg(['a.yaml', 'b.yaml'])).toEqual({ error: 'unexpected argument "b.yaml"' });
    expect(checkConfigFileArg(['--file', 'a.yaml'])).toMatchObject({
      error: expect.stringContaining("'--file'"),
    });
    expect(checkConfigFileArg(['--config'])).toMatchObject({ error: expect.stringContaining('--config') });
    expect(checkConfigFileArg([])).toMatchObject({ error: expect.stringMatching(/^FILE is missing/) });
  });
});

describe('ovn-bgp-speaker check-config', () => {
  it('`--config FILE` checks FILE, as `FILE` does', async () => {
    const plain = await cli('check-config', GOOD);
    expect(plain).toEqual({ code: 0, stdout: `${GOOD}: ok (speaker s1, 0 peers, 0 routes)\n`, stderr: '' });
    expect(await cli('check-config', '--config', GOOD)).toEqual(plain);
    expect(await cli('check-config', '-c', GOOD)).toEqual(plain);
  });

  it('reports the file’s own problems under --config, and a missing file by its name', async () => {
    const plain = await cli('check-config', BAD);
    expect(plain.code).toBe(1);
    expect(plain.stdout).toContain('speaker.local_as');
    expect(await cli('check-config', '--config', BAD)).toEqual(plain);

    const missing = await cli('check-config', '--config', join(t.dir, 'absent.yaml'));
    expect(missing.code).toBe(1);
    expect(missing.stdout).toContain('absent.yaml');
    expect(missing.stdout).not.toContain('--config');
  });

  it('a usage error is status 2 with the usage', async () => {
    const r = await cli('check-config', GOOD, '--config', BAD);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^check-config: two files given/);
    expect(r.stderr).toContain('ovn-bgp-speaker check-config [--config] FILE');
  });
});
