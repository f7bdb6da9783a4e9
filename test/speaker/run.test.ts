import { EventEmitter } from 'node:events';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CeaseSubcode } from '../../src/bgp/wire/constants.js';
import { runCommand } from '../../src/cli/run.js';
import { RunStatus, runSpeaker, type Speaker, SpeakerDefaults } from '../../src/speaker/index.js';
import { ACCEPT_ALL, Probe, probePeer, speakerSection, tempDir, until, yamlOf } from './support.js';

// The process lifecycle of `run --config FILE`, with the signals coming from a test emitter.

let cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

type Line = Record<string, unknown> & { level: number; msg: string };

function logSink() {
  const lines: Line[] = [];
  return { lines, stream: { write: (s: string) => lines.push(JSON.parse(s) as Line) } };
}

const INFO = 30;

describe('runSpeaker', () => {
  it('reloads on SIGHUP, stops on SIGTERM with a Cease to every peer and removes the control socket', async () => {
    const a = await Probe.start('127.0.0.2', 65001, '198.18.0.12');
    cleanups.push(() => a.close());
    const t = tempDir();
    cleanups.push(t.cleanup);
    const file = join(t.dir, 'speaker.yaml');
    const speakerDoc = speakerSection(t.dir, { log: { level: 'info' } });
    const doc = {
      speaker: speakerDoc,
      peers: [probePeer(a, { import: ['all'], export: ['all'] })],
      routes: [{ prefix: '198.18.190.0/24' }],
      policies: { all: ACCEPT_ALL },
    };
    writeFileSync(file, yamlOf(doc));
    const signals = new EventEmitter();
    const log = logSink();
    let speaker: Speaker | undefined;
    const exit = runSpeaker(file, {
      signals,
      logDestination: log.stream,
      onStarted: (s) => {
        speaker = s;
      },
    });
    await until(() => speaker !== undefined && a.established, 'the speaker up and peering');
    await until(() => a.table().has('198.18.190.0/24'), 'the static route at a');
    const many = Array.from({ length: 1000 }, (_, i) => `198.19.${i >> 8}.${i & 255}/32`);
    for (let i = 0; i < many.length; i += 500) a.announce(many.slice(i, i + 500));
    await until(() => speaker!.summary().rib['ipv4-unicast'] === 1001, 'a’s routes in the RIB');

    writeFileSync(file, yamlOf({ ...doc, routes: [{ prefix: '198.18.191.0/24' }] }));
    signals.emit('SIGHUP');
    await until(
      () => a.table().has('198.18.191.0/24') && !a.table().has('198.18.190.0/24'),
      'the reload at a',
    );
    // A file that does not load is reported and changes nothing.
    writeFileSync(file, 'speaker: [');
    signals.emit('SIGHUP');
    await until(() => log.lines.some((l) => /not reloaded/.test(l.msg)), 'the refused reload in the log');
    expect(a.table().has('198.18.191.0/24')).toBe(true);

    const socket = speaker!.controlSocket!;
    expect(existsSync(socket)).toBe(true);
    signals.emit('SIGTERM');
    expect(await exit).toBe(RunStatus.OK);
    expect(a.rec.notifications.at(-1)).toMatchObject({
      subcode: CeaseSubcode.ADMINISTRATIVE_SHUTDOWN,
      message: SpeakerDefaults.SHUTDOWN_MESSAGE,
    });
    expect(existsSync(socket)).toBe(false);

    // pino JSON: state changes at info, nothing per route (1000 routes, a few dozen lines).
    expect(log.lines.some((l) => l.level === INFO && /Established/.test(l.msg))).toBe(true);
    expect(log.lines.some((l) => l.msg === 'NOTIFICATION sent' && l.level === INFO)).toBe(true);
    expect(log.lines.length).toBeLessThan(100);
    expect(log.lines.filter((l) => JSON.stringify(l).includes('198.19.1.1/32'))).toEqual([]);
  });

  it('an unusable file is reported with its line and the status is 1', async () => {
    const t = tempDir();
    cleanups.push(t.cleanup);
    const file = join(t.dir, 'bad.yaml');
    writeFileSync(file, 'speaker:\n  name: x\n  local_as: 65000\n  router_id: 0.0.0.0\n');
    const err: string[] = [];
    expect(await runSpeaker(file, { stderr: (l) => err.push(l), signals: new EventEmitter() })).toBe(
      RunStatus.FAILED,
    );
    expect(err.join('\n')).toMatch(/bad\.yaml:4:\d+ speaker\.router_id/);
    expect(await runSpeaker(join(t.dir, 'missing.yaml'), { stderr: (l) => err.push(l) })).toBe(
      RunStatus.FAILED,
    );
    expect(err.at(-1)).toMatch(/no such file/);
  });

  it('`run` without --config, or with something else, is a usage error (status 2)', async () => {
    const err: string[] = [];
    expect(await runCommand([], { err: (l) => err.push(l) })).toBe(2);
    expect(await runCommand(['--confg', 'x'], { err: (l) => err.push(l) })).toBe(2);
    expect(await runCommand(['--config', 'a.yaml', 'extra'], { err: (l) => err.push(l) })).toBe(2);
    expect(err).toEqual([
      'run: --config FILE is required',
      expect.stringContaining("Unknown option '--confg'"),
      'run: unexpected argument "extra"',
    ]);
  });
});
