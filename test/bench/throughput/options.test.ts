import { describe, expect, it } from 'vitest';
import { DEFAULT_IMPLS } from '../../../bench/throughput/bench-lab.js';
import { type Options, parseOptions, UsageError } from '../../../bench/throughput/options.js';

const parse = (...argv: string[]) => parseOptions(argv) as Options;

describe('throughput options', () => {
  it('measures the issue matrix by default', () => {
    const o = parse();
    expect(o.prefixes).toBe(1_000_000);
    expect(o.small).toBe(100_000);
    expect(o.runs).toBe(3);
    expect(o.shapes).toEqual(['skewed', 'transit']);
    expect(o.only).toEqual(DEFAULT_IMPLS);
    expect(o.only).toEqual(['ours', 'bird', 'bird3', 'frr', 'frr10']);
    expect(o.send).toBe(true);
  });

  it('takes a smaller matrix, in table order whatever the order given', () => {
    const o = parse(
      '--prefixes',
      '100000',
      '--runs',
      '1',
      '--only',
      'frr10,ours,gobgp',
      '--shapes',
      'transit',
    );
    expect(o.only).toEqual(['ours', 'frr10', 'gobgp']);
    expect(o.shapes).toEqual(['transit']);
    // The cold-start table is at most a tenth of the full one unless given.
    expect(o.small).toBe(10_000);
    expect(parse('--prefixes', '100000', '--small', '0').small).toBe(0);
    expect(parse('--timeout', '30', '--budget', '5')).toMatchObject({ timeoutMs: 30_000, budgetMs: 300_000 });
  });

  it('refuses what it cannot run', () => {
    for (const argv of [
      ['--only', 'ours,quagga'],
      ['--shapes', 'flat'],
      ['--runs', '0'],
      ['--prefixes', '1.5'],
      ['--prefixes', '1000', '--small', '1000'],
      ['--out'],
      ['--fast'],
    ])
      expect(() => parseOptions(argv), argv.join(' ')).toThrow(UsageError);
  });

  it('answers --help with the usage', () => {
    expect(parseOptions(['--help'])).toBe('help');
  });
});
