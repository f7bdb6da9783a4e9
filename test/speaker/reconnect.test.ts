import { afterEach, describe, expect, it } from 'vitest';
import { ConfigStore, parseConfig } from '../../src/config/index.js';
import { Speaker } from '../../src/speaker/index.js';
import { Probe, probePeer, speakerSection, tempDir, until, yamlOf } from './support.js';

// The reconnect back-off with a real peer over TCP that flaps: the wait is the configured one,
// `show neighbors` reports it, and a reload applies a new one.

let cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

async function reloadable(doc: Record<string, unknown>) {
  const t = tempDir();
  cleanups.push(t.cleanup);
  const speakerDoc = speakerSection(t.dir);
  let text = yamlOf({ ...doc, speaker: speakerDoc });
  const store = ConfigStore.open('speaker.yaml', { load: (f) => parseConfig(text, { file: f }) });
  const speaker = await Speaker.start(store.config);
  cleanups.push(() => speaker.close());
  return {
    speaker,
    write(next: Record<string, unknown>) {
      text = yamlOf({ ...next, speaker: speakerDoc });
    },
    async reload() {
      await speaker.reload(store.reload());
    },
  };
}

describe('reconnect back-off', () => {
  it('a flap waits idle_hold_time, show neighbors says how long is left, a reload to 0 reconnects at once', async () => {
    const a = await Probe.start('127.0.0.2', 65001, '198.18.0.12');
    cleanups.push(() => a.close());
    const r = await reloadable({ peers: [probePeer(a, { idle_hold_time: 30, max_idle_hold_time: 60 })] });
    const view = () => r.speaker.neighbors('p2')[0]!;
    await until(() => a.established && view().state === 'Established', 'the session up');
    expect(view().reconnectIn).toBeUndefined();

    a.peer.reset('flap');
    await until(() => view().reconnectIn !== undefined, 'the speaker waiting after the reset');
    expect(view()).toMatchObject({ state: 'Idle', idleHoldTime: 30, maxIdleHoldTime: 60 });
    expect(view().reconnectIn).toBeGreaterThan(0);
    expect(view().reconnectIn).toBeLessThanOrEqual(30);

    // The 30 s wait would outlast `until`'s bound: coming back up shows the reload cut it short.
    r.write({ peers: [probePeer(a, { idle_hold_time: 0 })] });
    await r.reload();
    await until(() => a.rec.established.length === 2, 'the session up again after the reload');
    expect(view().idleHoldTime).toBe(0);

    a.peer.reset('flap again');
    await until(() => a.rec.established.length === 3, 'the session up again with no wait');
    expect(view().reconnectIn).toBeUndefined();
  });
});
