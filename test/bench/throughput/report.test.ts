import { describe, expect, it } from 'vitest';
import type { CellKind, Measurement } from '../../../bench/throughput/measure.js';
import {
  bestSender,
  formatTable,
  formatVerdicts,
  sizeLabel,
  summarizeShape,
  verdicts,
} from '../../../bench/throughput/report.js';

const MB = 1e6;
const SIZES = { small: 100_000, full: 1_000_000 };

function m(
  impl: string,
  cell: CellKind,
  run: number,
  wallSeconds: number | undefined,
  extra: Partial<Measurement> = {},
): Measurement {
  const expected = cell === 'cold' ? SIZES.small : SIZES.full;
  return {
    impl,
    shape: 'skewed',
    cell,
    run,
    expected,
    held: wallSeconds === undefined ? 1234 : expected,
    ...(wallSeconds !== undefined ? { wallSeconds } : { note: 'timeout at 1234 prefixes' }),
    idleRssBytes: 10 * MB,
    peakRssBytes: 100 * MB,
    series: [],
    session: { dropped: false, maxSilenceSeconds: 1, finalState: 'Established' },
    ...extra,
  };
}

/** Three runs of each cell; the medians are the middle figures. */
function runs(impl: string, cold: number[], recv: number[], send: number[], rssMb: number): Measurement[] {
  const rss = { peakRssBytes: rssMb * MB };
  return [
    ...cold.map((t, i) => m(impl, 'cold', i + 1, t)),
    ...recv.map((t, i) => m(impl, 'receive', i + 1, t, rss)),
    ...send.map((t, i) => m(impl, 'send', i + 1, t)),
  ];
}

const ORDER = ['ours', 'bird', 'bird3', 'frr', 'frr10'];
const passing = [
  ...runs('ours', [0.2, 0.1, 0.15], [0.7, 0.6, 0.8], [2.0, 1.5, 1.8], 120),
  ...runs('bird', [0.2, 0.16, 0.18], [1.2, 1.0, 1.1], [9, 8, 10], 121),
  ...runs('bird3', [0.3, 0.3, 0.3], [2.3, 2.2, 2.4], [7, 7, 7], 226),
  ...runs('frr', [0.8, 0.8, 0.8], [14, 14, 14], [6, 6.1, 5.9], 1054),
  ...runs('frr10', [0.9, 0.9, 0.9], [41, 42, 40], [12, 12, 12], 1138),
];

describe('throughput report', () => {
  it('takes medians per cell and the fastest FRR or BIRD as the send yardstick', () => {
    const s = summarizeShape('skewed', SIZES, ORDER, passing);
    expect(s.receive.ours?.wallSeconds).toBe(0.7);
    expect(s.cold.bird?.wallSeconds).toBe(0.18);
    expect(bestSender(s)).toEqual({ impl: 'frr', seconds: 6 });
    // Another shape's measurements are not this shape's.
    expect(summarizeShape('transit', SIZES, ORDER, passing).receive).toEqual({});
  });

  it('passes the issue targets when each ratio is within its bound', () => {
    const vs = verdicts(summarizeShape('skewed', SIZES, ORDER, passing));
    expect(vs.map((v) => v.pass)).toEqual([true, true, true, true, true]);
    // 0.7 / 1.1, 0.15 / 0.18, 1.8 / 6 (FRR 8.4, the fastest), 120 / 121
    expect(vs[0]!.measured).toContain('0.64 x');
    expect(vs[1]!.measured).toContain('0.83 x');
    expect(vs[2]!.measured).toContain('(FRR 8.4) = 0.30 x');
    expect(vs[3]!.measured).toBe('120 MB vs 121 MB = 0.99 x');
    expect(
      formatVerdicts(vs)
        .split('\n')
        .every((l) => l.startsWith('PASS')),
    ).toBe(true);
  });

  it('fails each target just past its bound and leaves undecided what was not measured', () => {
    const failing = [
      ...runs('ours', [0.19, 0.19, 0.19], [0.78, 0.78, 0.78], [1.9, 1.9, 1.9], 122),
      ...passing.filter((x) => x.impl !== 'ours'),
    ];
    const vs = verdicts(summarizeShape('skewed', SIZES, ORDER, failing));
    expect(vs.map((v) => v.pass)).toEqual([false, false, false, false, true]);
    const noBird = verdicts(summarizeShape('skewed', SIZES, ['ours'], passing));
    expect(noBird.slice(0, 4).map((v) => v.pass)).toEqual([undefined, undefined, undefined, undefined]);
    expect(formatVerdicts(noBird)).toMatch(/^n\/a +receive 1M/);
  });

  it('prints one row per implementation with ratios and footnotes for missing figures', () => {
    const ms = [
      ...passing.filter((x) => !(x.impl === 'frr10' && x.cell !== 'cold')),
      ...[1, 2, 3].map((r) => m('frr10', 'receive', r, undefined)),
      ...[1, 2, 3].map((r) =>
        m('frr10', 'send', r, undefined, { note: 'not loaded: timeout at 1234 prefixes' }),
      ),
      m('replayer', 'send', 1, 0.06),
    ];
    const text = formatTable(summarizeShape('skewed', SIZES, ORDER, ms), ORDER);
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/recv 100k s +\/BIRD 2 +recv 1M s/);
    const ours = lines.find((l) => l.startsWith('ovn-bgp-speaker'))!;
    expect(ours).toContain('0.83x'); // cold vs BIRD 2.0
    expect(ours).toContain('0.64x'); // receive vs BIRD 2.0
    expect(ours).toContain('0.99x'); // RSS vs BIRD 2.0
    expect(ours).toContain('0.30x'); // send vs FRR 8.4
    const frr10 = lines.find((l) => l.startsWith('FRR 10.3'))!;
    expect(frr10).toContain('timeout at 1234 [1]');
    expect(frr10).toContain('not loaded at 1234 [2]');
    expect(text).toContain('[1] FRR 10.3 receive: timeout at 1234 prefixes');
    expect(text).toContain('[2] FRR 10.3 send: not loaded: timeout at 1234 prefixes');
    expect(lines.find((l) => l.startsWith('pre-encoded writer'))).toContain('(baseline)');
  });

  it('marks a dropped session of ours as a failed verdict', () => {
    const dropped = passing.map((x) =>
      x.impl === 'ours' && x.cell === 'send' && x.run === 2
        ? {
            ...x,
            session: { dropped: true, reason: 'hold timer', maxSilenceSeconds: 9.2, finalState: 'Idle' },
          }
        : x,
    );
    const s = summarizeShape('skewed', SIZES, ORDER, dropped);
    expect(verdicts(s)[4]).toMatchObject({ pass: false, measured: 'a session of ours dropped' });
    expect(formatTable(s, ORDER)).toContain('send DROPPED');
  });

  it('takes the median of the runs the time budget reached and says how many it left out', () => {
    const skip = (impl: string, cell: CellKind) =>
      m(impl, cell, 3, undefined, { held: 0, note: 'skipped: time budget spent' });
    const ms = [
      ...passing.filter((x) => x.run < 3),
      skip('ours', 'receive'),
      skip('bird', 'receive'),
      ...ORDER.map((i) => skip(i, 'send')),
    ];
    const s = summarizeShape('skewed', SIZES, ORDER, ms);
    expect(s.receive.ours).toMatchObject({ runs: 2, skipped: 1 });
    expect(s.receive.ours?.wallSeconds).toBeCloseTo(0.65);
    expect(s.cold.ours).toMatchObject({ runs: 2, skipped: 0 });
    const text = formatTable(s, ORDER);
    expect(text).toContain('[1] ovn-bgp-speaker receive: median of 2 run(s), 1 skipped (time budget)');
    // Nothing measured at all: the cell says why.
    const none = summarizeShape('skewed', SIZES, ['ours'], [skip('ours', 'send')]);
    expect(none.send.ours).toMatchObject({ runs: 0, skipped: 1, note: 'skipped: time budget spent' });
    expect(formatTable(none, ['ours'])).toContain('skipped [1]');
  });

  it('names sizes as the tables do', () => {
    expect(sizeLabel(1_000_000)).toBe('1M');
    expect(sizeLabel(100_000)).toBe('100k');
    expect(sizeLabel(2_500_000)).toBe('2.5M');
    expect(sizeLabel(12_345)).toBe('12345');
  });
});
