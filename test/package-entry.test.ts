import { execFile, execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlServer } from '../src/api/index.js';
import { fakeControl, SUMMARY } from './api/fake-control.js';

const root = resolve(import.meta.dirname, '..');

/**
 * The package as a user's program sees it: built with the project's build config, installed
 * under node_modules/ovn-bgp-speaker, and imported by name from an ES module.
 */
describe('the package entry point (package.json main)', () => {
  let dir = '';

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'obs-entry-'));
    const pkg = join(dir, 'pkg');
    mkdirSync(pkg);
    cpSync(join(root, 'package.json'), join(pkg, 'package.json'));
    cpSync(join(root, 'packaging'), join(pkg, 'packaging'), { recursive: true });
    symlinkSync(join(root, 'node_modules'), join(pkg, 'node_modules'));
    execFileSync(
      join(root, 'node_modules/.bin/tsc'),
      ['-p', join(root, 'tsconfig.build.json'), '--outDir', join(pkg, 'dist')],
      {
        cwd: root,
        stdio: 'pipe',
      },
    );
    execFileSync(process.execPath, [join(root, 'scripts/build-cli.mjs'), join(pkg, 'dist')], {
      cwd: root,
      stdio: 'pipe',
    });
    mkdirSync(join(dir, 'app/node_modules'), { recursive: true });
    symlinkSync(pkg, join(dir, 'app/node_modules/ovn-bgp-speaker'));
  }, 120_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('builds a speaker from a configuration, answers on its control socket, and decodes BGP', () => {
    const socket = join(dir, 'control.sock');
    const program = `
      import { Speaker, callControl, parseConfig, wire, ConfigError } from 'ovn-bgp-speaker';
      const { config } = parseConfig(\`
speaker: { name: entry, local_as: 65000, router_id: 198.18.0.1, listen: { address: 127.0.0.1, port: 0 }, control_socket: ${socket} }
routes: [{ prefix: 198.18.100.0/24 }]
\`);
      const speaker = await Speaker.start(config);
      speaker.flush();
      const summary = await callControl(speaker.controlSocket, 'summary', {});
      await speaker.close();
      const keepalive = wire.decodeMessage(new Uint8Array([...new Array(16).fill(255), 0, 19, 4]));
      let bad = '';
      try { parseConfig('speaker: { local_as: 0 }'); } catch (e) { bad = e instanceof ConfigError ? e.kind : 'other'; }
      console.log(JSON.stringify({ as: summary.localAs, rib: summary.rib, type: keepalive.type, bad }));
    `;
    writeFileSync(join(dir, 'app/main.mjs'), program);
    const out = execFileSync(process.execPath, [join(dir, 'app/main.mjs')], {
      cwd: join(dir, 'app'),
      encoding: 'utf8',
    });
    const result = JSON.parse(out.trim().split('\n').at(-1)!);
    expect(result).toMatchObject({ as: 65000, type: 'keepalive', bad: 'invalid' });
    expect(result.rib['ipv4-unicast']).toBe(1);
  });

  // The command package.json's bin names: a shell script that relays show and neighbor to the
  // speaker (test/cli/shell-client.test.ts) or runs the Node CLI, one bundled file for show and
  // neighbor, main.js for the rest.
  it('installs a command that answers show and hands every other command to main.js', async () => {
    const pkgJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    const bin = join(dir, 'pkg', pkgJson.bin['ovn-bgp-speaker']);
    expect(readFileSync(bin, 'utf8').startsWith('#!/bin/sh\n')).toBe(true);
    const socket = join(dir, 'bin-control.sock');
    const server = await startControlServer({ path: socket, control: fakeControl() });
    try {
      const run = (...args: string[]) =>
        new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
          execFile(bin, args, { timeout: 30_000 }, (e, stdout, stderr) =>
            resolve({ code: e ? Number(e.code ?? -1) : 0, stdout, stderr }),
          ),
        );
      const native = await run('show', 'summary', '--json=native', '--socket', socket);
      expect(native.code).toBe(0);
      expect(JSON.parse(native.stdout)).toEqual(SUMMARY);
      const frr = await run('show', 'summary', '--json', '--socket', socket);
      expect(Object.keys(JSON.parse(frr.stdout))).toEqual(['ipv4Unicast', 'ipv6Unicast']);
      expect(await run('neighbor', 'spine9', 'reset', '--socket', socket)).toEqual({
        code: 1,
        stdout: '',
        stderr: 'ovn-bgp-speaker: no neighbor named spine9\n',
      });
      expect(await run('version')).toEqual({
        code: 0,
        stdout: `ovn-bgp-speaker ${pkgJson.version}\n`,
        stderr: '',
      });
      const help = await run('show', '--help');
      expect(help.code).toBe(0);
      expect(help.stdout).toContain('ovn-bgp-speaker show summary');
    } finally {
      await server.close();
    }
  }, 60_000);

  it('packs the command, executable, with the bundle it runs', () => {
    const [pack] = JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
        cwd: join(dir, 'pkg'),
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    const files = new Map<string, number>(
      pack.files.map((f: { path: string; mode: number }) => [f.path, f.mode]),
    );
    const pkgJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    const bin: string = pkgJson.bin['ovn-bgp-speaker'];
    expect(files.get(bin)! & 0o111).toBe(0o111);
    expect(files.has('dist/src/cli/ovn-bgp-speaker.cjs')).toBe(true);
    expect(files.has('dist/src/cli/main.js')).toBe(true);
    expect(files.has('packaging/systemd/ovn-bgp-speaker.service')).toBe(true);
  }, 60_000);
});
