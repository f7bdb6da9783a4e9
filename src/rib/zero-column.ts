import { grown } from './grow.js';

const EMPTY = new Uint32Array(0);

/**
 * A u32 column that holds nothing until a non-zero value is stored: without add-path every
 * path id is 0, so a RIB's path-id columns cost neither memory nor copying as they grow.
 */
export class ZeroColumn {
  private values: Uint32Array = EMPTY;

  get(i: number): number {
    return this.values.length === 0 ? 0 : this.values[i];
  }

  /** Stores v at i; `capacity` sizes the column when this is its first non-zero value. */
  set(i: number, v: number, capacity: number): void {
    if (this.values.length === 0) {
      if (v === 0) return;
      this.values = new Uint32Array(capacity);
    }
    this.values[i] = v;
  }

  grow(capacity: number): void {
    if (this.values.length > 0) this.values = grown(this.values, capacity);
  }

  get byteLength(): number {
    return this.values.byteLength;
  }
}
