import { describe, expect, it } from 'vitest';
import { caseFor, plainOpen } from '../../bench/fuzz/cases.js';
import { loadStreams, type Stream } from '../../bench/fuzz/corpus.js';
import { updateCase } from '../../bench/fuzz/mutate-update.js';
import { permits } from '../../bench/fuzz/oracle.js';
import { Prng } from '../../bench/fuzz/prng.js';
import { BgpError, decodeMessage, type MessageContext } from '../../src/bgp/wire/index.js';

// The fuzzer's exact oracles checked against the codec offline: where a mutator says the RFCs
// leave one outcome (treat-as-withdraw, a route kept, a given NOTIFICATION), decoding the
// mutated UPDATE in its stream's context must give it. The live run (test/interop/fuzz.test.ts)
// checks the same through the running speaker.

const streams = loadStreams();
const contextOf = (s: Stream): MessageContext => ({
  update: { as4: s.as4, addPathIpv4: s.addPath.v4, addPathIpv6: s.addPath.v6, ebgp: true },
  maxLength: 4096,
  enhancedRouteRefresh: false,
});
const SEEDS = 40;

type Verdict = { action: string } | { code: number; subcode: number };
function verdict(bytes: Buffer, s: Stream): Verdict {
  try {
    const m = decodeMessage(bytes, contextOf(s));
    if (m.type !== 'update') throw new Error(`decoded as ${m.type}`);
    return { action: m.action };
  } catch (e) {
    if (e instanceof BgpError) return { code: e.code, subcode: e.subcode };
    throw e;
  }
}

const EXACT = [
  'replay',
  'attr-flags-conflict',
  'attr-duplicate',
  'mp-duplicate',
  'attr-unknown',
  'attr-missing',
  'attr-bad-length',
  'origin-value',
  'as-path-overrun',
  'prefix-too-long',
  'nlri-overrun',
  'withdrawn-length-lie',
  'attrs-length-long',
];

describe('fuzz oracles agree with the codec', () => {
  it('finds the eBGP streams of the captures, each with UPDATEs', () => {
    expect(streams.length).toBeGreaterThanOrEqual(6);
    for (const s of streams) expect(s.updates.length).toBeGreaterThan(0);
  });

  for (const name of EXACT) {
    it(name, () => {
      const wrong: string[] = [];
      let tried = 0;
      for (const s of streams) {
        for (let seed = 1; seed <= SEEDS; seed++) {
          const c = updateCase(s, new Prng(seed), name);
          if (!c) continue;
          tried++;
          const v = verdict(c.bytes, s);
          const e = c.expect;
          const ok =
            'code' in v
              ? permits(e, v.code, v.subcode)
              : e.absent
                ? v.action === 'treat-as-withdraw'
                : e.present
                  ? v.action !== 'treat-as-withdraw'
                  : e.up;
          if (!ok) wrong.push(`${s.name} seed ${seed}: ${JSON.stringify(v)} ${c.bytes.toString('hex')}`);
        }
      }
      expect(tried).toBeGreaterThan(0);
      expect(wrong).toEqual([]);
    });
  }

  it('a case is the same bytes every time its seed is given', () => {
    const s = streams[0]!;
    const plain = plainOpen(s, '198.18.250.10', 90);
    for (let seed = 1; seed <= 50; seed++) {
      const a = caseFor(seed, s, { openShare: 0.3, plain });
      const b = caseFor(seed, s, { openShare: 0.3, plain });
      expect(b?.bytes.toString('hex')).toBe(a?.bytes.toString('hex'));
      expect(b?.mutator).toBe(a?.mutator);
    }
  });
});
