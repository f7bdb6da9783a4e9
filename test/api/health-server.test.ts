import { afterEach, describe, expect, it } from 'vitest';
import { type HealthCheck, type MetricsServer, startMetricsServer } from '../../src/api/index.js';
import { SpeakerMetrics } from '../../src/api/metrics.js';
import { SUMMARY } from './fake-control.js';

// The probes as the metrics listener serves them: each request asks the source afresh, HEAD
// answers without a body, other methods are refused, and without a source the paths are 404.

let server: MetricsServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const metrics = () => new SpeakerMetrics({ control: { summary: () => SUMMARY }, defaultMetrics: false });

describe('the health paths on the metrics listener', () => {
  it('asks the source at each request, answers HEAD with the status alone, refuses POST', async () => {
    let ready: HealthCheck[] = [{ name: 'started', ok: false, reason: 'starting' }];
    let asked = 0;
    server = await startMetricsServer({
      listen: '127.0.0.1:0',
      metrics: metrics(),
      health: {
        liveness: () => [{ name: 'loop', ok: true }],
        readiness: () => {
          asked++;
          return ready;
        },
      },
    });
    const base = `http://127.0.0.1:${server.address.port}`;
    const first = await fetch(`${base}/readyz`);
    expect(first.status).toBe(503);
    expect(first.headers.get('cache-control')).toBe('no-store');
    expect(await first.text()).toBe('[-]started failed: starting\nreadyz check failed\n');
    ready = [{ name: 'started', ok: true }];
    expect(await (await fetch(`${base}/readyz`)).text()).toBe('ok\n');
    const head = await fetch(`${base}/readyz`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect(asked).toBe(3);
    const post = await fetch(`${base}/healthz`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect((await fetch(`${base}/livez?format=json`)).headers.get('content-type')).toBe('application/json');
  });

  it('without a source, /healthz and /readyz are not found like any other path', async () => {
    server = await startMetricsServer({ listen: '127.0.0.1:0', metrics: metrics() });
    const base = `http://127.0.0.1:${server.address.port}`;
    const r = await fetch(`${base}/healthz`);
    expect(r.status).toBe(404);
    expect(await r.text()).toBe('not found: try /metrics\n');
    expect((await fetch(`${base}/metrics`)).status).toBe(200);
  });
});
