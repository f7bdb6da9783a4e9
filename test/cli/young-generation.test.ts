import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const MODULE = fileURLToPath(new URL('../../src/cli/young-generation.ts', import.meta.url));

/**
 * In a fresh process (the flag is process-wide): allocates some 100 MiB of short-lived objects,
 * a tenth of them kept, and returns by how many MiB the young generation grew meanwhile.
 */
function youngGenerationGrowth(keepSmall: boolean): number {
  const script = `
    import { getHeapSpaceStatistics } from 'node:v8';
    ${keepSmall ? `const { keepYoungGenerationSmall } = await import(${JSON.stringify(MODULE)}); keepYoungGenerationSmall();` : ''}
    const young = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
    const before = young();
    const kept = [];
    for (let i = 0; i < 2e6; i++) { const o = { i, list: [i, i] }; if (i % 10 === 0) kept.push(o); }
    console.log((young() - before) / 2 ** 20, kept.length);
  `;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  return Number(out.split(' ')[0]);
}

describe('keepYoungGenerationSmall', () => {
  it('keeps the young generation at its size through a burst, where it grows by default', () => {
    expect(youngGenerationGrowth(false)).toBeGreaterThanOrEqual(8);
    expect(youngGenerationGrowth(true)).toBe(0);
  });
});
