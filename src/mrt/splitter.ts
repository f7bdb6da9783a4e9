import { MRT_HEADER_LENGTH, MrtDefaults, MrtType } from './constants.js';
import { MrtError } from './errors.js';
import type { MrtRecord } from './records.js';

/** The _ET types carry microseconds as the first four bytes counted in the length (RFC 6396 section 3). */
const ET_TYPES: ReadonlySet<number> = new Set([MrtType.BGP4MP_ET]);

/**
 * Cuts a byte stream into MRT records. Chunks are pushed as they are read; `next` hands out
 * whole records whose bodies are views into the chunk (or into one copy when a record
 * straddles two chunks), valid until the next `push`. A file that ends inside a record is
 * *truncated* (`end`); a length no record can have is *malformed* at once.
 */
export class MrtSplitter {
  readonly #maxLength: number;
  #buf: Uint8Array = new Uint8Array(0);
  #pos = 0;
  /** Byte offset in the stream of #buf[0]. */
  #base = 0;

  constructor(maxLength: number = MrtDefaults.MAX_RECORD_LENGTH) {
    this.#maxLength = maxLength;
  }

  push(chunk: Uint8Array): void {
    const left = this.#buf.length - this.#pos;
    if (left === 0) {
      this.#base += this.#buf.length;
      this.#buf = chunk;
    } else {
      const joined = new Uint8Array(left + chunk.length);
      joined.set(this.#buf.subarray(this.#pos));
      joined.set(chunk, left);
      this.#base += this.#pos;
      this.#buf = joined;
    }
    this.#pos = 0;
  }

  next(): MrtRecord | null {
    const b = this.#buf;
    const p = this.#pos;
    if (b.length - p < MRT_HEADER_LENGTH) return null;
    const offset = this.#base + p;
    const length = ((b[p + 8] << 24) | (b[p + 9] << 16) | (b[p + 10] << 8) | b[p + 11]) >>> 0;
    if (length > this.#maxLength) {
      throw new MrtError(
        'malformed',
        `MRT record at byte ${offset}: length ${length} is over ${this.#maxLength}`,
      );
    }
    const end = p + MRT_HEADER_LENGTH + length;
    if (end > b.length) return null;
    const timestamp = ((b[p] << 24) | (b[p + 1] << 16) | (b[p + 2] << 8) | b[p + 3]) >>> 0;
    const type = (b[p + 4] << 8) | b[p + 5];
    const subtype = (b[p + 6] << 8) | b[p + 7];
    let start = p + MRT_HEADER_LENGTH;
    let microseconds = 0;
    if (ET_TYPES.has(type)) {
      if (length < 4)
        throw new MrtError('malformed', `MRT record at byte ${offset}: an _ET record shorter than 4 bytes`);
      microseconds = ((b[start] << 24) | (b[start + 1] << 16) | (b[start + 2] << 8) | b[start + 3]) >>> 0;
      start += 4;
    }
    this.#pos = end;
    return { timestamp, microseconds, type, subtype, body: b.subarray(start, end), offset };
  }

  /** The stream ended: throws when a record was cut short. */
  end(): void {
    const left = this.#buf.length - this.#pos;
    if (left > 0) {
      throw new MrtError(
        'truncated',
        `MRT file ends inside the record at byte ${this.#base + this.#pos} (${left} bytes of it)`,
      );
    }
  }
}

/** Every record of a whole file in memory (tests, small files). */
export function splitRecords(bytes: Uint8Array): MrtRecord[] {
  const s = new MrtSplitter();
  s.push(bytes);
  const out: MrtRecord[] = [];
  for (let r = s.next(); r; r = s.next()) out.push(r);
  s.end();
  return out;
}
