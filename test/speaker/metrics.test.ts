import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigStore, parseConfig } from '../../src/config/index.js';
import { Speaker } from '../../src/speaker/index.js';
import { ACCEPT_ALL, freePort, Probe, probePeer, speakerSection, tempDir, until, yamlOf } from './support.js';

// The Prometheus endpoint of a running speaker: counters move with the sessions' own counts.

let cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

/** The value of one series, or undefined when it is not exposed. */
function value(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('metrics', () => {
  it('counts messages and NOTIFICATIONs per peer, gauges state and prefixes, forgets removed peers', async () => {
    const a = await Probe.start('127.0.0.2', 65001, '198.18.0.12');
    cleanups.push(() => a.close());
    const t = tempDir();
    cleanups.push(t.cleanup);
    const port = await freePort('127.0.0.1');
    const speakerDoc = speakerSection(t.dir, { metrics: { listen: `127.0.0.1:${port}` } });
    const doc = { peers: [probePeer(a, { import: ['all'] })], policies: { all: ACCEPT_ALL } };
    let text = yamlOf({ ...doc, speaker: speakerDoc });
    const store = ConfigStore.open('f', { load: (f) => parseConfig(text, { file: f }) });
    const s = await Speaker.start(store.config);
    cleanups.push(() => s.close());
    await until(() => a.established, 'a up');
    a.announce(['198.18.200.0/24', '198.18.201.0/24']);
    a.announce(['198.18.202.0/24']);
    await until(() => s.summary().rib['ipv4-unicast'] === 3, 'a’s routes');
    const scrape = async () => (await fetch(s.metricsUrl!)).text();

    const m = await scrape();
    expect(value(m, 'bgp_messages_received_total{peer="p2",type="update"}')).toBe(a.peer.stats.sent.update);
    expect(value(m, 'bgp_messages_received_total{peer="p2",type="open"}')).toBe(1);
    expect(value(m, 'bgp_messages_sent_total{peer="p2",type="open"}')).toBe(1);
    expect(value(m, 'bgp_session_state{peer="p2",address="127.0.0.2"}')).toBe(6);
    expect(value(m, 'bgp_prefixes_accepted{peer="p2",family="ipv4-unicast"}')).toBe(3);
    expect(value(m, 'bgp_rib_prefixes{family="ipv4-unicast"}')).toBe(3);

    await s.shutdownNeighbor('p2', 'bye');
    await until(() => a.rec.notifications.length === 1, 'the Cease at a');
    const down = await scrape();
    expect(value(down, 'bgp_notifications_total{peer="p2",direction="sent",code="6",subcode="2"}')).toBe(1);
    expect(value(down, 'bgp_session_admin_down{peer="p2"}')).toBe(1);

    text = yamlOf({ ...doc, peers: [], speaker: speakerDoc });
    await s.reload(store.reload());
    const gone = await scrape();
    expect(gone).not.toContain('peer="p2"');
  });

  it('loads prom-client only when metrics are configured', () => {
    const loads = (modules: string[]) => {
      const urls = modules.map((m) =>
        JSON.stringify(fileURLToPath(new URL(`../../src/${m}`, import.meta.url))),
      );
      const script = `
        ${urls.map((u) => `await import(${u});`).join('\n')}
        const { createRequire } = await import('node:module');
        console.log(Object.keys(createRequire(import.meta.url).cache).some((k) => k.includes('/prom-client/')));
      `;
      const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        encoding: 'utf8',
      });
      return out.trim() === 'true';
    };
    expect(loads(['speaker/run.ts', 'speaker/index.ts', 'config/index.ts', 'api/index.ts'])).toBe(false);
    expect(loads(['speaker/run.ts', 'api/metrics.ts'])).toBe(true);
  });
});
