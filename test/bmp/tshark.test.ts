/*
 * A second opinion on the codec: Wireshark's BMP dissector (tshark) reads a capture of our
 * messages, one per TCP segment towards port 11019, and must find every field where we put it
 * and nothing malformed.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeMessageBytes } from '../../src/bgp/wire/index.js';
import {
  dumpSession,
  encodeBmpBytes,
  initiationTlvs,
  RouteMessages,
  terminationTlvs,
} from '../../src/bmp/index.js';
import { attrs, FakeSession } from './support.js';

const TSHARK = '/usr/bin/tshark';
const NOW = 1_800_000_123_000;

/** A classic pcap of Ethernet/IPv4/TCP segments 198.18.0.1:40000 -> 198.18.0.9:11019, one payload each. */
function pcap(payloads: readonly Uint8Array[]): Buffer {
  const parts: Buffer[] = [];
  const head = Buffer.alloc(24);
  head.writeUInt32LE(0xa1b2c3d4, 0);
  head.writeUInt16LE(2, 4);
  head.writeUInt16LE(4, 6);
  head.writeUInt32LE(65535, 16);
  head.writeUInt32LE(1, 20); // Ethernet
  parts.push(head);
  let seq = 1000;
  payloads.forEach((p, i) => {
    const frame = Buffer.alloc(14 + 20 + 20 + p.length);
    frame.writeUInt16BE(0x0800, 12);
    const ip = 14;
    frame[ip] = 0x45;
    frame.writeUInt16BE(20 + 20 + p.length, ip + 2);
    frame.writeUInt16BE(0x4000, ip + 6);
    frame[ip + 8] = 64;
    frame[ip + 9] = 6;
    Buffer.from([198, 18, 0, 1]).copy(frame, ip + 12);
    Buffer.from([198, 18, 0, 9]).copy(frame, ip + 16);
    let sum = 0;
    for (let k = 0; k < 20; k += 2) sum += frame.readUInt16BE(ip + k);
    while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
    frame.writeUInt16BE(~sum & 0xffff, ip + 10);
    const tcp = ip + 20;
    frame.writeUInt16BE(40000, tcp);
    frame.writeUInt16BE(11019, tcp + 2);
    frame.writeUInt32BE(seq, tcp + 4);
    frame[tcp + 12] = 0x50;
    frame[tcp + 13] = 0x18; // PSH, ACK
    frame.writeUInt16BE(65535, tcp + 14);
    Buffer.from(p).copy(frame, tcp + 20);
    seq += p.length;
    const rec = Buffer.alloc(16);
    rec.writeUInt32LE(1_800_000_000 + i, 0);
    rec.writeUInt32LE(frame.length, 8);
    rec.writeUInt32LE(frame.length, 12);
    parts.push(rec, frame);
  });
  return Buffer.concat(parts);
}

const FIELDS = [
  'bmp.type',
  'bmp.peer.ip.addr',
  'bmp.peer.asn',
  'bmp.peer.flags.post_policy',
  'bmp.peer.up.port.local',
  'bmp.peer.down.reason',
  'bmp.stats.data.routes_adj_rib_in',
  'bmp.term.reason',
  'bgp.nlri_prefix',
  'bgp.update.path_attribute.multi_exit_disc',
  '_ws.malformed',
] as const;

// CI installs tshark (scripts/deps.sh): there a missing one fails instead of skipping.
describe.skipIf(!existsSync(TSHARK) && process.env.CI !== 'true')('tshark reads our BMP', () => {
  it('every message type, with its fields where Wireshark expects them', () => {
    const s = new FakeSession();
    s.pre.set('198.19.1.0/24', attrs());
    s.post.set('198.19.1.0/24', attrs(7));
    const m = new RouteMessages();
    const dump = [...dumpSession(m, s, ['pre', 'post'], () => NOW)].flat();
    const notification = encodeMessageBytes({
      type: 'notification',
      code: 6,
      subcode: 2,
      data: new Uint8Array(0),
    });
    const messages = [
      encodeBmpBytes({ type: 'initiation', info: initiationTlvs('spk', 'ovn-bgp-speaker') }),
      ...dump,
      m.stats(s.peer, s.stats(), NOW),
      m.peerDown(s.peer, { notification: { direction: 'sent', bytes: notification } }, NOW),
      encodeBmpBytes({ type: 'termination', info: terminationTlvs() }),
    ];
    const dir = mkdtempSync(join(tmpdir(), 'bmp-tshark-'));
    try {
      const file = join(dir, 'bmp.pcap');
      writeFileSync(file, pcap(messages));
      const out = execFileSync(
        TSHARK,
        [
          '-r',
          file,
          '-d',
          'tcp.port==11019,bmp',
          '-T',
          'fields',
          '-E',
          'separator=|',
          ...FIELDS.flatMap((f) => ['-e', f]),
        ],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
      );
      const rows = out
        .trimEnd()
        .split('\n')
        .map((line) => Object.fromEntries(line.split('|').map((v, i) => [FIELDS[i], v])));
      expect(rows.map((r) => r['bmp.type'])).toEqual(['4', '3', '0', '0', '0', '0', '1', '2', '5']);
      expect(rows.map((r) => r['_ws.malformed'])).toEqual(rows.map(() => ''));
      const [, up, pre, preEor, post] = rows;
      expect(up).toMatchObject({
        'bmp.peer.ip.addr': '198.18.0.2',
        'bmp.peer.asn': '65001',
        'bmp.peer.up.port.local': '40000',
      });
      expect(pre).toMatchObject({ 'bmp.peer.flags.post_policy': '0', 'bgp.nlri_prefix': '198.19.1.0' });
      expect(preEor?.['bgp.nlri_prefix']).toBe('');
      expect(post).toMatchObject({
        'bmp.peer.flags.post_policy': '1',
        'bgp.update.path_attribute.multi_exit_disc': '7',
      });
      expect(rows[6]?.['bmp.stats.data.routes_adj_rib_in']).toBe('1');
      expect(rows[7]?.['bmp.peer.down.reason']).toBe('1');
      expect(rows[8]?.['bmp.term.reason']).toBe('0');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
