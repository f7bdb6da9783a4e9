/**
 * The worker side of bench/bgp/receive-split.ts: frames the table and decodes each UPDATE's
 * NLRI into prefix columns in shared memory, one record per UPDATE, for the main thread to
 * apply. It reads the table from shared memory, as if it read the socket itself: the best case
 * for the split.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Afi, HEADER_LENGTH } from '../../src/bgp/wire/constants.js';
import { checkHeader } from '../../src/bgp/wire/header.js';
import { decodeNlri } from '../../src/bgp/wire/nlri.js';
import { PrefixList } from '../../src/bgp/wire/prefix-list.js';
import { Ctl, RECORD_INTS, type SplitShared } from './receive-split-ring.js';

const s = workerData as SplitShared;
const table = new Uint8Array(s.table);
const records = new Int32Array(s.records);
const words = new Uint32Array(s.words);
const lens = new Uint8Array(s.lens);
const ctl = new Int32Array(s.ctl);
const recordCap = records.length / RECORD_INTS;
const columnCap = lens.length;
const list = new PrefixList(Afi.IPV4, false, 4096);

/** Wakes the main thread if it said it sleeps (it sets the flag, then looks once more). */
function wake(): void {
  if (Atomics.exchange(ctl, Ctl.SLEEPING, 0) === 1) parentPort!.postMessage(0);
}

let written = 0;
let column = 0;
let columnsUsed = 0;
for (let at = 0; at < table.length; ) {
  const length = checkHeader(table, at);
  const body = at + HEADER_LENGTH;
  const withdrawnLength = (table[body] << 8) | table[body + 1];
  const attrStart = body + 4 + withdrawnLength;
  const attrEnd = attrStart + ((table[attrStart - 2] << 8) | table[attrStart - 1]);
  list.reset(Afi.IPV4, false);
  decodeNlri(table, attrEnd, at + length, list);
  // A record's prefixes stay contiguous: wrap early and count the skipped tail as used.
  let cost = list.count;
  if (column + list.count > columnCap) {
    cost += columnCap - column;
    column = 0;
  }
  while (
    written - Atomics.load(ctl, Ctl.READ) >= recordCap ||
    columnsUsed + cost - Atomics.load(ctl, Ctl.COLUMNS_FREED) > columnCap
  ) {
    Atomics.wait(ctl, Ctl.READ, Atomics.load(ctl, Ctl.READ), 20);
  }
  lens.set(list.lens.subarray(0, list.count), column);
  words.set(list.words.subarray(0, list.count), column);
  const r = (written % recordCap) * RECORD_INTS;
  records[r] = at;
  records[r + 1] = attrEnd;
  records[r + 2] = column;
  records[r + 3] = list.count;
  records[r + 4] = cost;
  column += list.count;
  columnsUsed += cost;
  written++;
  Atomics.store(ctl, Ctl.WRITTEN, written);
  wake();
  at += length;
}
Atomics.store(ctl, Ctl.DONE, 1);
wake();
