import { describe, expect, it } from 'vitest';
import { parseIpv4 } from '../../src/address/index.js';
import { AttrInterner, encodeMessageBytes, UpdatePacker, Writer } from '../../src/bgp/wire/index.js';
import {
  Bgp4mpRecorder,
  encodePeerIndexTable,
  finishRib,
  type MrtReadResult,
  readMrtRoutes,
  ribEntry,
  startRib,
  tableDumpAttributes,
} from '../../src/mrt/index.js';
import { attrs, v4 } from '../rib/routes.js';

const packer = new UpdatePacker({ as4: true });

async function read(bytes: Uint8Array): Promise<{ result: MrtReadResult; routes: string[] }> {
  const routes: string[] = [];
  const result = await readMrtRoutes(
    (async function* () {
      // Two chunks, cut inside a record: the reader must join them.
      const cut = Math.floor(bytes.length / 2);
      yield bytes.subarray(0, cut);
      yield bytes.subarray(cut);
    })(),
    (u) => {
      for (const p of u.withdrawn.toArray()) routes.push(`-${p.addr}/${p.len}`);
      if (u.action === 'treat-as-withdraw' || !u.attrs) return;
      const path = u.attrs.asPath?.flatMap((s) => s.asns).join(' ');
      for (const p of u.nlri.toArray()) routes.push(`+${p.addr}/${p.len} ${path}`);
    },
    { interner: new AttrInterner(), pause: async () => {} },
  );
  return { result, routes };
}

function ribFile(records: (w: Writer) => void): Uint8Array {
  const w = new Writer();
  encodePeerIndexTable(w, 1, {
    collectorId: 1,
    viewName: '',
    peers: [{ bgpId: 2, address: Uint8Array.of(198, 18, 0, 2), asn: 65001 }],
  });
  records(w);
  return w.finish();
}

describe('MRT files read as routes', () => {
  it('takes the first entry of each RIB record, with or without path ids (RFC 8050)', async () => {
    const a = tableDumpAttributes(packer, attrs([65001, 65100]));
    const b = tableDumpAttributes(packer, attrs([65001, 65200]));
    const file = ribFile((w) => {
      let at = startRib(w, 1, 1, true, 0, [parseIpv4('198.18.10.0')], 0, 24);
      ribEntry(w, true, 0, 1, 7, b);
      ribEntry(w, true, 0, 1, 8, a);
      finishRib(w, at, 2, 24);
      at = startRib(w, 1, 1, false, 1, [parseIpv4('198.18.11.0')], 0, 24);
      ribEntry(w, false, 0, 1, 0, a);
      finishRib(w, at, 1, 24);
      at = startRib(w, 1, 1, false, 2, [parseIpv4('198.18.12.0')], 0, 24);
      finishRib(w, at, 0, 24); // no entry at all: nothing to originate
    });
    const { result, routes } = await read(file);
    expect(routes).toEqual(['+198.18.10.0/24 65001 65200', '+198.18.11.0/24 65001 65100']);
    expect(result).toMatchObject({ records: 4, ribRecords: 3, skipped: 0, withdrawn: 0 });
  });

  it('refuses a record whose entries overrun it, and a file cut inside a record', async () => {
    const a = tableDumpAttributes(packer, attrs([65001]));
    const lying = ribFile((w) => {
      const at = startRib(w, 1, 1, false, 0, [parseIpv4('198.18.10.0')], 0, 24);
      ribEntry(w, false, 0, 1, 0, a);
      finishRib(w, at, 2, 24); // says two entries, holds one
    });
    await expect(read(lying)).rejects.toMatchObject({
      kind: 'malformed',
      message: expect.stringMatching(/RIB record runs past/),
    });
    const whole = ribFile((w) => {
      const at = startRib(w, 1, 1, false, 0, [parseIpv4('198.18.10.0')], 0, 24);
      ribEntry(w, false, 0, 1, 0, a);
      finishRib(w, at, 1, 24);
    });
    await expect(read(whole.subarray(0, whole.length - 3))).rejects.toMatchObject({ kind: 'truncated' });
  });

  it('replays a BGP4MP recording: announcements and withdrawals in order, other messages passed over', async () => {
    const rec = new Bgp4mpRecorder(() => 1);
    const peering = {
      peerAs: 65001,
      localAs: 65000,
      interfaceIndex: 0,
      peerAddress: Uint8Array.of(198, 18, 0, 2),
      localAddress: Uint8Array.of(198, 18, 0, 1),
    };
    rec.messages('received', peering, encodeMessageBytes({ type: 'keepalive' }));
    rec.messages(
      'received',
      peering,
      encodeMessageBytes({
        type: 'update',
        nlri: v4('198.18.20.0/24', '198.18.21.0/24'),
        attrs: attrs([65001, 65300]),
      }),
    );
    rec.messages(
      'received',
      peering,
      encodeMessageBytes({ type: 'update', withdrawn: v4('198.18.20.0/24') }),
    );
    rec.stateChange(peering, 'Established', 'Idle');
    const { result, routes } = await read(rec.take()!);
    expect(routes).toEqual(['+198.18.20.0/24 65001 65300', '+198.18.21.0/24 65001 65300', '-198.18.20.0/24']);
    expect(result).toMatchObject({ records: 4, updates: 2, skipped: 2 });
  });
});
