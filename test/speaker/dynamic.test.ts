import { afterEach, describe, expect, it } from 'vitest';
import { CeaseSubcode, ErrorCode, OpenSubcode } from '../../src/bgp/wire/constants.js';
import { ConfigStore, parseConfig } from '../../src/config/index.js';
import { Speaker } from '../../src/speaker/index.js';
import {
  ACCEPT_ALL,
  freePort,
  Probe,
  SPEAKER_AS,
  speakerSection,
  tempDir,
  until,
  yamlOf,
} from './support.js';

// Dynamic neighbours on a running speaker, over loopback: probes inside a listen range connect
// to us (we never connect to them), come up as dyn-ADDRESS built from the range's template,
// exchange routes, and are forgotten when their session ends; the range's limit refuses one
// more, an address outside every range is refused, a configured peer inside the range wins,
// and a reload applies a template change as the same change to a peer would.

let cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

/** A probe at 127.0.0.N that connects to the speaker (active; it retries every second). */
async function dialer(n: number, as: number, port: number, extra: Record<string, unknown> = {}) {
  const p = await Probe.start(`127.0.0.${n}`, as, `198.18.0.${10 + n}`, {
    passive: false,
    port,
    connectRetryTime: 1,
    ...extra,
  });
  cleanups.push(() => p.close());
  return p;
}

/** Polls an async check, bounded. */
async function eventually(ok: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function value(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const TEMPLATE = {
  remote_as: 'external',
  families: ['ipv4-unicast', 'ipv6-unicast'],
  hold_time: 30,
  import: ['all'],
  export: ['all'],
};

/** A speaker on a fixed free port (the probes dial it) whose file a test can change and reload. */
async function speakerWith(doc: (port: number) => Record<string, unknown>, metrics = false) {
  const t = tempDir();
  cleanups.push(t.cleanup);
  const port = await freePort('127.0.0.1');
  const metricsPort = metrics ? await freePort('127.0.0.1') : 0;
  const speakerDoc = speakerSection(t.dir, {
    listen: { address: '127.0.0.1', port },
    ...(metrics && { metrics: { listen: `127.0.0.1:${metricsPort}` } }),
  });
  let text = yamlOf({ ...doc(port), speaker: speakerDoc });
  const store = ConfigStore.open('speaker.yaml', { load: (f) => parseConfig(text, { file: f }) });
  const speaker = await Speaker.start(store.config);
  cleanups.push(() => speaker.close());
  return {
    speaker,
    port,
    async reload(next: Record<string, unknown>) {
      text = yamlOf({ ...next, speaker: speakerDoc });
      await speaker.reload(store.reload());
    },
    names: () => speaker.summary().neighbors.map((n) => n.name),
    scrape: async () => (await fetch(speaker.metricsUrl!)).text(),
  };
}

describe('dynamic neighbours', () => {
  it('come up from the range, exchange routes, are forgotten when down; the limit refuses one more', async () => {
    const doc = {
      policies: { all: ACCEPT_ALL },
      networks: ['198.18.50.0/24'],
      peer_templates: { leaves: TEMPLATE },
      listen_ranges: [{ prefix: '127.0.0.0/29', template: 'leaves', limit: 2 }],
    };
    const s = await speakerWith(() => doc, true);
    const a = await dialer(2, 65002, s.port);
    const b = await dialer(3, 65003, s.port);
    await until(() => a.established && b.established, 'both dynamic neighbours up');

    const summary = s.speaker.summary().neighbors;
    expect(summary.map((n) => [n.name, n.address, n.remoteAs, n.state, n.dynamic])).toEqual([
      ['dyn-127.0.0.2', '127.0.0.2', 65002, 'Established', { range: '127.0.0.0/29', template: 'leaves' }],
      ['dyn-127.0.0.3', '127.0.0.3', 65003, 'Established', { range: '127.0.0.0/29', template: 'leaves' }],
    ]);
    expect(s.speaker.neighbors('dyn-127.0.0.2')[0]).toMatchObject({ ebgp: true, holdTime: 30 });

    // Routes both ways: our network to each, each one's route to the other.
    await until(() => a.table().has('198.18.50.0/24') && b.table().has('198.18.50.0/24'), 'our network');
    a.announce(['198.18.60.0/24']);
    await until(() => b.table().has('198.18.60.0/24'), 'a’s route at b');
    expect(b.table().get('198.18.60.0/24')?.asPath?.[0]?.asns).toEqual([SPEAKER_AS, 65002]);

    // The limit is 2: a third from the range is refused (reset before any OPEN), counted.
    const c = await dialer(4, 65004, s.port);
    await eventually(
      async () => (value(await s.scrape(), 'bgp_dynamic_refused_total{range="127.0.0.0/29"}') ?? 0) >= 1,
      'the refusal counted',
    );
    expect(c.established).toBe(false);
    expect(c.rec.states.some((x) => x.to === 'OpenConfirm')).toBe(false);
    expect(s.names()).toEqual(['dyn-127.0.0.2', 'dyn-127.0.0.3']);
    const m = await s.scrape();
    expect(value(m, 'bgp_dynamic_neighbors{range="127.0.0.0/29"}')).toBe(2);
    expect(value(m, 'bgp_session_established{peer="dyn-127.0.0.2"}')).toBe(1);

    // a goes away: it is forgotten, its route withdrawn, its series gone, and c takes its place.
    await a.close();
    await until(() => !b.table().has('198.18.60.0/24'), 'a’s route withdrawn at b');
    await until(() => !s.names().includes('dyn-127.0.0.2'), 'a forgotten');
    await until(() => c.established, 'c admitted in a’s place');
    expect(s.names()).toEqual(['dyn-127.0.0.3', 'dyn-127.0.0.4']);
    expect(await s.scrape()).not.toContain('peer="dyn-127.0.0.2"');
  });

  it('outside every range is refused; a configured peer inside the range wins over it', async () => {
    const doc = (port: number) => ({
      policies: { all: ACCEPT_ALL },
      peer_templates: { leaves: TEMPLATE },
      listen_ranges: [{ prefix: '127.0.0.0/29', template: 'leaves' }],
      peers: [
        {
          name: 'fixed',
          peer_ip: '127.0.0.5',
          remote_as: 65005,
          passive: true,
          port,
          import: ['all'],
          export: ['all'],
        },
      ],
    });
    const s = await speakerWith(doc);
    const fixed = await dialer(5, 65005, s.port);
    const stranger = await dialer(9, 65009, s.port);
    await until(() => fixed.established, 'the configured peer up');
    expect(s.names()).toEqual(['fixed']);
    // The stranger's connections are reset at once: it never hears an OPEN from us.
    await until(() => stranger.rec.states.filter((x) => x.to === 'Idle').length >= 2, 'two attempts reset');
    expect(stranger.rec.states.some((x) => x.to === 'OpenConfirm')).toBe(false);
    expect(stranger.peer.stats.received.open).toBe(0);
    expect(s.names()).toEqual(['fixed']);
  });

  it('remote_as internal refuses an external AS with Bad Peer AS, and the neighbour is forgotten', async () => {
    const doc = {
      peer_templates: { spines: { remote_as: 'internal' } },
      listen_ranges: [{ prefix: '127.0.0.0/29', template: 'spines' }],
    };
    const s = await speakerWith(() => doc);
    const wrong = await dialer(2, 65002, s.port);
    await until(() => wrong.rec.notifications.length > 0, 'the NOTIFICATION at the probe');
    expect(wrong.rec.notifications[0]).toMatchObject({
      direction: 'received',
      code: ErrorCode.OPEN_MESSAGE,
      subcode: OpenSubcode.BAD_PEER_AS,
    });
    await until(() => s.names().length === 0, 'the failed neighbour forgotten');
    const right = await dialer(3, SPEAKER_AS, s.port);
    await until(() => right.established, 'an iBGP probe up');
    expect(s.speaker.summary().neighbors[0]).toMatchObject({ name: 'dyn-127.0.0.3', remoteAs: SPEAKER_AS });
    expect(s.speaker.neighbors('dyn-127.0.0.3')[0]?.ebgp).toBe(false);
  });

  it('a reload: a policy change is soft out on the live neighbour; a range removed or a peer configured at its address de-configures it; a password change resets it', async () => {
    const doc = (exp: string[], extra: Record<string, unknown> = {}, more: Record<string, unknown> = {}) => ({
      policies: { all: ACCEPT_ALL },
      networks: ['198.18.50.0/24'],
      peer_templates: { leaves: { ...TEMPLATE, export: exp, ...extra } },
      listen_ranges: [{ prefix: '127.0.0.0/29', template: 'leaves' }],
      ...more,
    });
    const s = await speakerWith(() => doc(['all']));
    const a = await dialer(2, 65002, s.port, { idleHoldTime: 0 });
    await until(() => a.established && a.table().has('198.18.50.0/24'), 'a up with our network');

    await s.reload(doc([]));
    await until(() => !a.table().has('198.18.50.0/24'), 'the network withdrawn (soft out)');
    expect(a.rec.established).toHaveLength(1);
    expect(a.rec.notifications).toEqual([]);

    // A new hold time is for the next session: nothing happens to this one.
    await s.reload(doc([], { hold_time: 60 }));
    expect(a.rec.notifications).toEqual([]);

    // The range goes: Cease / Peer De-configured, forgotten; back, a connects again.
    await s.reload(doc([], { hold_time: 60 }, { listen_ranges: [] }));
    await until(() => a.rec.notifications.length === 1, 'the Cease at a');
    expect(a.rec.notifications[0]).toMatchObject({
      code: ErrorCode.CEASE,
      subcode: CeaseSubcode.PEER_DE_CONFIGURED,
    });
    expect(s.names()).toEqual([]);
    await s.reload(doc([], { hold_time: 60 }));
    await until(() => a.rec.established.length === 2 && a.established, 'a admitted again');
    expect(s.speaker.neighbors('dyn-127.0.0.2')[0]?.holdTime).toBe(30); // a's 30 is below our 60

    // A peer configured at its address takes it over.
    const taken = {
      name: 'taken',
      peer_ip: '127.0.0.2',
      remote_as: 65002,
      passive: true,
      import: ['all'],
      export: ['all'],
    };
    await s.reload(doc([], { hold_time: 60 }, { peers: [taken] }));
    await until(() => a.rec.established.length === 3 && a.established, 'a up as the configured peer');
    expect(a.rec.notifications[1]).toMatchObject({
      code: ErrorCode.CEASE,
      subcode: CeaseSubcode.PEER_DE_CONFIGURED,
    });
    expect(s.names()).toEqual(['taken']);

    // Dynamic again, then a TCP-MD5 key, which the connection carries: Cease / Other Configuration Change.
    await s.reload(doc([], { hold_time: 60 }));
    await until(
      () => a.rec.established.length === 4 && s.names().includes('dyn-127.0.0.2'),
      'a dynamic again',
    );
    await s.reload(doc([], { hold_time: 60, auth_type: 'md5', password: 'leaf-secret' }));
    await until(() => a.rec.notifications.length === 4, 'the Cease at a');
    expect(a.rec.notifications[3]).toMatchObject({
      direction: 'received',
      code: ErrorCode.CEASE,
      subcode: CeaseSubcode.OTHER_CONFIGURATION_CHANGE,
    });
    await until(() => s.names().length === 0, 'a forgotten');
  });
});
