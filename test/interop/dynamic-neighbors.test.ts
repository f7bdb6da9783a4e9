import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Lab } from '../../frr-interop/lab/index.js';
import type { NeighborDetail } from '../../src/api/index.js';
import { eventually, LabSpeaker } from '../speaker/lab-speaker.js';
import { md5Keyed, tcpCounters } from './support/speaker.js';

// Dynamic neighbours (listen_ranges, peer_templates) with real daemons that connect to us: FRR
// 8.4, FRR 10.3 (trixie root) and GoBGP inside 198.18.0.0/22 come up as dyn-ADDRESS from one
// template with remote_as external, exchange routes through the speaker, and one stopped is
// forgotten (its routes withdrawn at the others); the range's limit refuses one more; an FRR
// outside the range is refused; with a password on the template, every session in the range is
// signed with the one prefix key, over IPv4 and IPv6, and a peer with another key never comes up.

const IS_ROOT = process.getuid?.() === 0;
const SPEAKER = { as: 65000, routerId: '198.18.0.1' } as const;
const UP_MS = 90_000;
const FLOW_MS = 30_000;
const METRICS_PORT = 9179;
const V4 = { transports: ['ipv4' as const] };
const OURS = '198.19.200.0/24';

/** The speaker's metrics, read inside its namespace. */
function scrape(ns: string): string {
  return execFileSync(
    'ip',
    ['netns', 'exec', ns, 'curl', '-sf', '--max-time', '5', `http://127.0.0.1:${METRICS_PORT}/metrics`],
    { encoding: 'utf8', timeout: 10_000 },
  );
}

function value(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe.skipIf(!IS_ROOT)('dynamic neighbours with FRR 8.4, FRR 10.3 and GoBGP connecting to us', () => {
  let lab: Lab;
  let speaker: LabSpeaker;
  const RANGE = '198.18.0.0/22';
  const doc = (limit: number) => ({
    speaker: {
      name: 'interop',
      local_as: SPEAKER.as,
      router_id: SPEAKER.routerId,
      listen: { address: '::', port: 179 },
      hold_time: 9,
      log: { level: 'info' },
      metrics: { listen: `127.0.0.1:${METRICS_PORT}` },
    },
    policies: { all: { statements: [{ action: 'accept' }] } },
    networks: [OURS],
    peer_templates: { leaves: { remote_as: 'external', hold_time: 9, import: ['all'], export: ['all'] } },
    listen_ranges: [{ prefix: RANGE, template: 'leaves', limit }],
  });
  const names = async () => ((await speaker.summary())?.neighbors ?? []).map((n) => n.name).sort();

  beforeAll(async () => {
    // Peer i sits at 198.18.i.2: f1, g2 and t3 inside 198.18.0.0/22, x4 outside it.
    lab = await Lab.create({
      id: 'dynnbr',
      speaker: SPEAKER,
      peers: [
        { name: 'f1', impl: 'frr', as: 65001, originate: { ipv4: ['198.19.1.0/24'] }, speakerSessions: V4 },
        { name: 'g2', impl: 'gobgp', as: 65002, originate: { ipv4: ['198.19.2.0/24'] }, speakerSessions: V4 },
        {
          name: 't3',
          impl: 'frr',
          release: 'trixie',
          as: 65003,
          originate: { ipv4: ['198.19.3.0/24'] },
          speakerSessions: V4,
        },
        { name: 'x4', impl: 'frr', as: 65004, originate: { ipv4: ['198.19.4.0/24'] }, speakerSessions: V4 },
      ],
    });
    speaker = await LabSpeaker.start(lab, doc(3));
  }, 240_000);

  afterAll(async () => {
    await lab?.destroy();
  });

  it('three daemons in the range come up from the template and exchange routes; the one outside is refused', async () => {
    const dyn = ['f1', 'g2', 't3'].map((p) => `dyn-${lab.peer(p).address.ipv4}`);
    await speaker.waitEstablished(dyn, UP_MS);
    expect(await names()).toEqual(dyn);
    const detail = (await speaker.show<NeighborDetail[]>(['neighbors', dyn[2]!]))![0]!;
    expect(detail).toMatchObject({
      address: '198.18.3.2',
      remoteAs: 65003,
      ebgp: true,
      dynamic: { range: RANGE, template: 'leaves' },
    });
    // Each daemon has our network and the other two's prefixes, through us.
    for (const [p, others] of [
      ['f1', ['198.19.2.0/24', '198.19.3.0/24']],
      ['g2', ['198.19.1.0/24', '198.19.3.0/24']],
      ['t3', ['198.19.1.0/24', '198.19.2.0/24']],
    ] as const) {
      const daemon = lab.peer(p).daemon;
      await eventually(
        async () => {
          const got = new Set((await daemon.routes('ipv4')).map((r) => r.prefix));
          return [OURS, ...others].every((x) => got.has(x)) ? true : undefined;
        },
        `${p} to hold our network and the others' routes`,
        FLOW_MS,
      );
      const via = (await daemon.routes('ipv4')).find((r) => r.prefix === others[0]);
      expect(via?.asPath[0]).toBe(SPEAKER.as);
    }
    // x4 at 198.18.4.2 connects too, and is refused as any stranger.
    await eventually(
      () =>
        speaker
          .logLines()
          .some(
            (l) => /unknown address refused/.test(l.msg) && JSON.stringify(l.remote).includes('198.18.4.2'),
          )
          ? true
          : undefined,
      'x4 refused',
      FLOW_MS,
    );
    expect(await names()).toEqual(dyn);
    expect((await lab.frr('x4').neighbor(lab.peer('x4').speakerAddress.ipv4))?.state).not.toBe('Established');
    const m = scrape(lab.speakerNs);
    expect(value(m, `bgp_dynamic_neighbors{range="${RANGE}"}`)).toBe(3);
  });

  it('one stopped is forgotten and its routes withdrawn; at a lower limit it is refused when it comes back', async () => {
    const f1 = lab.frr('f1');
    const ours = lab.peer('f1').speakerAddress.ipv4;
    await f1.shutdownNeighbor(ours, 'leaving');
    await eventually(
      async () => ((await names()).includes('dyn-198.18.1.2') ? undefined : true),
      'f1 forgotten',
      FLOW_MS,
    );
    for (const p of ['g2', 't3']) {
      await eventually(
        async () =>
          (await lab.peer(p).daemon.routes('ipv4')).some((r) => r.prefix === '198.19.1.0/24')
            ? undefined
            : true,
        `f1's route withdrawn at ${p}`,
        FLOW_MS,
      );
    }
    expect(scrape(lab.speakerNs)).not.toContain('peer="dyn-198.18.1.2"');

    // Two live, limit 2: f1 coming back is refused, once logged, every attempt counted.
    await speaker.reload(doc(2));
    await f1.enableNeighbor(ours);
    await eventually(
      () =>
        (value(scrape(lab.speakerNs), `bgp_dynamic_refused_total{range="${RANGE}"}`) ?? 0) >= 2
          ? true
          : undefined,
      'f1 refused twice',
      FLOW_MS,
    );
    const logged = speaker.logLines().filter((l) => /has its limit/.test(l.msg));
    expect(logged.map((l) => l.remote)).toEqual(['198.18.1.2']);
    expect((await f1.neighbor(ours))?.state).not.toBe('Established');
    expect(await names()).toEqual(['dyn-198.18.2.2', 'dyn-198.18.3.2']);

    // Room again: f1 gets in.
    await speaker.reload(doc(3));
    await speaker.waitEstablished(['dyn-198.18.1.2'], UP_MS);
  });
});

describe.skipIf(!IS_ROOT)('dynamic neighbours with a TCP-MD5 password on the template', () => {
  let lab: Lab;
  let speaker: LabSpeaker;
  const SECRET = 'range-secret';

  beforeAll(async () => {
    lab = await Lab.create({
      id: 'dynmd5',
      speaker: SPEAKER,
      peers: [
        { name: 'm1', impl: 'frr', as: 65011, speakerSessions: { password: SECRET } },
        { name: 'm2', impl: 'gobgp', as: 65012, speakerSessions: { ...V4, password: SECRET } },
        { name: 'w3', impl: 'frr', as: 65013, speakerSessions: { ...V4, password: 'wrong-secret' } },
      ],
    });
    speaker = await LabSpeaker.start(lab, {
      speaker: {
        name: 'interop',
        local_as: SPEAKER.as,
        router_id: SPEAKER.routerId,
        listen: { address: '::', port: 179 },
        hold_time: 9,
        log: { level: 'info' },
      },
      policies: { all: { statements: [{ action: 'accept' }] } },
      peer_templates: {
        leaves: {
          remote_as: 'external',
          auth_type: 'md5',
          password: SECRET,
          import: ['all'],
          export: ['all'],
        },
      },
      listen_ranges: [
        { prefix: '198.18.0.0/22', template: 'leaves' },
        { prefix: '2001:db8::/46', template: 'leaves' },
      ],
    });
  }, 240_000);

  afterAll(async () => {
    await lab?.destroy();
  });

  it('sessions in both ranges come up signed; the wrong key never comes up, dropped by the kernel', async () => {
    const before = tcpCounters(lab.speakerNs);
    const up = ['dyn-198.18.1.2', 'dyn-2001:db8:1::2', 'dyn-198.18.2.2'];
    await speaker.waitEstablished(up, UP_MS);
    for (const address of ['198.18.1.2', '2001:db8:1::2', '198.18.2.2']) {
      expect(md5Keyed(lab.speakerNs, address), address).toEqual([true]);
    }
    // w3 keeps trying (every 2 s); the kernel drops each SYN: it never reaches the speaker.
    await eventually(
      () => {
        const now = tcpCounters(lab.speakerNs);
        return (now.TcpExtTCPMD5Failure ?? 0) - (before.TcpExtTCPMD5Failure ?? 0) >= 2 ? true : undefined;
      },
      'w3’s signed SYNs dropped',
      FLOW_MS,
    );
    const all = ((await speaker.summary())?.neighbors ?? []).map((n) => n.name).sort();
    expect(all).toEqual([...up].sort());
    expect((await lab.frr('w3').neighbor(lab.peer('w3').speakerAddress.ipv4))?.state).not.toBe('Established');
  });
});
