import { describe, expect, it } from 'vitest';
import {
  ControlError,
  callControl,
  startControlServer,
  type WatchEvent,
  type WatchSink,
  watchControl,
} from '../../src/api/index.js';
import { fakeControl } from './fake-control.js';
import { controlServers } from './support.js';

const fx = controlServers('control.sock');

/** A control whose watch hands its sink to the test, which then pushes what it likes. */
function controlWithSink() {
  const held: { sink?: WatchSink; unsubscribed: number } = { unsubscribed: 0 };
  const control = fakeControl({
    watch: (_topics, sink) => {
      held.sink = sink;
      sink.push({ type: 'synced' });
      return () => {
        held.unsubscribed++;
      };
    },
  });
  return { held, control };
}

const until = async (ok: () => boolean, what: string) => {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!ok()) throw new Error(`timed out waiting for ${what}`);
};

describe('watch stream', () => {
  it('numbers events from 1 and writes thunks when it sends them', async () => {
    const { held, control } = controlWithSink();
    fx.keep(await startControlServer({ path: fx.path, control }));
    const events: WatchEvent[] = [];
    const w = watchControl(fx.path, ['sessions'], (e) => events.push(e));
    expect(await w.started).toEqual({ api: 1, topics: ['sessions'] });
    held.sink?.push(() => ({ type: 'session', peer: 'x', state: 'Active' }));
    await until(() => events.length === 2, 'two events');
    expect(events).toEqual([
      { seq: 1, type: 'synced' },
      { seq: 2, type: 'session', peer: 'x', state: 'Active' },
    ]);
    w.close();
    await until(() => held.unsubscribed === 1, 'unsubscribed when the client goes');
  });

  it('refuses unknown topics before subscribing', async () => {
    const { held, control } = controlWithSink();
    fx.keep(await startControlServer({ path: fx.path, control }));
    const w = watchControl(fx.path, ['routes' as never], () => {});
    await expect(w.started).rejects.toBeInstanceOf(ControlError);
    expect(held.sink).toBeUndefined();
  });

  it('a client that falls too far behind gets overflow and the stream ends', async () => {
    const { held, control } = controlWithSink();
    // One event per turn, so pushes in one turn pile up as a slow client's would.
    fx.keep(await startControlServer({ path: fx.path, control, watch: { maxBacklog: 5, sliceEvents: 1 } }));
    const events: WatchEvent[] = [];
    const w = watchControl(fx.path, undefined, (e) => events.push(e));
    await w.started;
    await until(() => events.length === 1, 'synced');
    for (let i = 0; i < 20; i++) held.sink?.push({ type: 'session', peer: `p${i}`, state: 'Idle' });
    await w.ended;
    expect(events.at(-1)).toMatchObject({ type: 'overflow' });
    expect(events.length).toBeLessThan(20);
    expect(held.unsubscribed).toBe(1);
    // The server still answers others.
    expect((await callControl(fx.path, 'version', {})).api).toBe(1);
  });

  it('version lists every method, writes included', async () => {
    fx.keep(await startControlServer({ path: fx.path, control: fakeControl() }));
    const v = await callControl(fx.path, 'version', {});
    expect(v.methods).toEqual(expect.arrayContaining(['route.announce', 'peer.add', 'watch']));
  });
});
