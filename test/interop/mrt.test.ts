import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Lab } from '../../frr-interop/lab/index.js';
import { callControl, type MrtDumpResult, type MrtInjectionView } from '../../src/api/index.js';
import { dumpTable } from '../../src/mrt/index.js';
import { Rib } from '../../src/rib/index.js';
import { bgpdumpLines, haveBgpdump } from '../mrt/support.js';
import { attrs, v4 } from '../rib/routes.js';
import { eventually, LabSpeaker } from '../speaker/lab-speaker.js';

// MRT against real peers: FRR 8.4 sends us its routes and GoBGP listens. The speaker's Loc-RIB
// dumped as TABLE_DUMP_V2 and its messages recorded as BGP4MP are read by bgpdump, line for
// line what the speaker holds and exchanged; an MRT file injected (`mrt inject`) reaches both
// peers with the file's AS_PATH behind ours, and our own dump of FRR's table, injected, keeps
// those routes at GoBGP after FRR's session is shut down, until the file is withdrawn.

const IS_ROOT = process.getuid?.() === 0;
const SPEAKER = { as: 65000, routerId: '198.18.0.1' } as const;
const UP_MS = 60_000;
const FLOW_MS = 30_000;
const V4 = { transports: ['ipv4' as const] };
const FRR_ROUTES = ['198.19.11.0/24', '198.19.12.0/24', '198.19.13.0/24'];
/** In the file made here: a prefix nobody else announces, with an AS_PATH of its own. */
const FILE_ROUTE = '198.19.200.0/24';
const FILE_PATH = [64512, 64513];

describe.skipIf(!IS_ROOT || !haveBgpdump())('MRT dump, recording and injection with FRR and GoBGP', () => {
  let lab: Lab;
  let speaker: LabSpeaker;
  let recording: string;

  const call = <T>(method: string, params: Record<string, unknown>) =>
    callControl(speaker.socket, method as never, params as never, { timeoutMs: FLOW_MS }) as Promise<T>;
  const at = async (peer: 'frr' | 'gobgp', prefix: string) => {
    const from = lab.peer(peer).speakerAddress.ipv4;
    const routes =
      peer === 'frr'
        ? await lab.frr(peer).routes('ipv4', { from })
        : await lab.gobgp(peer).routes('ipv4', { from });
    return routes.find((r) => r.prefix === prefix);
  };

  beforeAll(async () => {
    lab = await Lab.create({
      id: 'mrt',
      speaker: SPEAKER,
      peers: [
        {
          name: 'frr',
          impl: 'frr' as const,
          as: 65001,
          speakerSessions: V4,
          originate: { ipv4: FRR_ROUTES },
        },
        { name: 'gobgp', impl: 'gobgp' as const, as: 65002, speakerSessions: V4 },
      ],
    });
    recording = join(lab.dir, 'updates.mrt');
    speaker = await LabSpeaker.start(lab, {
      speaker: {
        name: 'mrt',
        local_as: SPEAKER.as,
        router_id: SPEAKER.routerId,
        listen: { address: '::', port: 179 },
        hold_time: 9,
        connect_retry: 2,
        log: { level: 'info' },
      },
      peers: (['frr', 'gobgp'] as const).map((name) => ({
        name,
        peer_ip: lab.peer(name).address.ipv4,
        remote_as: name === 'frr' ? 65001 : 65002,
        import: ['accept-all'],
        export: ['accept-all'],
      })),
      mrt: { updates: { path: recording } },
    });
    await speaker.waitEstablished(['frr', 'gobgp'], UP_MS);
    await eventually(
      async () => ((await speaker.rib()).length >= FRR_ROUTES.length ? true : undefined),
      "FRR's routes",
      FLOW_MS,
    );
  });

  afterAll(async () => {
    await speaker?.stop();
    await lab?.destroy();
  });

  it('dumps the Loc-RIB: bgpdump reads one line per prefix, as `show rib` says', async () => {
    const file = join(lab.dir, 'rib.mrt');
    const result = await call<MrtDumpResult>('mrt.dump', { path: file });
    const rib = await speaker.rib();
    expect(result.prefixes).toBe(rib.length);
    const { readFileSync } = await import('node:fs');
    const lines = bgpdumpLines(readFileSync(file)).map((l) => l.split('|'));
    const frrAddress = lab.peer('frr').address.ipv4;
    expect(lines.map((f) => [f[3], f[4], f[5], f[6], f[8]]).sort()).toEqual(
      rib
        .map((e) => {
          const best = e.paths.find((p) => p.best)!;
          return [frrAddress, '65001', e.prefix, best.asPath, best.nextHop];
        })
        .sort(),
    );
  });

  it("records the sessions: bgpdump reads FRR's UPDATEs, ours to GoBGP and the state changes", async () => {
    const { readFileSync } = await import('node:fs');
    const frr = lab.peer('frr').address.ipv4;
    const gobgp = lab.peer('gobgp').address.ipv4;
    const lines = await eventually(
      () => {
        try {
          const l = bgpdumpLines(readFileSync(recording));
          return l.some((x) => x.includes(`|${gobgp}|65002|${FRR_ROUTES[2]}|`)) ? l : undefined;
        } catch {
          return undefined;
        }
      },
      'the recording on disk',
      FLOW_MS,
    );
    const fields = lines.map((l) => l.split('|'));
    // Received from FRR: each of its prefixes announced with its AS_PATH.
    for (const p of FRR_ROUTES) {
      expect(
        fields.some(
          (f) =>
            f[0] === 'BGP4MP' &&
            f[2] === 'A' &&
            f[3] === frr &&
            f[4] === '65001' &&
            f[5] === p &&
            f[6] === '65001',
        ),
      ).toBe(true);
    }
    // Sent to GoBGP: FRR's prefixes behind our AS.
    for (const p of FRR_ROUTES) {
      expect(fields.some((f) => f[2] === 'A' && f[3] === gobgp && f[5] === p && f[6] === '65000 65001')).toBe(
        true,
      );
    }
    // Both sessions came up through OpenConfirm (5) to Established (6).
    for (const addr of [frr, gobgp]) {
      expect(fields.some((f) => f[2] === 'STATE' && f[3] === addr && f[5] === '5' && f[6] === '6')).toBe(
        true,
      );
    }
  });

  it('injects a file: both peers get its route with the AS_PATH it holds behind ours', async () => {
    const rib = new Rib({ localAs: 64511, routerId: 0xc6120063 });
    const src = rib.addPeer({
      id: 'x',
      kind: 'ebgp',
      asn: 64512,
      routerId: 0xc6120064,
      address: '198.18.99.1',
    });
    rib.announce(src, v4(FILE_ROUTE), attrs(FILE_PATH, { med: 7 }, '198.18.99.1'));
    rib.flush();
    const chunks: Uint8Array[] = [];
    await dumpTable(rib, async (b) => void chunks.push(b.slice()), { timestamp: 1_700_000_000 });
    const file = join(lab.dir, 'made.mrt');
    writeFileSync(file, Buffer.concat(chunks));
    const view = await call<MrtInjectionView>('mrt.inject', { name: 'made', path: file });
    expect(view).toMatchObject({ name: 'made', ipv4: 1, ipv6: 0, invalid: 0 });
    for (const peer of ['frr', 'gobgp'] as const) {
      const r = await eventually(() => at(peer, FILE_ROUTE), `${FILE_ROUTE} at ${peer}`, FLOW_MS);
      expect(r.asPath).toEqual([SPEAKER.as, ...FILE_PATH]);
    }
    await call('mrt.withdraw', { name: 'made' });
    await eventually(
      async () => ((await at('gobgp', FILE_ROUTE)) ? undefined : true),
      `${FILE_ROUTE} gone`,
      FLOW_MS,
    );
  });

  it("injects our dump of FRR's table: GoBGP keeps those routes when FRR goes, until the file is withdrawn", async () => {
    const file = join(lab.dir, 'received.mrt');
    await call<MrtDumpResult>('mrt.dump', { path: file });
    const view = await call<MrtInjectionView>('mrt.inject', { name: 'received', path: file });
    expect(view.ipv4).toBe(FRR_ROUTES.length);
    expect(await call<MrtInjectionView[]>('mrt.list', {})).toEqual([view]);
    await speaker.neighborAction('frr', 'shutdown');
    await eventually(
      async () => ((await speaker.neighbor('frr'))?.state !== 'Established' ? true : undefined),
      'FRR down',
      FLOW_MS,
    );
    // The injected copies carry the file's AS_PATH, so GoBGP sees no change at all.
    for (const p of FRR_ROUTES) {
      const r = await eventually(() => at('gobgp', p), `${p} at GoBGP`, FLOW_MS);
      expect(r.asPath).toEqual([SPEAKER.as, 65001]);
    }
    const [entry] = await speaker.rib(FRR_ROUTES[0]);
    expect(entry?.paths.map((p) => p.from)).toEqual(['mrt']);
    await call('mrt.withdraw', { name: 'received' });
    for (const p of FRR_ROUTES) {
      await eventually(
        async () => ((await at('gobgp', p)) ? undefined : true),
        `${p} withdrawn from GoBGP`,
        FLOW_MS,
      );
    }
    await speaker.neighborAction('frr', 'enable');
  });
});
