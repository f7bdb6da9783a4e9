import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type MetricsServer,
  parseListenAddress,
  type SummaryView,
  startMetricsServer,
} from '../../src/api/index.js';
import { SpeakerMetrics, sessionStateNumber } from '../../src/api/metrics.js';
import { MessageType } from '../../src/bgp/wire/index.js';
import { parseExposition, series } from './exposition.js';
import { SINKS, SUMMARY } from './fake-control.js';

function metricsOf(summary: () => SummaryView, defaultMetrics = false) {
  let calls = 0;
  const metrics = new SpeakerMetrics({
    control: {
      summary: () => {
        calls++;
        return summary();
      },
    },
    defaultMetrics,
  });
  return { metrics, calls: () => calls };
}

async function scrape(metrics: SpeakerMetrics) {
  return parseExposition(await metrics.render());
}

const OUR_METRICS = {
  bgp_session_state: 'gauge',
  bgp_session_established: 'gauge',
  bgp_session_admin_down: 'gauge',
  bgp_prefixes_received: 'gauge',
  bgp_prefixes_accepted: 'gauge',
  bgp_prefixes_advertised: 'gauge',
  bgp_rib_prefixes: 'gauge',
  bgp_messages_received_total: 'counter',
  bgp_messages_sent_total: 'counter',
  bgp_notifications_total: 'counter',
  bfd_session_state: 'gauge',
  bfd_session_transitions_total: 'counter',
};

describe('SpeakerMetrics', () => {
  it('numbers the states as RFC 4271 lists them', () => {
    expect(
      ['Idle', 'Connect', 'Active', 'OpenSent', 'OpenConfirm', 'Established'].map((s) =>
        sessionStateNumber(s as never),
      ),
    ).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('has HELP and TYPE for every metric', async () => {
    const { metrics } = metricsOf(() => SUMMARY);
    const e = await scrape(metrics);
    for (const [name, type] of Object.entries(OUR_METRICS)) {
      expect(e.type.get(name), name).toBe(type);
      expect(e.help.get(name)?.length, name).toBeGreaterThan(10);
    }
  });

  it('reads sessions and prefix counts from one summary per scrape', async () => {
    const { metrics, calls } = metricsOf(() => SUMMARY);
    const e = await scrape(metrics);
    expect(calls()).toBe(1);
    expect(series(e, 'bgp_session_state')).toEqual({
      'peer=spine1,address=198.18.0.2': 6,
      'peer=spine2,address=2001:db8::2': 3,
      'peer=198.18.0.4,address=198.18.0.4': 1,
    });
    expect(series(e, 'bgp_session_established')).toEqual({
      'peer=spine1': 1,
      'peer=spine2': 0,
      'peer=198.18.0.4': 0,
    });
    expect(series(e, 'bgp_session_admin_down')).toEqual({
      'peer=spine1': 0,
      'peer=spine2': 0,
      'peer=198.18.0.4': 1,
    });
    expect(series(e, 'bgp_prefixes_received')).toEqual({
      'peer=spine1,family=ipv4-unicast': 4,
      'peer=spine1,family=ipv6-unicast': 1,
      'peer=spine2,family=ipv6-unicast': 0,
      'peer=198.18.0.4,family=ipv4-unicast': 0,
    });
    expect(series(e, 'bgp_prefixes_accepted')['peer=spine1,family=ipv4-unicast']).toBe(3);
    expect(series(e, 'bgp_prefixes_advertised')['peer=spine1,family=ipv4-unicast']).toBe(5);
    expect(series(e, 'bgp_rib_prefixes')).toEqual({ 'family=ipv4-unicast': 3, 'family=ipv6-unicast': 1 });
    await scrape(metrics);
    expect(calls()).toBe(2);
  });

  it('reads BFD state and transitions of the neighbors that run it', async () => {
    const [first, second, ...rest] = SUMMARY.neighbors;
    const summary = {
      ...SUMMARY,
      neighbors: [
        { ...first!, bfd: { state: 'Up', transitions: 2 } },
        { ...second!, bfd: { state: 'Down', transitions: 3 } },
        ...rest,
      ],
    };
    const { metrics } = metricsOf(() => summary);
    const e = await scrape(metrics);
    expect(series(e, 'bfd_session_state')).toEqual({ 'peer=spine1': 3, 'peer=spine2': 1 });
    expect(series(e, 'bfd_session_transitions_total')).toEqual({ 'peer=spine1': 2, 'peer=spine2': 3 });
  });

  it('follows the speaker: a removed neighbor’s gauges go away', async () => {
    let summary = SUMMARY;
    const { metrics } = metricsOf(() => summary);
    await scrape(metrics);
    summary = { ...SUMMARY, neighbors: SUMMARY.neighbors.filter((n) => n.name !== 'spine2') };
    const e = await scrape(metrics);
    expect(Object.keys(series(e, 'bgp_session_state'))).toEqual([
      'peer=spine1,address=198.18.0.2',
      'peer=198.18.0.4,address=198.18.0.4',
    ]);
  });

  it('counts messages by type from wire codes or labels, every configured peer from zero', async () => {
    const { metrics } = metricsOf(() => SUMMARY);
    metrics.messageReceived('spine1', MessageType.UPDATE);
    metrics.messageReceived('spine1', MessageType.UPDATE);
    metrics.messageReceived('spine1', 'keepalive');
    metrics.messageSent('spine1', MessageType.ROUTE_REFRESH);
    metrics.messageSent('spine1', 99);
    const e = await scrape(metrics);
    const received = series(e, 'bgp_messages_received_total');
    expect(received['peer=spine1,type=update']).toBe(2);
    expect(received['peer=spine1,type=keepalive']).toBe(1);
    expect(received['peer=spine2,type=open']).toBe(0);
    expect(Object.keys(received)).toHaveLength(3 * 5);
    const sent = series(e, 'bgp_messages_sent_total');
    expect(sent['peer=spine1,type=route-refresh']).toBe(1);
    expect(sent['peer=spine1,type=unknown']).toBe(1);
  });

  it('counts notifications by direction, code and subcode; forgetPeer drops a peer’s counters', async () => {
    const { metrics } = metricsOf(() => ({ ...SUMMARY, neighbors: [] }));
    metrics.notification('spine2', 'received', 6, 2);
    metrics.notification('spine2', 'received', 6, 2);
    metrics.notification('spine2', 'sent', 4, 0);
    metrics.notification('spine1', 'sent', 6, 4);
    metrics.messageReceived('spine2', MessageType.NOTIFICATION);
    expect(series(await scrape(metrics), 'bgp_notifications_total')).toEqual({
      'peer=spine2,direction=received,code=6,subcode=2': 2,
      'peer=spine2,direction=sent,code=4,subcode=0': 1,
      'peer=spine1,direction=sent,code=6,subcode=4': 1,
    });
    metrics.forgetPeer('spine2');
    const e = await scrape(metrics);
    expect(series(e, 'bgp_notifications_total')).toEqual({
      'peer=spine1,direction=sent,code=6,subcode=4': 1,
    });
    expect(series(e, 'bgp_messages_received_total')).toEqual({});
  });

  it('leaves the session gauges empty, not stale, when the speaker cannot answer', async () => {
    let fail = false;
    const { metrics } = metricsOf(() => {
      if (fail) throw new Error('not ready');
      return SUMMARY;
    });
    await scrape(metrics);
    fail = true;
    const e = await scrape(metrics);
    expect(series(e, 'bgp_session_state')).toEqual({});
    expect(series(e, 'bgp_rib_prefixes')).toEqual({});
    expect(e.type.get('bgp_session_state')).toBe('gauge');
  });

  it('includes the process metrics, event-loop lag among them', async () => {
    const { metrics } = metricsOf(() => SUMMARY, true);
    const e = await scrape(metrics);
    expect(e.type.get('nodejs_eventloop_lag_seconds')).toBe('gauge');
    expect(e.type.get('process_resident_memory_bytes')).toBe('gauge');
    expect(e.samples.some((s) => s.name === 'nodejs_eventloop_lag_p99_seconds')).toBe(true);
  });
});

describe('parseListenAddress', () => {
  it.each([
    ['127.0.0.1:9101', { host: '127.0.0.1', port: 9101 }],
    ['[::1]:9101', { host: '::1', port: 9101 }],
    ['[2001:db8::1]:0', { host: '2001:db8::1', port: 0 }],
    ['localhost:65535', { host: 'localhost', port: 65535 }],
  ])('reads %s', (text, expected) => {
    expect(parseListenAddress(text)).toEqual(expected);
  });

  it.each(['9101', ':9101', '::1:9101', '[198.18.0.1]:9101', '127.0.0.1:65536', '127.0.0.1:', 'host:port'])(
    'refuses %s',
    (text) => {
      expect(() => parseListenAddress(text)).toThrow(/metrics listen address/);
    },
  );
});

interface HttpAnswer {
  readonly status: number;
  readonly contentType: string | undefined;
  readonly body: string;
}

function get(url: string, method = 'GET'): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    // A fresh connection each time: a pooled one would outlive the server under test.
    const req = httpRequest(url, { method, timeout: 5_000, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => {
        body += c;
      });
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, contentType: res.headers['content-type'], body }),
      );
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end();
  });
}

describe('metrics endpoint', () => {
  let server: MetricsServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('serves the registry at /metrics in the text format', async () => {
    const { metrics } = metricsOf(() => SUMMARY, true);
    metrics.messageReceived('spine1', MessageType.OPEN);
    server = await startMetricsServer({ listen: '127.0.0.1:0', metrics });
    expect(server.url).toBe(`http://127.0.0.1:${server.address.port}/metrics`);
    const r = await get(server.url);
    expect(r.status).toBe(200);
    expect(r.contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
    const e = parseExposition(r.body);
    for (const name of Object.keys(OUR_METRICS)) expect(e.type.has(name), name).toBe(true);
    expect(series(e, 'bgp_session_established')['peer=spine1']).toBe(1);
    expect(series(e, 'bgp_messages_received_total')['peer=spine1,type=open']).toBe(1);
    expect(e.type.get('nodejs_eventloop_lag_seconds')).toBe('gauge');
    expect((await get(`${server.url}?name[]=bgp_session_state`)).status).toBe(200);
  });

  it('answers 404 elsewhere, 405 to other methods, HEAD without a body', async () => {
    const { metrics } = metricsOf(() => SUMMARY);
    server = await startMetricsServer({ listen: '[::1]:0', metrics });
    const base = `http://[::1]:${server.address.port}`;
    expect((await get(`${base}/`)).status).toBe(404);
    expect((await get(`${base}/metrics/extra`)).status).toBe(404);
    expect((await get(`${base}/metrics`, 'POST')).status).toBe(405);
    const head = await get(`${base}/metrics`, 'HEAD');
    expect(head).toMatchObject({ status: 200, body: '' });
  });

  it('answers 500 when rendering fails, and keeps serving', async () => {
    const { metrics } = metricsOf(() => SUMMARY);
    server = await startMetricsServer({ listen: '127.0.0.1:0', metrics });
    const render = metrics.render.bind(metrics);
    metrics.render = () => Promise.reject(new Error('registry broke'));
    expect((await get(server.url)).status).toBe(500);
    metrics.render = render;
    expect((await get(server.url)).status).toBe(200);
  });

  it('closes: the port stops answering', async () => {
    const { metrics } = metricsOf(() => SUMMARY);
    const s = await startMetricsServer({ listen: '127.0.0.1:0', metrics });
    await get(s.url);
    await s.close();
    await expect(get(s.url)).rejects.toThrow(/ECONNREFUSED/);
  });
});

describe('OVN and sink metrics', () => {
  const OVN_STATS = {
    connected: { nb: true, sb: false },
    routes: { 'floating-ip': 3, 'lb-vip': 1 },
    problems: { 'port-unbound': 2 },
    lastDerivationMs: 1.5,
    lastChangeMs: 25,
  };

  function withForwarding(ovn: () => typeof OVN_STATS | null) {
    let reads = 0;
    const metrics = new SpeakerMetrics({
      control: { summary: () => SUMMARY },
      forwarding: {
        ovn: () => {
          reads++;
          return ovn();
        },
        sinks: () => SINKS,
      },
      defaultMetrics: false,
    });
    return { metrics, reads: () => reads };
  }

  it('reports OVN connection, routes and problems per kind, and the derivation and change times', async () => {
    const { metrics, reads } = withForwarding(() => OVN_STATS);
    const e = await scrape(metrics);
    expect(series(e, 'ovn_connected')).toEqual({ 'db=nb': 1, 'db=sb': 0 });
    expect(series(e, 'ovn_routes')).toEqual({ 'kind=floating-ip': 3, 'kind=lb-vip': 1 });
    expect(series(e, 'ovn_problems')).toEqual({ 'kind=port-unbound': 2 });
    expect(series(e, 'ovn_derivation_seconds')).toEqual({ '': 0.0015 });
    expect(series(e, 'ovn_change_to_rib_seconds')).toEqual({ '': 0.025 });
    expect(reads()).toBe(1);
  });

  it('has no OVN series without an ovn section', async () => {
    const { metrics } = withForwarding(() => null);
    const e = await scrape(metrics);
    expect(series(e, 'ovn_connected')).toEqual({});
    expect(series(e, 'ovn_routes')).toEqual({});
  });

  it('reports each sink: in sync or not, backlog, applied changes and failures', async () => {
    const { metrics } = withForwarding(() => null);
    const e = await scrape(metrics);
    expect(series(e, 'sink_in_sync')).toEqual({ 'sink=kernel': 1, 'sink=zebra': 0 });
    expect(series(e, 'sink_pending_changes')).toEqual({ 'sink=kernel': 0, 'sink=zebra': 12 });
    expect(series(e, 'sink_changes_applied_total')).toEqual({ 'sink=kernel': 1204, 'sink=zebra': 0 });
    expect(series(e, 'sink_failures_total')).toEqual({ 'sink=kernel': 0, 'sink=zebra': 3 });
    expect(e.type.get('sink_failures_total')).toBe('counter');
  });
});
