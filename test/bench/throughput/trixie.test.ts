import { describe, expect, it } from 'vitest';
import { withTrixieRoot } from '../../../bench/throughput/trixie.js';

const ALL = ['ours', 'bird', 'bird3', 'frr', 'frr10'] as const;
const failing = () => Promise.reject(new Error('debootstrap: no mirror\nmore'));

describe('withTrixieRoot', () => {
  it('keeps every implementation when the root is there', async () => {
    let asked = 0;
    const ensure = async () => {
      asked++;
    };
    expect(await withTrixieRoot(ALL, { ensure, ci: false, log: () => undefined })).toEqual(ALL);
    expect(asked).toBe(1);
  });

  it('does not ask for the root when nothing measured needs it', async () => {
    const only = ['ours', 'bird', 'frr'] as const;
    expect(await withTrixieRoot(only, { ensure: failing, ci: true, log: () => undefined })).toEqual(only);
  });

  it('outside CI, leaves BIRD 3.1 and FRR 10.3 out and says why', async () => {
    const lines: string[] = [];
    const got = await withTrixieRoot(ALL, { ensure: failing, ci: false, log: (l) => lines.push(l) });
    expect(got).toEqual(['ours', 'bird', 'frr']);
    expect(lines).toEqual([
      'skipping BIRD 3.1 and FRR 10.3: no trixie root (scripts/trixie-root.sh ensure failed: debootstrap: no mirror)',
    ]);
  });

  it('in CI, fails', async () => {
    await expect(withTrixieRoot(ALL, { ensure: failing, ci: true, log: () => undefined })).rejects.toThrow(
      'debootstrap',
    );
  });
});
