import { afterEach, describe, expect, it } from 'vitest';
import { runControlCommand } from '../../src/cli/show.js';
import type { Logger } from '../../src/components/index.js';
import { ConfigStore, parseConfig } from '../../src/config/index.js';
import { Speaker } from '../../src/speaker/index.js';
import { ACCEPT_ALL, freePort, Probe, probePeer, speakerSection, tempDir, until, yamlOf } from './support.js';

// A TCP-MD5 password goes to the kernel and nowhere else: not in a log line (start, reload
// plans, refused reloads), not in a metric, not in anything `show` or `neighbor` prints.

let cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

/** A logger that keeps every line, bindings included, as pino would serialise them. */
function recordingLogger(lines: string[], bindings: Record<string, unknown> = {}): Logger {
  const at =
    (level: string) =>
    (obj: object | string, msg?: string): void => {
      lines.push(
        JSON.stringify({ level, ...bindings, ...(typeof obj === 'string' ? { msg: obj } : obj), msg }),
      );
    };
  return {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: (more) => recordingLogger(lines, { ...bindings, ...more }),
  };
}

const FIRST = 'first-secret-Qx7';
const SECOND = 'second-secret-Zk9';
const TOO_LONG = `third-secret-${'W'.repeat(80)}`;

describe('passwords', () => {
  it('never appear in logs, metrics or show output, through a session, a reload and a refused reload', async () => {
    const p = await Probe.start('127.0.0.2', 65001, '198.18.0.12', { password: FIRST });
    cleanups.push(() => p.close());
    const t = tempDir();
    cleanups.push(t.cleanup);
    const port = await freePort('127.0.0.1');
    const speakerDoc = speakerSection(t.dir, {
      metrics: { listen: `127.0.0.1:${port}` },
      log: { level: 'debug' },
    });
    const peer = (password: string) =>
      probePeer(p, { import: ['all'], export: ['all'], auth_type: 'md5', password });
    let text = yamlOf({ peers: [peer(FIRST)], policies: { all: ACCEPT_ALL }, speaker: speakerDoc });
    const store = ConfigStore.open('speaker.yaml', { load: (f) => parseConfig(text, { file: f }) });
    const lines: string[] = [];
    const s = await Speaker.start(store.config, { logger: recordingLogger(lines) });
    cleanups.push(() => s.close());
    await until(() => p.established, 'the MD5 session up');

    const shown: string[] = [];
    const show = async (...args: string[]) => {
      const io = { out: (x: string) => shown.push(x), err: (x: string) => shown.push(x), env: {} };
      const socket = ['--socket', s.controlSocket!];
      expect(await runControlCommand('show', [...args, ...socket], io)).toBe(0);
      expect(await runControlCommand('show', [...args, '--json', ...socket], io)).toBe(0);
    };
    await show('summary');
    await show('neighbors');
    await show('neighbor', 'p2');
    shown.push(await (await fetch(s.metricsUrl!)).text());

    // A changed password is planned and logged as a reset; the new one must not show either.
    text = yamlOf({ peers: [peer(SECOND)], policies: { all: ACCEPT_ALL }, speaker: speakerDoc });
    await s.reload(store.reload());
    // A password the kernel would refuse: the reload is refused, and says why without it.
    text = yamlOf({ peers: [peer(TOO_LONG)], policies: { all: ACCEPT_ALL }, speaker: speakerDoc });
    await s.reload(store.reload());
    await show('neighbor', 'p2');
    shown.push(await (await fetch(s.metricsUrl!)).text());

    const everything = [...lines, ...shown].join('\n');
    // The checks below only mean something if the output really covers these events.
    expect(everything).toContain('198.18.0.12');
    expect(lines.some((l) => l.includes('configuration reloaded') && l.includes('auth'))).toBe(true);
    expect(lines.some((l) => l.includes('TCP-MD5 keys of at most 80'))).toBe(true);
    expect(shown.some((x) => x.includes('bgp_session_state'))).toBe(true);
    for (const secret of [FIRST, SECOND, TOO_LONG]) expect(everything).not.toContain(secret);
  });
});
