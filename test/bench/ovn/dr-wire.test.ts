import { describe, expect, it } from 'vitest';
import type { WireLog } from '../../../bench/ovn/capture.js';
import { wireBatch, wireSingle } from '../../../bench/ovn/dr-wire.js';

const log = (entries: Record<string, { announced?: number[]; withdrawn?: number[] }>): WireLog =>
  new Map(
    Object.entries(entries).map(([p, e]) => [
      p,
      { announced: e.announced ?? [], withdrawn: e.withdrawn ?? [] },
    ]),
  );

describe('dr-latency wire figures', () => {
  it("times an addition to the prefix's announcement", () => {
    expect(
      wireSingle(
        log({ '198.18.172.1': { announced: [1010], withdrawn: [1100] } }),
        '198.18.172.1',
        'add',
        1000,
      ),
    ).toBe(10);
  });

  it('times a removal to its withdrawal, or to ours marking it with the worst MED first', () => {
    const frr = log({ '198.18.172.1': { announced: [1010], withdrawn: [1100] } });
    expect(wireSingle(frr, '198.18.172.1', 'del', 1090)).toBe(10);
    // Ours: announced, announced again at the worst MED, withdrawn a second later.
    const ours = log({ '198.18.172.1': { announced: [1010, 1095], withdrawn: [2095] } });
    expect(wireSingle(ours, '198.18.172.1', 'del', 1090)).toBe(5);
  });

  it('gives NaN for a prefix the capture never saw, or a removal it never saw', () => {
    expect(wireSingle(log({}), '198.18.172.1', 'add', 0)).toBeNaN();
    expect(wireSingle(log({ '198.18.172.1': { announced: [10] } }), '198.18.172.1', 'del', 5)).toBeNaN();
  });

  it('times a batch from its first to its last announcement, or withdrawal', () => {
    const l = log({
      '198.18.192.0': { announced: [1200], withdrawn: [5000] },
      '198.18.192.1': { announced: [1500, 4100], withdrawn: [5300] },
    });
    expect(wireBatch(l, ['198.18.192.0', '198.18.192.1'], 'add', 1000)).toEqual({ first: 200, last: 500 });
    // The worst-MED announcements on the way out do not count as the removal's end.
    expect(wireBatch(l, ['198.18.192.0', '198.18.192.1'], 'del', 4000)).toEqual({ first: 1000, last: 1300 });
  });

  it('has no last when one of the batch was not captured', () => {
    const l = log({ '198.18.192.0': { announced: [1200] } });
    const w = wireBatch(l, ['198.18.192.0', '198.18.192.1'], 'add', 1000);
    expect(w.first).toBe(200);
    expect(w.last).toBeNaN();
    expect(wireBatch(l, [], 'add', 1000).first).toBeNaN();
  });
});
