import { afterEach, describe, expect, it } from 'vitest';
import { encodeCliRequest } from '../../src/api/cli-framing.js';
import { runControlCommand } from '../../src/cli/show.js';
import { ConfigStore, parseConfig } from '../../src/config/index.js';
import { Speaker } from '../../src/speaker/index.js';
import { exchange } from '../api/support.js';
import { speakerSection, tempDir, yamlOf } from './support.js';

let cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

// The speaker's control socket runs the CLI for `cli` requests (the installed command relays
// show and neighbor so), and keeps doing so on a socket moved by a reload.
describe('the speaker’s control socket', () => {
  it('answers a cli request with what the Node client prints, on its first socket and a moved one', async () => {
    const t = tempDir();
    cleanups.push(t.cleanup);
    const doc = (socket: string) =>
      yamlOf({
        speaker: { ...speakerSection(t.dir), control_socket: `${t.dir}/${socket}` },
        routes: [{ prefix: '198.18.100.0/24' }],
      });
    let text = doc('a.sock');
    const store = ConfigStore.open('speaker.yaml', { load: (f) => parseConfig(text, { file: f }) });
    const s = await Speaker.start(store.config);
    cleanups.push(() => s.close());

    const both = async (socket: string) => {
      let out = '';
      const io = { out: (x: string) => (out += `${x}\n`), err: () => {}, env: {} };
      expect(await runControlCommand('show', ['rib', '--socket', socket], io)).toBe(0);
      const { lines } = await exchange(socket, encodeCliRequest(['show', 'rib']), 0);
      expect(lines.at(-1)).toBe('exit 0');
      const relayed = lines
        .slice(0, -1)
        .map((l) => `${l.slice(2)}\n`)
        .join('');
      expect(relayed).toBe(out);
      expect(relayed).toContain('198.18.100.0/24');
    };
    await both(s.controlSocket!);
    text = doc('b.sock');
    await s.reload(store.reload());
    expect(s.controlSocket).toBe(`${t.dir}/b.sock`);
    await both(s.controlSocket!);
  });
});
