import { describe, expect, it } from 'vitest';
import {
  buildTable,
  countStream,
  encodeTable,
  messageAlignedCuts,
  tableSize,
} from '../../../bench/throughput/table-stream.js';
import { Afi } from '../../../src/bgp/wire/constants.js';
import { checkHeader } from '../../../src/bgp/wire/header.js';
import { decodeMessage } from '../../../src/bgp/wire/message.js';

const A = { ipv4: '198.18.1.1', ipv6: '2001:db8:1::1' };
const B = { ipv4: '198.18.2.1', ipv6: '2001:db8:2::1' };

describe.each(['skewed', 'transit'] as const)('the %s stream', (shape) => {
  const spec = { shape, ipv4: 20_000, ipv6: 2_000, localAs: 64600 };
  const parts = buildTable(spec);
  const stream = encodeTable(parts, A);

  it('announces every prefix of the table once, in one UPDATE per attribute set or more', () => {
    const c = countStream(stream);
    expect(c.announced).toBe(tableSize(spec));
    expect(c.withdrawn).toBe(0);
    const sets = parts.reduce((n, p) => n + p.groups.length, 0);
    expect(c.messages).toBeGreaterThanOrEqual(sets);
    expect(parts.map((p) => p.afi)).toEqual([Afi.IPV4, Afi.IPV6]);
  });

  it('differs between links only in the next hop', () => {
    const other = encodeTable(parts, B);
    expect(other.length).toBe(stream.length);
    const first = (s: Uint8Array) => decodeMessage(s.subarray(0, checkHeader(s, 0)));
    const a = first(stream) as { attrs: { nextHop?: number } };
    const b = first(other) as { attrs: { nextHop?: number } };
    expect(a.attrs.nextHop).toBe(0xc6120101);
    expect(b.attrs.nextHop).toBe(0xc6120201);
    let differing = 0;
    for (let i = 0; i < stream.length; i++) if (stream[i] !== other[i]) differing++;
    // One octet of each IPv4 next hop, one of each IPv6 next hop: as many as UPDATEs at most.
    expect(differing).toBeGreaterThan(0);
    expect(differing).toBeLessThanOrEqual(countStream(stream).messages);
  });

  it('is cut into chunks of whole messages', () => {
    const cuts = messageAlignedCuts(stream, 64 * 1024);
    expect(cuts[0]).toBe(0);
    expect(cuts.at(-1)).toBe(stream.length);
    for (const at of cuts.slice(1, -1)) expect(checkHeader(stream, at)).toBeGreaterThan(0);
  });
});
