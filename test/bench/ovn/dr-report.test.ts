import { describe, expect, it } from 'vitest';
import {
  type BatchSample,
  comparisons,
  type SeatFigures,
  type SingleSample,
  singleFigures,
  targets,
} from '../../../bench/ovn/dr-report.js';

const single = (change: 'add' | 'del', tableMs: number, fabricMs: number): SingleSample => ({
  change,
  northdMs: 1,
  northdOwnMs: 1,
  tableMs,
  fabricMs,
  settledMs: fabricMs + 50,
  wireMs: tableMs + 2,
});
const batch = (change: 'add' | 'del', tableMs: number, fabricMs: number): BatchSample => ({
  change,
  northdMs: 1,
  northdOwnMs: 1,
  tableMs,
  fabricMs,
  tableFirstMs: tableMs / 2,
  fabricFirstMs: tableMs / 2 + 1,
  wireFirstMs: tableMs / 2 + 1,
  wireMs: tableMs + 100,
  cpu: {},
  tableFromDumps: false,
});
const seat = (kind: SeatFigures['kind'], adds: number[], batchAdd?: number): SeatFigures => ({
  kind,
  singles: adds.flatMap((ms) => [single('add', 5, ms), single('del', 5, ms + 1)]),
  batches: batchAdd === undefined ? [] : [batch('add', 1000, batchAdd), batch('del', 500, 900)],
  notes: [],
});

describe('dr-latency report', () => {
  it("splits each sample into OVN's share (to the table) and the seat's (table to fabric)", () => {
    const f = singleFigures([single('add', 4, 10), single('add', 6, 70)]);
    expect(f.table).toEqual([4, 6]);
    expect(f.seat).toEqual([6, 64]);
    expect(f.settled).toEqual([60, 120]);
    // The seat's share splits into its own (table -> UPDATE out) and the fabric's.
    expect(f.out).toEqual([2, 2]);
    expect(f.fabricSide).toEqual([4, 62]);
  });

  it('leaves samples the capture missed out of the wire figures, not the others', () => {
    const f = singleFigures([single('add', 4, 10), { ...single('add', 6, 70), wireMs: Number.NaN }]);
    expect(f.out).toEqual([2]);
    expect(f.fabricSide).toEqual([4]);
    expect(f.fabric).toEqual([10, 70]);
  });

  it('compares the batch on its seat share as on the whole', () => {
    const rows = new Map(comparisons(10).map(([what, of]) => [what, of(seat('ours', [10], 1400))]));
    expect(rows.get('10 added, commit->fabric')).toBe(1400);
    expect(rows.get('10 added, table->fabric')).toBe(400);
    expect(rows.get('10 removed, table->all gone')).toBe(400);
    expect(rows.get('10 added, table->last UPDATE out')).toBe(100);
    expect(rows.get('10 removed, table->last withdrawal out')).toBe(100);
    expect(rows.get('FIP added, table->UPDATE out p99')).toBe(2);
    expect(rows.get('FIP removed, commit->gone p50')).toBe(61);
  });

  it('meets the single-change target only when both p50 and p99 are lower', () => {
    const frr = seat('frr', [60, 60, 60, 61], 2000);
    expect(targets(seat('ours', [10, 10, 10, 11], 1000), frr)).toEqual([true, true]);
    // A faster median with one slower sample (p99 of 4 samples is the largest) does not count.
    expect(targets(seat('ours', [10, 10, 10, 90], 3000), frr)).toEqual([false, false]);
  });

  it('leaves the batch target open when a seat ran no batch', () => {
    expect(targets(seat('ours', [10]), seat('frr', [60], 2000))).toEqual([true, undefined]);
  });
});
