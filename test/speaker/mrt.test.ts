import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatAddress } from '../../src/address/index.js';
import { MessageType } from '../../src/bgp/wire/constants.js';
import { ConfigStore, parseConfig } from '../../src/config/index.js';
import { decodeBgp4mp, decodeRib, MrtType, splitRecords } from '../../src/mrt/index.js';
import { Speaker } from '../../src/speaker/index.js';
import {
  ACCEPT_ALL,
  Probe,
  probePeer,
  SPEAKER_AS,
  speakerSection,
  tempDir,
  until,
  yamlOf,
} from './support.js';

// The speaker's MRT parts against a bare session on loopback: what the recording holds of it,
// a dump and its injection back, and a reload that starts and stops the recording.

let cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

const policies = { all: ACCEPT_ALL };

async function setup() {
  const p = await Probe.start('127.0.0.2', 65001, '198.18.0.12');
  cleanups.push(() => p.close());
  const t = tempDir();
  cleanups.push(t.cleanup);
  const recording = join(t.dir, 'updates.mrt');
  const base = {
    peers: [probePeer(p, { import: ['all'], export: ['all'] })],
    policies,
    routes: [{ prefix: '198.18.90.0/24' }],
  };
  let text = yamlOf({ ...base, speaker: speakerSection(t.dir), mrt: { updates: { path: recording } } });
  const store = ConfigStore.open('speaker.yaml', { load: (f) => parseConfig(text, { file: f }) });
  const speaker = await Speaker.start(store.config);
  cleanups.push(() => speaker.close());
  return {
    p,
    dir: t.dir,
    recording,
    speaker,
    async reload(mrt: Record<string, unknown> | undefined) {
      text = yamlOf({ ...base, speaker: speakerSection(t.dir), ...(mrt && { mrt }) });
      await speaker.reload(store.reload());
    },
  };
}

describe('MRT in the running speaker', () => {
  it('records the session both ways with state changes, and stops recording when the section goes', async () => {
    const { p, recording, speaker, reload } = await setup();
    await until(() => p.established && p.table().size === 1, 'the probe up with our route');
    p.announce(['198.18.91.0/24'], { asPath: [65001, 65010] });
    await until(() => speaker.rib({ prefix: '198.18.91.0/24' }).length === 1, 'the probe’s route held');
    await reload(undefined); // the recording is closed (flushed) and no longer fed
    const records = splitRecords(readFileSync(recording)).map((r) => {
      expect(r.type).toBe(MrtType.BGP4MP);
      return decodeBgp4mp(r);
    });
    const messages = records.flatMap((r) => (r.kind === 'message' ? [r] : []));
    for (const m of messages) {
      expect(formatAddress(m.peerAddress)).toBe('127.0.0.2');
      expect(formatAddress(m.localAddress)).toBe('127.0.0.1');
      expect([m.peerAs, m.localAs]).toEqual([65001, SPEAKER_AS]);
    }
    const kinds = (local: boolean) => messages.filter((m) => m.local === local).map((m) => m.message[18]);
    // Both OPENs, and an UPDATE each way (ours with 198.18.90.0/24, the probe's).
    expect(kinds(true)).toEqual(
      expect.arrayContaining([MessageType.OPEN, MessageType.KEEPALIVE, MessageType.UPDATE]),
    );
    expect(kinds(false)).toEqual(
      expect.arrayContaining([MessageType.OPEN, MessageType.KEEPALIVE, MessageType.UPDATE]),
    );
    const states = records.flatMap((r) => (r.kind === 'state' ? [[r.oldState, r.newState]] : []));
    expect(states).toContainEqual([5, 6]); // OpenConfirm to Established
    const size = readFileSync(recording).length;
    p.announce(['198.18.92.0/24']);
    await until(() => speaker.rib({ prefix: '198.18.92.0/24' }).length === 1, 'a route after the reload');
    await new Promise((r) => setTimeout(r, 1200)); // past the recording's flush interval
    expect(readFileSync(recording).length).toBe(size);
  });

  it('dumps the table and injects the dump: the mrt origin holds the same routes, withdrawn as a whole', async () => {
    const { p, dir, speaker } = await setup();
    await until(() => p.established, 'the probe up');
    p.announce(['198.18.93.0/24', '198.18.94.0/24'], { asPath: [65001, 65020] });
    await until(() => speaker.rib({}).length === 3, 'three prefixes held');
    const file = join(dir, 'rib.%Y.mrt');
    const dump = await speaker.dumpRib(file);
    expect(dump.path).toBe(join(dir, `rib.${new Date().getUTCFullYear()}.mrt`));
    expect(existsSync(`${dump.path}.partial`)).toBe(false);
    const ribs = splitRecords(readFileSync(dump.path)).slice(1).map(decodeRib);
    expect(ribs.map((r) => r.prefixLength)).toEqual([24, 24, 24]);
    expect(dump).toMatchObject({ prefixes: 3 });

    const view = await speaker.injectMrt('table', dump.path);
    // Our static route is dumped with NEXT_HOP 0.0.0.0 (its next hop is ours, set on export),
    // which RFC 7606 refuses on the way back in: the two learned routes are originated.
    expect(view).toMatchObject({ name: 'table', ipv4: 2, ipv6: 0, invalid: 1 });
    speaker.flush();
    const [entry] = speaker.rib({ prefix: '198.18.93.0/24' });
    const fromMrt = entry?.paths.find((x) => x.from === 'mrt');
    expect(fromMrt?.asPath).toBe('65001 65020');
    // Local paths win: the injected copy is the best path now.
    expect(fromMrt?.best).toBe(true);
    expect(speaker.mrtInjections().map((v) => v.name)).toEqual(['table']);
    await speaker.withdrawMrt('table');
    speaker.flush();
    expect(speaker.rib({ prefix: '198.18.93.0/24' })[0]?.paths.map((x) => x.from)).toEqual([
      expect.stringMatching(/^p2|127/),
    ]);
    await expect(speaker.withdrawMrt('table')).rejects.toMatchObject({ code: 'unknown-route' });
    await expect(speaker.injectMrt('x', join(dir, 'missing.mrt'))).rejects.toMatchObject({
      code: 'bad-request',
    });
  });
});
