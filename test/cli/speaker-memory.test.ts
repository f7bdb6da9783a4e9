import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const MODULE = fileURLToPath(new URL('../../src/cli/speaker-memory.ts', import.meta.url));
const GROW = fileURLToPath(new URL('../../src/rib/grow.ts', import.meta.url));

/** Runs a module script in a fresh process (the flags are process-wide) and returns its output. */
function inFreshProcess(tuned: boolean, body: string): string {
  const script = `
    ${tuned ? `const { tuneSpeakerMemory } = await import(${JSON.stringify(MODULE)}); tuneSpeakerMemory();` : ''}
    ${body}
  `;
  return execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
}

/** Allocates some 100 MiB of short-lived objects, a tenth of them kept: by how many MiB the young generation grew. */
function youngGenerationGrowth(tuned: boolean): number {
  const out = inFreshProcess(
    tuned,
    `
    import { getHeapSpaceStatistics } from 'node:v8';
    const young = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
    const before = young();
    const kept = [];
    for (let i = 0; i < 2e6; i++) { const o = { i, list: [i, i] }; if (i % 10 === 0) kept.push(o); }
    console.log((young() - before) / 2 ** 20, kept.length);
  `,
  );
  return Number(out.split(' ')[0]);
}

/**
 * Grows a column by doubling from 256 KiB to 16 MiB (the old copies: 16 MiB less 256 KiB, below
 * what makes V8 collect for outside memory): the MiB of ArrayBuffers still held a second later.
 */
function arrayBuffersAfterGrowing(tuned: boolean): number {
  const out = inFreshProcess(
    tuned,
    `
    const { grown } = await import(${JSON.stringify(GROW)});
    let column = new Int32Array(1 << 16).fill(1);
    while (column.length < 1 << 22) column = grown(column, column.length * 2).fill(1);
    const held = () => process.memoryUsage().arrayBuffers / 2 ** 20;
    // V8 frees collected buffers on a helper thread: give it up to a second, on a busy host.
    for (let i = 0; i < 50 && held() > 17; i++) await new Promise((r) => setTimeout(r, 20));
    console.log(held(), column.length);
  `,
  );
  return Number(out.split(' ')[0]);
}

/**
 * Fills malloc's heap with 96 MiB of 64 KiB buffers, pins its top with one more, lets the rest
 * go and collects them, then (when `release`) calls releaseFreedMemory: the MiB of RSS given
 * back a second later.
 */
function rssGivenBack(release: boolean): number {
  const out = inFreshProcess(
    true,
    `
    const { releaseFreedMemory } = await import(${JSON.stringify(MODULE)});
    const { runInNewContext } = await import('node:vm');
    const { readFileSync } = await import('node:fs');
    const rss = () => Number(/VmRSS:\\s+(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]) / 1024;
    let filled = Array.from({ length: 1536 }, () => new Uint8Array(64 << 10).fill(1));
    const pin = new Uint8Array(64 << 10).fill(1);
    const full = rss();
    filled = null;
    if (${release}) releaseFreedMemory();
    else runInNewContext('gc')();
    await new Promise((r) => setTimeout(r, 1000));
    console.log(full - rss(), pin.length);
  `,
  );
  return Number(out.split(' ')[0]);
}

describe('tuneSpeakerMemory', () => {
  it('keeps the young generation at its size through a burst, where it grows by default', () => {
    expect(youngGenerationGrowth(false)).toBeGreaterThanOrEqual(8);
    expect(youngGenerationGrowth(true)).toBe(0);
  });

  it("frees a growing column's old copies by the end of the turn, where they stay by default", () => {
    expect(arrayBuffersAfterGrowing(false)).toBeGreaterThan(31);
    expect(arrayBuffersAfterGrowing(true)).toBeLessThan(17);
  });

  it('gives back the heap pages that start-up freed, which malloc keeps otherwise', () => {
    expect(rssGivenBack(false)).toBeLessThan(16);
    expect(rssGivenBack(true)).toBeGreaterThan(64);
  });
});
