import { describe, expect, it } from 'vitest';
import { runFuzz } from '../../bench/fuzz/fuzz.js';

// A short live fuzz (`npm run fuzz` runs it for minutes): fuzz peers send mutated captured
// UPDATE streams and OPENs to the running speaker over TCP; every reaction must be one the
// RFCs permit for that case, the process must live and the good peer (GoBGP) never drop.

const IS_ROOT = process.getuid?.() === 0;
const FUZZ_TIMEOUT_MS = 240_000;

describe.skipIf(!IS_ROOT)('live fuzz, short', () => {
  it(
    'for 25 s of mutated UPDATEs and OPENs every reaction is permitted, the speaker lives and the good peer stays up',
    async () => {
      const r = await runFuzz({ seconds: 25, seed: 4271 });
      expect(r.cases).toBeGreaterThan(50);
      // Cases of both kinds ran, and they met more than one kind of reaction.
      expect(Object.keys(r.byMutator).some((k) => k.startsWith('open '))).toBe(true);
      expect(Object.keys(r.byMutator).some((k) => k.startsWith('update '))).toBe(true);
      expect(r.outcomes.up).toBeGreaterThan(0);
      expect(Object.keys(r.outcomes).filter((k) => k.includes('/')).length).toBeGreaterThan(3);
      expect(r.violations.map((v) => `${v.kind} ${v.mutator} (${v.lane}:${v.seed}): ${v.detail}`)).toEqual(
        [],
      );
      expect(r.setupFailures).toEqual([]);
      expect(r.speakerAlive).toBe(true);
      expect(r.goodPeerTransitions).toBe(1);
      expect(r.goodPeerDrops).toBe(0);
      expect(r.goodPeerRoutes.have).toBe(r.goodPeerRoutes.want);
      expect(r.driverExit).toBe(0);
      expect(r.ok).toBe(true);
    },
    FUZZ_TIMEOUT_MS,
  );
});
