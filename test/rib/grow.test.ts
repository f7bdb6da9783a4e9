import { afterEach, describe, expect, it } from 'vitest';
import {
  COLLECT_AFTER_BYTES,
  COLLECT_AFTER_RESERVED_BYTES,
  collectReplacedColumns,
  deferReservedCollections,
  grown,
  nextCapacity,
  RESERVE_FROM,
  RESERVED_ENTRIES,
  released,
} from '../../src/rib/grow.js';

const AT = COLLECT_AFTER_BYTES;
const nextTurn = () => new Promise<void>((r) => setImmediate(r));

describe('grown', () => {
  it('copies the values into a column of the new size and type', () => {
    const a = Int16Array.of(1, -2, 3);
    const b = grown(a, 8);
    expect(b).toBeInstanceOf(Int16Array);
    expect([...b]).toEqual([1, -2, 3, 0, 0, 0, 0, 0]);
  });
});

describe('nextCapacity', () => {
  it('doubles small columns, reserves a full table once past RESERVE_FROM, doubles beyond that', () => {
    expect(nextCapacity(64)).toBe(128);
    expect(nextCapacity(RESERVE_FROM / 2)).toBe(RESERVE_FROM);
    expect(nextCapacity(RESERVE_FROM)).toBe(RESERVED_ENTRIES);
    expect(nextCapacity(RESERVE_FROM * 2)).toBe(RESERVED_ENTRIES);
    expect(nextCapacity(RESERVED_ENTRIES)).toBe(RESERVED_ENTRIES * 2);
    // A full table (1M) goes through the reserve with room to spare.
    expect(RESERVED_ENTRIES).toBeGreaterThan(1_500_000);
  });
});

describe('collectReplacedColumns', () => {
  afterEach(() => {
    collectReplacedColumns(null);
    deferReservedCollections(false);
  });

  it('collects once per turn after COLLECT_AFTER_BYTES of replaced columns, not before', async () => {
    let runs = 0;
    collectReplacedColumns(() => runs++);
    released(AT - 1);
    await nextTurn();
    expect(runs).toBe(0);
    grown(new Uint8Array(1), 2); // the byte that makes it
    released(2 * AT); // more in the same turn: still one collection
    await nextTurn();
    expect(runs).toBe(1);
    released(AT - 1); // counted afresh after a collection
    await nextTurn();
    expect(runs).toBe(1);
    released(1);
    await nextTurn();
    expect(runs).toBe(2);
  });

  it('collects after COLLECT_AFTER_RESERVED_BYTES once a column took its reserve, until installed again', async () => {
    let runs = 0;
    collectReplacedColumns(() => runs++);
    grown(new Uint8Array(RESERVE_FROM / 2), RESERVE_FROM); // doubling: no reserve
    await nextTurn();
    expect(runs).toBe(0);
    grown(new Int32Array(RESERVE_FROM), nextCapacity(RESERVE_FROM)); // the reserve: 1 MiB replaced
    await nextTurn();
    expect(runs).toBe(1); // 1.125 MiB replaced so far, far below COLLECT_AFTER_BYTES
    released(COLLECT_AFTER_RESERVED_BYTES - 1);
    await nextTurn();
    expect(runs).toBe(1);
    released(1);
    await nextTurn();
    expect(runs).toBe(2);
    // Deferred (initial tables being sent): the usual threshold holds meanwhile.
    deferReservedCollections(true);
    released(COLLECT_AFTER_RESERVED_BYTES);
    await nextTurn();
    expect(runs).toBe(2);
    deferReservedCollections(false);
    released(0);
    await nextTurn();
    expect(runs).toBe(3);
    collectReplacedColumns(() => runs++);
    released(COLLECT_AFTER_RESERVED_BYTES);
    await nextTurn();
    expect(runs).toBe(3);
  });

  it('does nothing without a collector', async () => {
    let runs = 0;
    collectReplacedColumns(() => runs++);
    collectReplacedColumns(null);
    released(4 * AT);
    await nextTurn();
    expect(runs).toBe(0);
  });
});
