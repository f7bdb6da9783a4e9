/**
 * A growable list of table entry numbers (the prefixes waiting for work), kept as one
 * Int32Array that doubles when full: no object per entry, and its room is kept between uses.
 */
export class EntryList {
  /** The entries are items[0..count). */
  items = new Int32Array(64);
  count = 0;

  push(e: number): void {
    if (this.count === this.items.length) {
      const d = new Int32Array(this.items.length * 2);
      d.set(this.items);
      this.items = d;
    }
    this.items[this.count++] = e;
  }

  clear(): void {
    this.count = 0;
  }

  /** Removes the first n entries, keeping the order of the rest. */
  dropFirst(n: number): void {
    this.items.copyWithin(0, n, this.count);
    this.count -= n;
  }

  get byteLength(): number {
    return this.items.byteLength;
  }
}
