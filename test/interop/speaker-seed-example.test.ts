import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Lab } from '../../frr-interop/lab/index.js';
import { eventually, LabSpeaker } from '../speaker/lab-speaker.js';
import { ZEBRA_VERSIONS, Zebra } from '../support/zebra-lab.js';

// The classic two-speaker example: both in AS 7675 (iBGP), each announcing the network its
// loopback address is in, with `network` statements. Our speaker and FRR each learn the
// other's network and install it: FRR through its zebra, ours through the zebra of its own
// namespace (the zebra sink). Each loopback then answers a ping from the other's namespace.
// It runs twice: with FRR 8.4's zebra (the host's) and FRR 10.3's (the trixie root's) in our
// namespace, the sink speaking each one's ZAPI dialect; the FRR peer is the host's 8.4 both times.

const IS_ROOT = process.getuid?.() === 0;
const AS = 7675;
const SPEAKER = { as: AS, routerId: '198.18.0.1' } as const;
const OUR_NETWORK = '198.19.75.0/24';
const OUR_LOOPBACK = '198.19.75.1';
const FRR_NETWORK = '198.19.76.0/24';
const FRR_LOOPBACK = '198.19.76.1';
const UP_MS = 60_000;
const FLOW_MS = 30_000;

for (const version of ZEBRA_VERSIONS)
  describe.skipIf(!IS_ROOT)(
    `two speakers in AS 7675, each announcing a network: ours and FRR (${version.name} zebra)`,
    () => {
      let lab: Lab;
      let zebra: Zebra | undefined;
      let speaker: LabSpeaker;

      beforeAll(async () => {
        lab = await Lab.create({
          id: `seed${version.tag}`,
          speaker: SPEAKER,
          peers: [{ name: 'frr', impl: 'frr', as: AS, originate: { ipv4: [FRR_NETWORK], ipv6: [] } }],
        });
        zebra = await Zebra.create(lab.speakerNs, await version.root());
        await zebra.start();
        await lab.exec(lab.speakerNs, ['ip', 'addr', 'add', `${OUR_LOOPBACK}/32`, 'dev', 'lo']);
        await lab.exec(lab.peer('frr').ns, ['ip', 'addr', 'add', `${FRR_LOOPBACK}/32`, 'dev', 'lo']);
        speaker = await LabSpeaker.start(lab, {
          speaker: {
            name: 'seed',
            local_as: AS,
            router_id: SPEAKER.routerId,
            listen: { address: '::', port: 179 },
            hold_time: 9,
            connect_retry: 2,
            log: { level: 'info' },
          },
          // iBGP without policy: everything goes both ways unchanged (RFC 8212 is for eBGP).
          peers: [{ name: 'frr', peer_ip: lab.peer('frr').address.ipv4, remote_as: AS }],
          networks: [OUR_NETWORK],
          sinks: { zebra: { socket: zebra.socket } },
        });
        await speaker.waitEstablished(['frr'], UP_MS);
      });

      afterAll(async () => {
        try {
          await zebra?.destroy();
        } finally {
          await lab?.destroy();
        }
      });

      it(`our zebra sink speaks ${version.name}'s ZAPI dialect`, async () => {
        const line = await eventually(
          async () => speaker.logLines().find((l) => l.msg === 'zebra: connected'),
          'the sink connected to zebra',
          FLOW_MS,
        );
        expect(line).toMatchObject({ zapi: version.name });
      });

      it('we learn FRR’s network over iBGP: empty AS path, LOCAL_PREF 100, FRR’s address as next hop', async () => {
        const [entry] = await eventually(
          async () => {
            const e = await speaker.rib(FRR_NETWORK);
            return e[0]?.paths.some((p) => p.from === 'frr') ? e : undefined;
          },
          `${FRR_NETWORK} in show rib`,
          FLOW_MS,
        );
        expect(entry!.paths).toHaveLength(1);
        expect(entry!.paths[0]).toMatchObject({
          from: 'frr',
          asPath: '',
          localPref: 100,
          nextHop: lab.peer('frr').address.ipv4,
          best: true,
        });
      });

      it('FRR learns ours as its best path and installs it in its kernel via our address', async () => {
        const frr = lab.peer('frr');
        const [route] = await eventually(
          async () => {
            const r = await lab.frr('frr').routes('ipv4', { from: frr.speakerAddress.ipv4 });
            const ours = r.filter((x) => x.prefix === OUR_NETWORK && x.best);
            return ours.length > 0 ? ours : undefined;
          },
          `${OUR_NETWORK} as FRR's best path`,
          FLOW_MS,
        );
        expect(route!.asPath).toEqual([]);
        expect(route!.localPref).toBe(100);
        expect(route!.nextHops).toEqual([frr.speakerAddress.ipv4]);
        const kernel = await eventually(
          async () => {
            const out = await lab.exec(frr.ns, ['ip', '-j', 'route', 'show', OUR_NETWORK]);
            const routes = JSON.parse(out) as { dst: string; gateway?: string; protocol?: string }[];
            return routes.length > 0 ? routes : undefined;
          },
          `${OUR_NETWORK} in FRR's kernel table`,
          FLOW_MS,
        );
        expect(kernel).toEqual([
          expect.objectContaining({ dst: OUR_NETWORK, gateway: frr.speakerAddress.ipv4, protocol: 'bgp' }),
        ]);
      });

      it('our loopback address answers a ping from FRR’s namespace', async () => {
        const out = await lab.exec(lab.peer('frr').ns, ['ping', '-c', '1', '-W', '2', OUR_LOOPBACK]);
        expect(out).toMatch(/1 received/);
      });

      it('we install FRR’s network through zebra, and FRR’s loopback answers a ping from ours', async () => {
        const frr = lab.peer('frr');
        const kernel = await eventually(
          async () => {
            const out = await lab.exec(lab.speakerNs, ['ip', '-j', 'route', 'show', FRR_NETWORK]);
            const routes = JSON.parse(out) as { dst: string; gateway?: string; protocol?: string }[];
            return routes.length > 0 ? routes : undefined;
          },
          `${FRR_NETWORK} in our namespace's kernel table`,
          FLOW_MS,
        );
        expect(kernel).toEqual([
          expect.objectContaining({ dst: FRR_NETWORK, gateway: frr.address.ipv4, protocol: 'bgp' }),
        ]);
        const out = await lab.exec(lab.speakerNs, [
          'ping',
          '-c',
          '1',
          '-W',
          '2',
          '-I',
          OUR_LOOPBACK,
          FRR_LOOPBACK,
        ]);
        expect(out).toMatch(/1 received/);
      });
    },
  );
