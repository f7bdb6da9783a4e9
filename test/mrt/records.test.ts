import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Writer } from '../../src/bgp/wire/index.js';
import {
  Bgp4mpRecorder,
  decodeBgp4mp,
  decodePeerIndexTable,
  decodeRib,
  encodePeerIndexTable,
  finishRib,
  MrtError,
  MrtSplitter,
  MrtType,
  ribEntry,
  splitRecords,
  startRib,
  TableDumpV2Subtype,
} from '../../src/mrt/index.js';

const hex = (s: string) => Uint8Array.from(Buffer.from(s.replace(/\s+|#[^\n]*/g, ''), 'hex'));

/** A PEER_INDEX_TABLE with one IPv4 and one IPv6 peer, annotated per field (RFC 6396 4.3.1). */
const PEER_INDEX = hex(`
  6553f100          # timestamp 1700000000
  000d 0001         # TABLE_DUMP_V2, PEER_INDEX_TABLE
  0000002e          # length 46
  c6120001          # collector BGP ID 198.18.0.1
  0000              # view name length 0
  0002              # 2 peers
  02 c6120101 c6120002 0000fde9                       # AS4, IPv4: 198.18.1.1, 198.18.0.2, AS 65001
  03 c6120102 20010db8000000000000000000000003 fa56ea00 # AS4, IPv6: 2001:db8::3, AS 4200000000
`);

/** RIB_IPV4_UNICAST 198.18.10.0/24, one entry: ORIGIN IGP, AS_PATH 65001, NEXT_HOP 198.18.0.2. */
const RIB_V4 = hex(`
  6553f100 000d 0002 00000026
  00000007          # sequence 7
  18 c6120a         # 198.18.10.0/24
  0001              # one entry
  0000 6553f100     # peer 0, originated 1700000000
  0014              # 20 bytes of attributes
  40010100          # ORIGIN IGP
  4002060201 0000fde9 # AS_PATH AS_SEQUENCE [65001] (4-octet)
  400304c6120002    # NEXT_HOP 198.18.0.2
`);

describe('MRT records (RFC 6396)', () => {
  it('decodes the annotated PEER_INDEX_TABLE and writes it back byte for byte', () => {
    const [record] = splitRecords(PEER_INDEX);
    const table = decodePeerIndexTable(record);
    expect(table.collectorId).toBe(0xc6120001);
    expect(table.peers.map((p) => [p.bgpId, Buffer.from(p.address).toString('hex'), p.asn])).toEqual([
      [0xc6120101, 'c6120002', 65001],
      [0xc6120102, '20010db8000000000000000000000003', 4200000000],
    ]);
    const w = new Writer();
    encodePeerIndexTable(w, record.timestamp, table);
    expect(Buffer.from(w.view()).toString('hex')).toBe(Buffer.from(PEER_INDEX).toString('hex'));
  });

  it('decodes the annotated RIB record and writes it back byte for byte', () => {
    const [record] = splitRecords(RIB_V4);
    expect(record.type).toBe(MrtType.TABLE_DUMP_V2);
    const rib = decodeRib(record);
    expect(rib).toMatchObject({ sequence: 7, afi: 1, addPath: false, prefixLength: 24 });
    expect([...rib.prefix]).toEqual([198, 18, 10]);
    const w = new Writer();
    const at = startRib(w, record.timestamp, 1, false, 7, [0xc6120a00], 0, 24);
    const e = rib.entries[0];
    ribEntry(w, false, e.peerIndex, e.originatedTime, 0, e.attributes);
    finishRib(w, at, 1, 24);
    expect(Buffer.from(w.view()).toString('hex')).toBe(Buffer.from(RIB_V4).toString('hex'));
  });

  it('frames records whole, split at every byte, and several to a chunk', () => {
    const both = new Uint8Array([...PEER_INDEX, ...RIB_V4]);
    for (let cut = 0; cut <= both.length; cut++) {
      const s = new MrtSplitter();
      const got: number[] = [];
      s.push(both.subarray(0, cut));
      for (let r = s.next(); r; r = s.next()) got.push(r.subtype);
      s.push(both.subarray(cut));
      for (let r = s.next(); r; r = s.next()) got.push(r.subtype);
      s.end();
      expect(got).toEqual([TableDumpV2Subtype.PEER_INDEX_TABLE, TableDumpV2Subtype.RIB_IPV4_UNICAST]);
    }
  });

  it('tells a truncated file (incomplete) from a malformed record', () => {
    const s = new MrtSplitter();
    s.push(RIB_V4.subarray(0, RIB_V4.length - 1));
    expect(s.next()).toBeNull();
    expect(() => s.end()).toThrow(expect.objectContaining({ kind: 'truncated' }));

    const long = RIB_V4.slice();
    long[8] = 0x7f; // a length of 2 GiB
    expect(() => splitRecords(long)).toThrow(expect.objectContaining({ kind: 'malformed' }));

    const overrun = RIB_V4.slice();
    overrun[overrun.length - 21] = 0x15; // attribute length one past the record
    const [record] = splitRecords(overrun);
    expect(() => decodeRib(record)).toThrow(MrtError);
    expect(() => decodeRib(record)).toThrow(/byte 0: RIB record runs past/);

    const tooLong = RIB_V4.slice();
    tooLong[16] = 33; // a /33
    expect(() => decodeRib(splitRecords(tooLong)[0])).toThrow(/prefix length 33/);
  });

  const peer = fc.record({
    bgpId: fc.nat({ max: 0xffffffff }),
    address: fc.oneof(
      fc.uint8Array({ minLength: 4, maxLength: 4 }),
      fc.uint8Array({ minLength: 16, maxLength: 16 }),
    ),
    asn: fc.nat({ max: 0xffffffff }),
  });

  it('property: a PEER_INDEX_TABLE decodes to what was encoded', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 0xffffffff }),
        fc.string({ maxLength: 20 }),
        fc.array(peer, { maxLength: 20 }),
        (id, name, peers) => {
          const w = new Writer();
          encodePeerIndexTable(w, 1, { collectorId: id, viewName: name, peers });
          const back = decodePeerIndexTable(splitRecords(w.view())[0]);
          expect(back).toEqual({ collectorId: id, viewName: name, peers });
        },
      ),
    );
  });

  it('property: a RIB record decodes to what was encoded, with and without path ids (RFC 8050)', () => {
    const entry = fc.record({
      peerIndex: fc.nat({ max: 0xffff }),
      originatedTime: fc.nat({ max: 0xffffffff }),
      pathId: fc.nat({ max: 0xffffffff }),
      attributes: fc.uint8Array({ maxLength: 300 }),
    });
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.boolean(),
        fc.array(fc.nat({ max: 0xffffffff }), { minLength: 4, maxLength: 4 }),
        fc.nat({ max: 128 }),
        fc.array(entry, { maxLength: 8 }),
        fc.nat({ max: 0xffffffff }),
        (v6, addPath, words, rawLen, entries, seq) => {
          const len = v6 ? rawLen : rawLen % 33;
          const w = new Writer();
          const at = startRib(w, 5, v6 ? 2 : 1, addPath, seq, words, 0, len);
          for (const e of entries)
            ribEntry(w, addPath, e.peerIndex, e.originatedTime, e.pathId, e.attributes);
          finishRib(w, at, entries.length, len);
          const back = decodeRib(splitRecords(w.view())[0]);
          expect(back.afi).toBe(v6 ? 2 : 1);
          expect(back.addPath).toBe(addPath);
          expect(back.sequence).toBe(seq);
          expect(back.prefixLength).toBe(len);
          const bytes = (len + 7) >>> 3;
          for (let i = 0; i < bytes; i++)
            expect(back.prefix[i]).toBe((words[i >>> 2] >>> (24 - 8 * (i & 3))) & 0xff);
          expect(back.entries).toEqual(entries.map((e) => ({ ...e, pathId: addPath ? e.pathId : 0 })));
        },
      ),
    );
  });

  it('property: recorded messages decode to their peering, direction and bytes, one record per message', () => {
    const peering = fc.boolean().chain((v6) =>
      fc.record({
        peerAs: fc.nat({ max: 0xffffffff }),
        localAs: fc.nat({ max: 0xffffffff }),
        interfaceIndex: fc.constant(0),
        peerAddress: fc.uint8Array({ minLength: v6 ? 16 : 4, maxLength: v6 ? 16 : 4 }),
        localAddress: fc.uint8Array({ minLength: v6 ? 16 : 4, maxLength: v6 ? 16 : 4 }),
      }),
    );
    const message = fc.uint8Array({ maxLength: 200 }).map((body) => {
      const m = new Uint8Array(19 + body.length).fill(0xff, 0, 16);
      m[16] = m.length >> 8;
      m[17] = m.length & 0xff;
      m[18] = 2;
      m.set(body, 19);
      return m;
    });
    fc.assert(
      fc.property(
        peering,
        fc.array(message, { minLength: 1, maxLength: 5 }),
        fc.boolean(),
        (p, messages, sent) => {
          const rec = new Bgp4mpRecorder(() => 42);
          rec.messages(sent ? 'sent' : 'received', p, Buffer.concat(messages));
          rec.stateChange(p, 'OpenConfirm', 'Established');
          const records = splitRecords(rec.take()!).map(decodeBgp4mp);
          expect(records).toHaveLength(messages.length + 1);
          messages.forEach((m, i) => {
            expect(records[i]).toEqual({ kind: 'message', as4: true, local: sent, ...p, message: m });
          });
          expect(records.at(-1)).toEqual({ kind: 'state', as4: true, ...p, oldState: 5, newState: 6 });
          expect(rec.take()).toBeNull();
        },
      ),
    );
  });
});
