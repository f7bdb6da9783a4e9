import { describe, expect, it } from 'vitest';
import { runSoak } from '../../bench/soak/soak.js';

// A short soak (`npm run soak` runs it for minutes): GoBGP flaps routes and OVN floating IPs
// come and go while the speaker runs; afterwards its RIB, its kernel table and GoBGP's view
// are exactly what the churn left, and the session never dropped.

const IS_ROOT = process.getuid?.() === 0;
const SOAK_TIMEOUT_MS = 300_000;

describe.skipIf(!IS_ROOT)('soak, short', () => {
  it(
    'after 30 s of route and floating-IP churn every view is exact and the session never dropped',
    async () => {
      const r = await runSoak({ seconds: 30, flapsPerSecond: 10, fipChangesPerSecond: 2, warmupSeconds: 10 });
      expect(r.flaps).toBeGreaterThan(0);
      expect(r.fipChanges).toBeGreaterThan(0);
      for (const c of r.checks) expect(`${c.what}: ${c.ok ? 'ok' : c.detail}`).toBe(`${c.what}: ok`);
      expect(r.speakerAlive).toBe(true);
      expect(r.establishedTransitions).toBe(1);
      expect(r.longestSilence).toBeLessThan(r.holdTime);
    },
    SOAK_TIMEOUT_MS,
  );
});
