/**
 * Newline-delimited JSON framing, bounded: a line longer than the limit is never buffered
 * whole, so a client that sends no newline cannot make the speaker hold unbounded memory.
 */

const NEWLINE = 0x0a;

export type SplitResult =
  | { readonly kind: 'lines'; readonly lines: readonly string[] }
  /** `lines` are the complete ones before the line that went over. */
  | { readonly kind: 'oversize'; readonly lines: readonly string[] };

export class LineSplitter {
  readonly #maxLineBytes: number;
  #parts: Buffer[] = [];
  #buffered = 0;

  constructor(maxLineBytes: number) {
    this.#maxLineBytes = maxLineBytes;
  }

  /** Bytes held of a line not yet complete. */
  get buffered(): number {
    return this.#buffered;
  }

  /** Complete lines in this chunk (without the newline, a trailing CR dropped too). */
  push(chunk: Buffer): SplitResult {
    const lines: string[] = [];
    let start = 0;
    for (let nl = chunk.indexOf(NEWLINE, start); nl !== -1; nl = chunk.indexOf(NEWLINE, start)) {
      if (this.#buffered + (nl - start) > this.#maxLineBytes) return this.#overflow(lines);
      const tail = chunk.subarray(start, nl);
      const whole = this.#parts.length ? Buffer.concat([...this.#parts, tail]) : tail;
      this.#parts = [];
      this.#buffered = 0;
      lines.push(stripCarriageReturn(whole.toString('utf8')));
      start = nl + 1;
    }
    const rest = chunk.length - start;
    if (rest > 0) {
      if (this.#buffered + rest > this.#maxLineBytes) return this.#overflow(lines);
      // Copy: the socket may reuse its chunk buffer.
      this.#parts.push(Buffer.from(chunk.subarray(start)));
      this.#buffered += rest;
    }
    return { kind: 'lines', lines };
  }

  #overflow(lines: string[]): SplitResult {
    this.#parts = [];
    this.#buffered = 0;
    return { kind: 'oversize', lines };
  }
}

function stripCarriageReturn(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}
