/**
 * The installed command as an operator runs it: the POSIX shell script of package.json's bin,
 * built beside the Node bundle, against a real control server in this process. Its `show` and
 * `neighbor` go to the speaker as a `cli` request through socat or OpenBSD netcat and print
 * what the Node client prints; without a connector, or for anything it cannot be sure of, it
 * runs the Node client.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliReply, CliRunner, CliWrite } from '../../src/api/cli-framing.js';
import { type ControlServer, startControlServer } from '../../src/api/index.js';
import { runCliInSpeaker } from '../../src/cli/serve.js';
import { fakeControl } from '../api/fake-control.js';

const root = resolve(import.meta.dirname, '../..');

/** Where a program is on this machine's PATH, or undefined. */
function which(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const file = join(dir, name);
    if (dir && existsSync(file)) return file;
  }
  return undefined;
}

const SOCAT = which('socat');
const NC = which('nc.openbsd');
// CI installs both (scripts/deps.sh): there a missing one fails instead of skipping.
const HAVE_CONNECTORS = (SOCAT !== undefined && NC !== undefined) || process.env.CI === 'true';

/** The awks the decoder must work with, those installed here (mawk is Debian's default). */
const AWKS: readonly (readonly [string, string])[] = (
  [
    ['mawk', which('mawk')],
    ['gawk', which('gawk')],
    ['busybox awk', which('busybox')],
  ] as const
).flatMap(([name, file]) => (file === undefined ? [] : [[name, file] as const]));

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function run(file: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((done) =>
    execFile(
      file,
      [...args],
      { timeout: 30_000, env: { ...process.env, ...env }, maxBuffer: 64 << 20 },
      (e, stdout, stderr) => done({ code: e ? Number(e.code ?? -1) : 0, stdout, stderr }),
    ),
  );
}

/** FRR's epoch fields count whole seconds from now: two runs may fall on either side of one. */
const sameSecond = (r: Run): Run => ({
  ...r,
  stdout: r.stdout.replace(/("(?:peerUptime|bgpTimerUp)EstablishedEpoch": )\d+/g, '$1N'),
});

describe.skipIf(!HAVE_CONNECTORS)('the installed command (a POSIX shell script)', () => {
  let dir = '';
  let script = '';
  let bundle = '';
  let socket = '';
  let oldSocket = '';
  let echoSocket = '';
  let servers: ControlServer[] = [];
  /** PATH directories holding only what the script may use, one per case. */
  const paths: Record<string, string> = {};
  let served = 0;
  let lastArgv: readonly string[] = [];
  let echoReply: CliReply = { writes: [], status: 0 };

  const counting: CliRunner = (argv, call) => {
    served += 1;
    lastArgv = argv;
    return runCliInSpeaker(argv, call);
  };

  /** A PATH of symlinks: node, readlink and the given programs. */
  function pathWith(name: string, tools: Record<string, string | undefined>): string {
    const bin = join(dir, `path-${name}`);
    mkdirSync(bin);
    const all = { node: process.execPath, readlink: which('readlink'), ...tools };
    for (const [tool, file] of Object.entries(all)) if (file) symlinkSync(file, join(bin, tool));
    return bin;
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'obs-shell-cli-'));
    execFileSync(process.execPath, [join(root, 'scripts/build-cli.mjs'), join(dir, 'dist')], {
      cwd: root,
      stdio: 'pipe',
    });
    script = join(dir, 'dist/src/cli/ovn-bgp-speaker.sh');
    bundle = join(dir, 'dist/src/cli/ovn-bgp-speaker.cjs');
    socket = join(dir, 'control.sock');
    oldSocket = join(dir, 'old.sock');
    echoSocket = join(dir, 'echo.sock');
    servers = [
      await startControlServer({ path: socket, control: fakeControl(), cli: counting }),
      // A speaker from before `cli` requests: the command must still work against it.
      await startControlServer({ path: oldSocket, control: fakeControl() }),
      await startControlServer({
        path: echoSocket,
        control: fakeControl(),
        cli: async (argv) => {
          lastArgv = argv;
          return echoReply;
        },
      }),
    ];
    const awk = which('awk');
    paths.socat = pathWith('socat', { awk, socat: SOCAT });
    paths.nc = pathWith('nc', { awk, 'nc.openbsd': NC });
    paths.none = pathWith('none', { awk });
    for (const [name, file] of AWKS)
      paths[name] = pathWith(name.replace(' ', '-'), { awk: file, socat: SOCAT });
  }, 60_000);

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** The script with only `path` on PATH; also says whether the speaker ran the command. */
  async function shell(path: string, args: readonly string[], env: NodeJS.ProcessEnv = {}) {
    const before = served;
    const r = await run(script, args, { PATH: path, ...env });
    return { run: r, relayed: served > before };
  }
  const node = (args: readonly string[], env: NodeJS.ProcessEnv = {}) =>
    run(process.execPath, [bundle, ...args], env);

  const QUERIES: readonly (readonly string[])[] = [
    ['show', 'summary'],
    ['show', 'summary', '--json'],
    ['show', 'neighbors', '--json=native'],
    ['show', 'neighbors', 'spine1'],
    ['show', 'rib'],
    ['show', 'rib', '198.18.1.0/24', '--json'],
    ['show', 'rib', '198.18.99.0/24'],
    ['show', 'received', 'spine1'],
    ['show', 'ovn', 'problems'],
    ['neighbor', 'spine1', 'shutdown', '--message', 'back at 10:00, "ticket" #4\\2'],
    ['neighbor', 'spine9', 'reset'],
    ['show', 'rib', '--limit', 'x'],
    ['show', 'things'],
  ];

  describe.each(['socat', 'nc'])('through %s', (connector) => {
    it.each(QUERIES)('prints %j byte for byte as the Node client, stderr and status too', async (...args) => {
      const argv = [...args, '--socket', socket];
      const [viaShell, viaNode] = await Promise.all([shell(paths[connector]!, argv), node(argv)]);
      expect(viaShell.relayed).toBe(true);
      expect(sameSecond(viaShell.run)).toEqual(sameSecond(viaNode));
    });
  });

  it('runs the Node client when no connector is on PATH, and prints the same', async () => {
    for (const args of QUERIES.slice(0, 4)) {
      const argv = [...args, '--socket', socket];
      const viaShell = await shell(paths.none!, argv);
      expect(viaShell.relayed).toBe(false);
      expect(sameSecond(viaShell.run)).toEqual(sameSecond(await node(argv)));
    }
  });

  it('runs the Node client against a speaker that takes no cli requests', async () => {
    for (const connector of ['socat', 'nc']) {
      const argv = ['show', 'summary', '--socket', oldSocket];
      const viaShell = await run(script, argv, { PATH: paths[connector] });
      expect(viaShell).toEqual(await node(argv));
      expect(viaShell.stdout).toContain('BGP router identifier');
    }
  });

  it('runs the Node client for an answer longer than the speaker formats, and prints the same', async () => {
    const path = join(dir, 'short.sock');
    const short = await startControlServer({
      path,
      control: fakeControl(),
      cli: runCliInSpeaker,
      cliMaxResultEntries: 2,
    });
    try {
      const argv = ['show', 'rib', '--socket', path];
      const viaShell = await run(script, argv, { PATH: paths.socat });
      expect(viaShell).toEqual(await node(argv));
      expect(viaShell.stdout).toContain('Displayed 4 routes');
    } finally {
      await short.close();
    }
  });

  it('says what the Node client says when no speaker listens', async () => {
    const argv = ['show', 'summary', '--socket', join(dir, 'nothing.sock')];
    const viaShell = await run(script, argv, { PATH: paths.socat });
    expect(viaShell).toEqual(await node(argv));
    expect(viaShell.code).toBe(1);
    expect(viaShell.stderr).toMatch(/is the speaker running/);
  });

  it('finds the socket as the Node client does: the last --socket, --socket=, else the environment', async () => {
    const cases: [readonly string[], NodeJS.ProcessEnv][] = [
      [['show', 'sinks', '--socket', oldSocket, '--socket', socket], {}],
      [['show', 'sinks', `--socket=${socket}`], {}],
      [['show', 'sinks'], { OVN_BGP_SPEAKER_SOCKET: socket }],
    ];
    for (const [argv, env] of cases) {
      const viaShell = await shell(paths.socat!, argv, env);
      expect(viaShell.relayed).toBe(true);
      expect(viaShell.run).toEqual(await node(argv, env));
    }
  });

  it('leaves to Node what it cannot be sure of: help, --, a --socket value it cannot pass on', async () => {
    const cases: (readonly string[])[] = [
      ['show', '--help'],
      ['neighbor', '-h'],
      ['show', 'summary', '--socket', socket, '--', 'x'],
      ['show', 'summary', '--socket'],
      ['show', 'summary', '--socket', '--json'],
      ['show', 'summary', `--socket=${socket},x`],
      ['version'],
    ];
    for (const argv of cases) {
      const viaShell = await shell(paths.socat!, argv);
      expect(viaShell.relayed, argv.join(' ')).toBe(false);
      expect(viaShell.run).toEqual(await node(argv));
    }
  });

  it('works through a symlink, as npm links it into node_modules/.bin', async () => {
    const link = join(dir, 'bin-link');
    symlinkSync(script, link);
    const before = served;
    const r = await run(link, ['show', 'sinks', '--socket', socket], { PATH: paths.socat });
    expect(served).toBe(before + 1);
    expect(r).toEqual(await node(['show', 'sinks', '--socket', socket]));
  });

  /** An argument of anything a command line can carry, heavy on what needs escaping. */
  const ARG = fc.string({
    unit: fc.oneof(
      fc.constantFrom(' ', '"', "'", '\\', '\n', '\r', '\t', '$', '`', '%', '=', '-', '{', 'é', '字', '🙂'),
      fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }),
    ),
    maxLength: 12,
  });
  /** Not an option the script reads itself (those have their own tests). */
  const POSITIONAL = ARG.filter((a) => !a.startsWith('-') && !a.includes('\0'));

  describe.each(AWKS.map(([name]) => name))('with %s', (awk) => {
    it('hands the speaker every argument as it was given', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(POSITIONAL, { maxLength: 5 }), async (args) => {
          const argv = ['show', ...args, '--socket', echoSocket];
          echoReply = { writes: [], status: 0 };
          const r = await run(script, argv, { PATH: paths[awk] });
          expect(r.code).toBe(0);
          expect(lastArgv).toEqual(argv);
        }),
        { numRuns: 25 },
      );
    });

    it('prints every line the speaker sends on its stream, and exits with its status', async () => {
      const text = fc.string({
        unit: fc.oneof(
          fc.constantFrom(' ', '\n', '\r', '\t', '1 ', '2 ', 'exit 0', '\\', '%', 'é', '🙂'),
          fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }).filter((c) => c !== '\0'),
        ),
        maxLength: 30,
      });
      const write = fc.record({ fd: fc.constantFrom(1 as const, 2 as const), text });
      await fc.assert(
        fc.asyncProperty(
          fc.array(write, { maxLength: 6 }),
          fc.constantFrom(0, 1, 2, 3),
          async (writes, status) => {
            echoReply = { writes, status };
            const r = await run(script, ['show', '--socket', echoSocket], { PATH: paths[awk] });
            const printed = (fd: 1 | 2) =>
              writes
                .filter((w: CliWrite) => w.fd === fd)
                .map((w) => `${w.text}\n`)
                .join('');
            expect(r).toEqual({ code: status, stdout: printed(1), stderr: printed(2) });
          },
        ),
        { numRuns: 25 },
      );
    });

    it('carries a long answer whole', async () => {
      const lines = Array.from(
        { length: 200_000 },
        (_, i) => `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}/32 x`,
      );
      echoReply = { writes: [{ fd: 1, text: lines.join('\n') }], status: 0 };
      const r = await run(script, ['show', '--socket', echoSocket], { PATH: paths[awk] });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`${lines.join('\n')}\n`);
    });

    it.each([
      ['1 half\n', 'closed the connection before answering'],
      ['1 half\nwhat?\nexit 0\n', 'answered a line that is not a CLI reply'],
    ])('exits 1 saying so when the answer is cut or garbled (%j)', async (answer, why) => {
      const path = join(dir, `raw-${awk.replace(' ', '-')}-${answer.length}.sock`);
      const raw = createServer((c) => {
        c.on('error', () => {});
        // After the request, as the speaker answers: closing first races the client's write.
        c.once('data', () => c.end(answer, () => c.destroy()));
      });
      await new Promise<void>((ready) => raw.listen(path, ready));
      try {
        const r = await run(script, ['show', '--socket', path], { PATH: paths[awk] });
        expect(r).toEqual({ code: 1, stdout: 'half\n', stderr: `ovn-bgp-speaker: ${path} ${why}\n` });
      } finally {
        await new Promise((closed) => raw.close(closed));
      }
    });
  });
});
