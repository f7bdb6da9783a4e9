import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Lab } from '../../frr-interop/lab/index.js';
import { runControlCommand } from '../../src/cli/show.js';
import { eventually, LabSpeaker } from '../speaker/lab-speaker.js';
import {
  compareShapes,
  NEIGHBORS_CLAIMED,
  SOMETIMES,
  SUMMARY_CLAIMED,
  shapeOf,
} from '../support/frr-json-shape.js';

// `show summary --json` and `show neighbors --json` beside FRR 8.4's and 10.3's own
// `show bgp summary json` and `show bgp neighbors json`, each side describing the same two
// sessions: every field we print is one FRR prints, with its type, and the counts agree across
// the session (what we sent is what FRR received). FRR_JSON_CAPTURE=1 also writes FRR's output
// to fixtures/frr-json, which test/cli/frr-json.test.ts holds our output to without a lab.

const IS_ROOT = process.getuid?.() === 0;
const CAPTURE = process.env.FRR_JSON_CAPTURE === '1';
const FIXTURES = join(import.meta.dirname, '../../fixtures/frr-json');
const SPEAKER = { as: 65000, routerId: '198.18.0.1' } as const;
const UP_MS = 60_000;
const FLOW_MS = 30_000;
const OURS = '198.19.200.0/24';
const FRRS = [
  { name: 'frr84', version: '8.4', release: 'bookworm', as: 65001, theirs: '198.19.101.0/24' },
  { name: 'frr103', version: '10.3', release: 'trixie', as: 65002, theirs: '198.19.102.0/24' },
] as const;

// biome-ignore lint/suspicious/noExplicitAny: the printed JSON, read by path as a script would
type Json = Record<string, any>;

describe.skipIf(!IS_ROOT)('FRR-shaped JSON beside FRR 8.4 and 10.3', () => {
  let lab: Lab;
  let speaker: LabSpeaker;

  const ourJson = async (args: string[]): Promise<Json> => {
    let out = '';
    const io = { out: (t: string) => (out += t), err: () => {}, env: {} };
    expect(await runControlCommand('show', [...args, '--json', '--socket', speaker.socket], io)).toBe(0);
    return JSON.parse(out);
  };
  const frrJson = async (name: string, command: string): Promise<Json> =>
    JSON.parse(await lab.frr(name).vtysh([command]));

  beforeAll(
    async () => {
      lab = await Lab.create({
        id: 'frrjson',
        speaker: SPEAKER,
        peers: FRRS.map((f) => ({
          name: f.name,
          impl: 'frr' as const,
          release: f.release,
          as: f.as,
          speakerSessions: { transports: ['ipv4' as const] },
          originate: { ipv4: [f.theirs] },
        })),
      });
      speaker = await LabSpeaker.start(lab, {
        speaker: {
          name: 'frrjson',
          local_as: SPEAKER.as,
          router_id: SPEAKER.routerId,
          listen: { address: '::', port: 179 },
          hold_time: 9,
          connect_retry: 2,
          log: { level: 'info' },
        },
        peers: FRRS.map((f) => ({
          name: f.name,
          peer_ip: lab.peer(f.name).address.ipv4,
          remote_as: f.as,
          import: ['all'],
          export: ['all'],
        })),
        policies: { all: { statements: [{ action: 'accept' }] } },
        routes: [{ prefix: OURS }],
      });
      await speaker.waitEstablished(
        FRRS.map((f) => f.name),
        UP_MS,
      );
      // Both FRRs hold our route and each other's: the counts below have settled.
      await eventually(
        async () => {
          for (const f of FRRS) {
            const s = await frrJson(f.name, 'show bgp summary json');
            const peer = Object.values(s.ipv4Unicast?.peers ?? {})[0] as Json | undefined;
            if (peer?.pfxRcd !== 2) return undefined;
          }
          return true;
        },
        'both FRRs holding our two routes',
        FLOW_MS,
      );
    },
    UP_MS + FLOW_MS + 60_000,
  );

  afterAll(async () => {
    await lab?.destroy();
  });

  for (const f of FRRS) {
    it(`show summary --json: FRR ${f.version}'s fields and types, and the session's counts agree`, async () => {
      const frr = await frrJson(f.name, 'show bgp summary json');
      if (CAPTURE)
        writeFileSync(join(FIXTURES, `frr-${f.version}-summary.json`), `${JSON.stringify(frr, null, 2)}\n`);
      const ours = await ourJson(['summary']);
      expect(compareShapes(ours, frr, SOMETIMES)).toEqual({ wrongType: [], unknown: [] });
      const [oursShape, frrShape] = [shapeOf(ours), shapeOf(frr)];
      for (const claimed of SUMMARY_CLAIMED) {
        expect(oursShape.has(claimed), `ours lacks ${claimed}`).toBe(true);
        expect(frrShape.has(claimed), `FRR lacks ${claimed}`).toBe(true);
      }
      const us = ours.ipv4Unicast.peers[lab.peer(f.name).address.ipv4];
      const them = Object.values(frr.ipv4Unicast.peers)[0] as Json;
      expect(us).toMatchObject({ state: 'Established', remoteAs: f.as, localAs: SPEAKER.as, desc: f.name });
      expect(them).toMatchObject({ state: 'Established', remoteAs: SPEAKER.as, localAs: f.as });
      // Our route and the other FRR's went out and were taken; from FRR we take its own route
      // (what it sends back of ours fails the AS_PATH loop check, RFC 4271 9.1.2).
      expect(us.pfxSnt).toBe(them.pfxRcd);
      expect(us.pfxRcd).toBe(1);
      expect([us.connectionsEstablished, us.connectionsDropped]).toEqual([1, 0]);
    });

    it(`show neighbors --json: FRR ${f.version}'s fields and types, and each side's view of the other`, async () => {
      const frr = await frrJson(f.name, 'show bgp neighbors json');
      if (CAPTURE)
        writeFileSync(join(FIXTURES, `frr-${f.version}-neighbors.json`), `${JSON.stringify(frr, null, 2)}\n`);
      const ours = await ourJson(['neighbors', f.name]);
      expect(compareShapes(ours, frr, SOMETIMES)).toEqual({ wrongType: [], unknown: [] });
      const [oursShape, frrShape] = [shapeOf(ours), shapeOf(frr)];
      for (const claimed of NEIGHBORS_CLAIMED) {
        expect(oursShape.has(claimed), `ours lacks ${claimed}`).toBe(true);
        expect(frrShape.has(claimed), `FRR lacks ${claimed}`).toBe(true);
      }
      const address = lab.peer(f.name).address.ipv4;
      const us = ours[address];
      const them = Object.values(frr)[0] as Json;
      expect(us.remoteRouterId).toBe(them.localRouterId);
      expect(them.remoteRouterId).toBe(SPEAKER.routerId);
      expect([us.hostLocal, us.hostForeign]).toEqual([them.hostForeign, them.hostLocal]);
      expect(us.bgpTimerHoldTimeMsecs).toBe(them.bgpTimerHoldTimeMsecs);
      expect(us.neighborCapabilities['4byteAs']).toBe('advertisedAndReceived');
      expect(them.neighborCapabilities['4byteAs']).toBe('advertisedAndReceived');
      expect(us.messageStats.opensSent).toBe(them.messageStats.opensRecv);
      expect(us.addressFamilyInfo.ipv4Unicast.sentPrefixCounter).toBe(
        them.addressFamilyInfo.ipv4Unicast.acceptedPrefixCounter,
      );
    });
  }
});
