import { describe, expect, it } from 'vitest';
import { parseIpv4 } from '../../src/address/index.js';
import { Afi, AttrFlag } from '../../src/bgp/wire/constants.js';
import { PrefixList } from '../../src/bgp/wire/prefix-list.js';
import { encodeUpdate, type UpdateInput } from '../../src/bgp/wire/update.js';
import type { UpdateContext } from '../../src/bgp/wire/update-context.js';
import { UpdateDecoder } from '../../src/bgp/wire/update-decode.js';
import { Writer } from '../../src/bgp/wire/writer.js';
import { WellKnownCommunity } from '../../src/policy/index.js';
import { accepted, attrs, policy } from './helpers.js';

const CTX: UpdateContext = { as4: true, addPathIpv4: false, addPathIpv6: false, ebgp: true };

function roundTrip(u: UpdateInput, ctx = CTX) {
  const w = new Writer(512);
  encodeUpdate(w, u, ctx);
  return new UpdateDecoder(ctx).decode(w.buf, 0, w.pos);
}

describe('policies over attributes decoded from the wire', () => {
  it('evaluate the prefixes of a received UPDATE in place and re-encode what they set', () => {
    const unknown = [
      { type: 99, flags: AttrFlag.OPTIONAL | AttrFlag.TRANSITIVE, value: Uint8Array.of(7, 7) },
    ];
    const received = roundTrip({
      attrs: attrs({ path: [65001, 65002], communities: [0xfde80001], med: 40, unknown }),
      nlri: PrefixList.from(Afi.IPV4, [
        { addr: '198.18.1.0', len: 24 },
        { addr: '203.0.113.0', len: 24 },
        { addr: '198.18.2.0', len: 24 },
      ]),
    });
    const p = policy(
      [
        {
          match: { prefixList: 'LAB', asPath: 'VIA-65002' },
          set: {
            localPref: 250,
            med: '+5',
            communities: { add: ['NO_EXPORT'] },
            asPathPrepend: { as: 65001, count: 1 },
          },
          action: 'accept',
        },
      ],
      {
        prefixLists: [{ name: 'LAB', entries: [{ action: 'permit', prefix: '198.18.0.0/15', le: 24 }] }],
        asPathLists: [{ name: 'VIA-65002', entries: [{ action: 'permit', regex: '_65002$' }] }],
      },
    );
    const nlri = received.nlri;
    const results = [0, 1, 2].map((i) => p.evaluate(Afi.IPV4, nlri.words, i, nlri.lens[i], received.attrs!));
    expect(results.map((r) => r.accept)).toEqual([true, false, true]);
    expect(results[2]).toBe(results[0]);
    const out = accepted(results[0]);
    expect(out).not.toBe(received.attrs);

    // Towards an iBGP peer, so LOCAL_PREF travels (RFC 4271 section 5.1.5).
    const sent = roundTrip(
      { attrs: out, nlri: PrefixList.from(Afi.IPV4, [{ addr: '198.18.1.0', len: 24 }]) },
      { ...CTX, ebgp: false },
    );
    const again = sent.attrs!;
    expect(again.localPref).toBe(250);
    expect(again.med).toBe(45);
    expect(again.communities).toEqual([0xfde80001, WellKnownCommunity.NO_EXPORT]);
    expect(again.asPath).toEqual([{ type: 2, asns: [65001, 65001, 65002] }]);
    expect(again.nextHop).toBe(parseIpv4('198.18.0.2'));
    expect(again.unknown).toEqual(unknown);
    // The received attributes are as they were.
    expect(received.attrs!.localPref).toBeUndefined();
    expect(received.attrs!.communities).toEqual([0xfde80001]);
  });
});
