import { afterEach, describe, expect, it } from 'vitest';
import { formatIpv4, parseIpv4 } from '../../src/address/index.js';
import { callControl } from '../../src/api/index.js';
import { Afi } from '../../src/bgp/wire/constants.js';
import { PrefixList } from '../../src/bgp/wire/prefix-list.js';
import { ConfigStore, parseConfig } from '../../src/config/index.js';
import { initialTablesSending, onInitialTables } from '../../src/routing/initial-tables.js';
import { Speaker } from '../../src/speaker/index.js';
import { ACCEPT_ALL, Probe, probePeer, speakerSection, tempDir, until, yamlOf } from './support.js';

// A table large enough to need many slices: it arrives whole, End-of-RIB comes after it, and
// the speaker keeps answering while it sends.

const ROUTES = 100_000;
const PER_UPDATE = 500;
const BASE = parseIpv4('198.18.0.0');
/** 100,000 /32s in 198.18.0.0/15 (131,072 addresses). */
const address = (i: number) => formatIpv4((BASE + i) >>> 0);

let cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  onInitialTables(null);
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

async function sendTable(p: Probe): Promise<void> {
  for (let i = 0; i < ROUTES; i += PER_UPDATE) {
    const nlri = new PrefixList(Afi.IPV4, false, PER_UPDATE);
    for (let j = i; j < Math.min(ROUTES, i + PER_UPDATE); j++) nlri.add(address(j), 32);
    const u = p.update([]);
    if (!p.peer.send({ attrs: u.attrs, nlri })) await p.peer.drain();
  }
}

describe('a full table through the speaker', () => {
  it('reaches a new peer whole, End-of-RIB after the last route; the control socket answers meanwhile', async () => {
    const a = await Probe.start('127.0.0.2', 65001, '198.18.0.12');
    const b = await Probe.start('127.0.0.3', 65002, '198.18.0.13');
    cleanups.push(
      () => a.close(),
      () => b.close(),
    );
    const t = tempDir();
    cleanups.push(t.cleanup);
    const speakerDoc = speakerSection(t.dir);
    const doc = { peers: [probePeer(a, { import: ['all'] })], policies: { all: ACCEPT_ALL } };
    let text = yamlOf({ ...doc, speaker: speakerDoc });
    const store = ConfigStore.open('f', { load: (f) => parseConfig(text, { file: f }) });
    const s = await Speaker.start(store.config);
    cleanups.push(() => s.close());
    await until(() => a.established, 'a up');

    await sendTable(a);
    await until(() => s.summary().rib['ipv4-unicast'] === ROUTES, 'the whole table in the RIB', 60_000);

    // Whoever tunes the process for sending hears when the initial table starts and ends.
    const told: string[] = [];
    onInitialTables({
      begin: () => told.push(`begin with ${b.rec.updates.length} UPDATEs at b`),
      end: () => told.push(`end with End-of-RIB ${b.rec.endOfRib.length > 0 ? 'sent' : 'not sent'}`),
    });
    text = yamlOf({ ...doc, peers: [...doc.peers, probePeer(b, { export: ['all'] })], speaker: speakerDoc });
    await s.reload(store.reload());
    const seen: number[] = [];
    let asking: Promise<void> | null = null;
    await until(
      () => {
        // Answers while the table is being sent show how far it got (one question at a time).
        asking ??= callControl(s.controlSocket!, 'summary', {}).then(
          (v) => {
            const n = v.neighbors.find((x) => x.name === 'p3')?.prefixes['ipv4-unicast']?.advertised;
            if (n !== undefined) seen.push(n);
            asking = null;
          },
          () => {
            asking = null;
          },
        );
        return b.rec.endOfRib.length >= 1;
      },
      'End-of-RIB at b',
      60_000,
    );
    await asking;
    const announced = new Set(
      b
        .events()
        .filter((e) => e.kind === 'announce')
        .map((e) => e.prefix),
    );
    expect(announced.size).toBe(ROUTES);
    expect(announced.has(`${address(ROUTES - 1)}/32`)).toBe(true);
    // Every announcement came before the first End-of-RIB.
    expect(b.rec.endOfRibAt[0]).toBe(b.rec.updates.length);
    await until(() => seen.length > 0, 'control answers');
    expect(seen.some((n) => n > 0 && n < ROUTES)).toBe(true);
    expect(told).toEqual(['begin with 0 UPDATEs at b', 'end with End-of-RIB not sent']);
    // The speaker counted each UPDATE it packed, End-of-RIB included, without walking them again.
    const sentToB = () => s.neighbors('p3')[0]?.messages.sent.update;
    await until(() => sentToB() === b.peer.stats.received.update, 'the counts alike');
    expect(b.peer.stats.received.update).toBe(b.rec.updates.length + b.rec.endOfRib.length);
    expect(initialTablesSending()).toBe(0);
  }, 120_000);
});
