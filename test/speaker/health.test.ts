import { afterEach, describe, expect, it } from 'vitest';
import { ConfigStore, parseConfig } from '../../src/config/index.js';
import { Speaker } from '../../src/speaker/index.js';
import { ACCEPT_ALL, freePort, Probe, probePeer, speakerSection, tempDir, until, yamlOf } from './support.js';

// /healthz and /readyz of a running speaker, on its metrics listener: readiness follows the
// sessions it was told to require, liveness a real stall of the event loop.

let cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

async function get(url: string): Promise<{ status: number; body: string }> {
  const res = await fetch(url);
  return { status: res.status, body: await res.text() };
}

/** Blocks the event loop, as a runaway computation would. */
function stallFor(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // busy
  }
}

async function speakerWithProbe(health: Record<string, unknown>, peer: Record<string, unknown> = {}) {
  const a = await Probe.start('127.0.0.2', 65001, '198.18.0.12');
  cleanups.push(() => a.close());
  const t = tempDir();
  cleanups.push(t.cleanup);
  const port = await freePort('127.0.0.1');
  const speakerDoc = (h: Record<string, unknown>) =>
    speakerSection(t.dir, { metrics: { listen: `127.0.0.1:${port}` }, health: h });
  const doc = { peers: [probePeer(a, { import: ['all'], ...peer })], policies: { all: ACCEPT_ALL } };
  let text = yamlOf({ ...doc, speaker: speakerDoc(health) });
  const store = ConfigStore.open('f', { load: (f) => parseConfig(text, { file: f }) });
  const s = await Speaker.start(store.config);
  cleanups.push(() => s.close());
  const base = s.metricsUrl!.replace(/\/metrics$/, '');
  const reload = async (h: Record<string, unknown>) => {
    text = yamlOf({ ...doc, speaker: speakerDoc(h) });
    await s.reload(store.reload());
  };
  return { a, s, base, reload };
}

describe('health endpoints', () => {
  it('/readyz waits for the required session, says which check failed, and follows it down again', async () => {
    const { a, s, base } = await speakerWithProbe({ ready_requires: { peers: ['p2'] } }, { shutdown: true });

    const before = await get(`${base}/readyz`);
    expect(before.status).toBe(503);
    expect(before.body).toBe('[+]started ok\n[-]peer:p2 failed: shut down\nreadyz check failed\n');
    // Alive all the same: readiness is not liveness.
    expect(await get(`${base}/healthz`)).toEqual({ status: 200, body: 'ok\n' });

    await s.enableNeighbor('p2');
    await until(() => a.established, 'the session up');
    await until(() => s.summary().neighbors[0]?.state === 'Established', 'the speaker’s side up');
    expect(await get(`${base}/readyz`)).toEqual({ status: 200, body: 'ok\n' });
    expect(await get(`${base}/readyz?verbose`)).toEqual({
      status: 200,
      body: '[+]started ok\n[+]peer:p2 ok\nreadyz check passed\n',
    });

    await a.close();
    await until(() => s.summary().neighbors[0]?.state !== 'Established', 'the session down');
    const after = await fetch(`${base}/readyz?format=json`);
    expect(after.status).toBe(503);
    const body = (await after.json()) as { status: string; checks: { name: string; ok: boolean }[] };
    expect(body.status).toBe('failed');
    expect(body.checks.find((c) => c.name === 'peer:p2')).toMatchObject({ ok: false });
  });

  it('a requirement changed by a reload applies to the next probe', async () => {
    const { base, reload } = await speakerWithProbe(
      { ready_requires: { peers: 'none' } },
      { shutdown: true },
    );
    expect((await get(`${base}/readyz`)).status).toBe(200);
    await reload({ ready_requires: { peers: 'any' } });
    expect(await get(`${base}/readyz`)).toEqual({
      status: 503,
      body: '[+]started ok\n[-]peers failed: no peer is enabled\nreadyz check failed\n',
    });
  });

  it('/healthz reports a stalled event loop for the window, then recovers', async () => {
    const { base } = await speakerWithProbe({ stall_ms: 2000, stall_window: 2 });
    expect(await get(`${base}/healthz`)).toEqual({ status: 200, body: 'ok\n' });

    stallFor(4000);
    const stalled = await get(`${base}/healthz`);
    expect(stalled.status).toBe(503);
    const m =
      /^\[-\]loop failed: event loop stalled (\d+\.\d) s \(bound 2\.0 s\), \d+\.\d s ago\nhealthz check failed\n$/.exec(
        stalled.body,
      );
    expect(m, stalled.body).not.toBeNull();
    // The stall began somewhere within a tick of the monitor (250 ms).
    expect(Number(m![1])).toBeGreaterThanOrEqual(3.7);
    // /livez is the same probe.
    expect((await get(`${base}/livez`)).status).toBe(503);

    const deadline = Date.now() + 15_000;
    let now = stalled;
    while (now.status !== 200 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      now = await get(`${base}/healthz`);
    }
    expect(now).toEqual({ status: 200, body: 'ok\n' });
  });

  it('keeps /metrics and refuses other paths', async () => {
    const { base } = await speakerWithProbe({});
    expect((await get(`${base}/metrics`)).body).toContain('bgp_session_state');
    expect(await get(`${base}/other`)).toEqual({
      status: 404,
      body: 'not found: try /metrics, /healthz or /readyz\n',
    });
  });
});
