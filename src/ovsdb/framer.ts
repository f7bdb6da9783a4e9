import { OvsdbError, preview } from './errors.js';

/*
 * RFC 7047 section 4: JSON-RPC messages travel as JSON texts, one after another, with no
 * delimiter or length prefix. The end of a message is where its outermost object closes, so
 * the framer tracks nesting depth and string state byte by byte. Every structural character
 * is ASCII and UTF-8 never uses ASCII bytes inside a multi-byte sequence, so bytes can be
 * scanned without decoding; a message is decoded (and parsed) only once it is whole, which
 * also makes characters split across chunks harmless.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const SPACE = 0x20;
/** Deeper nesting than this is refused; OVSDB messages nest a handful of levels. */
const MAX_DEPTH = 1024;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;

/**
 * Splits a byte stream into JSON values. Truncated input is *incomplete* (kept until more
 * bytes come); input that can never become a message is *malformed* and poisons the framer,
 * since the rest of the stream cannot be trusted.
 */
export class JsonFramer {
  readonly #maxMessageBytes: number;
  /** Pieces of the message in progress, in order; the last piece is a view of a chunk. */
  #parts: Uint8Array[] = [];
  #partsBytes = 0;
  #depth = 0;
  /** The opener at each open level, so a `]` closing a `{` is malformed at once, not "incomplete". */
  readonly #openers = new Uint8Array(MAX_DEPTH + 1);
  #inString = false;
  #escaped = false;
  #failure: OvsdbError | undefined;

  constructor(maxMessageBytes: number) {
    this.#maxMessageBytes = maxMessageBytes;
  }

  /** Bytes held for the message in progress (bounded by maxMessageBytes plus one chunk). */
  get bufferedBytes(): number {
    return this.#partsBytes;
  }

  /** True when the stream is between messages (a clean place for it to end). */
  get idle(): boolean {
    return this.#depth === 0;
  }

  /** Feeds bytes; returns the values completed by them, in order. Throws OvsdbError when malformed. */
  push(chunk: Uint8Array): unknown[] {
    if (this.#failure) throw this.#failure;
    const out: unknown[] = [];
    const n = chunk.length;
    let start = this.#depth > 0 ? 0 : -1;
    let i = 0;
    while (i < n) {
      if (this.#depth === 0) {
        const b = chunk[i];
        if (b === SPACE || b === LF || b === CR || b === TAB) {
          i++;
          continue;
        }
        if (b !== OPEN_BRACE && b !== OPEN_BRACKET) {
          const text = Buffer.from(chunk.buffer, chunk.byteOffset + i, Math.min(40, n - i)).toString(
            'latin1',
          );
          this.#fail(
            new OvsdbError('malformed-json', `expected '{' to start a message, got ${preview(text)}`),
          );
        }
        start = i++;
        this.#depth = 1;
        this.#openers[1] = b;
        continue;
      }
      if (this.#inString) {
        // The hot loop: most bytes of an OVSDB message are inside strings.
        let escaped = this.#escaped;
        for (; i < n; i++) {
          const b = chunk[i];
          if (escaped) escaped = false;
          else if (b === BACKSLASH) escaped = true;
          else if (b === QUOTE) break;
        }
        this.#escaped = escaped;
        if (i < n) {
          this.#inString = false;
          i++;
        }
        continue;
      }
      const b = chunk[i++];
      if (b === QUOTE) this.#inString = true;
      else if (b === OPEN_BRACE || b === OPEN_BRACKET) {
        if (this.#depth === MAX_DEPTH)
          this.#fail(new OvsdbError('malformed-json', `nesting deeper than ${MAX_DEPTH}`));
        this.#openers[++this.#depth] = b;
      } else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
        if (this.#openers[this.#depth] !== (b === CLOSE_BRACE ? OPEN_BRACE : OPEN_BRACKET)) {
          this.#fail(
            new OvsdbError(
              'malformed-json',
              `'${String.fromCharCode(b)}' closes a '${String.fromCharCode(this.#openers[this.#depth])}'`,
            ),
          );
        }
        if (--this.#depth === 0) {
          out.push(this.#finish(chunk, start, i));
          start = -1;
        }
      }
    }
    if (this.#depth > 0) {
      const rest = chunk.subarray(start);
      this.#parts.push(rest);
      this.#partsBytes += rest.length;
      this.#checkSize(this.#partsBytes);
    }
    return out;
  }

  #finish(chunk: Uint8Array, start: number, end: number): unknown {
    let bytes: Buffer;
    if (this.#parts.length === 0) {
      bytes = Buffer.from(chunk.buffer, chunk.byteOffset + start, end - start);
    } else {
      this.#parts.push(chunk.subarray(0, end));
      bytes = Buffer.concat(this.#parts, this.#partsBytes + end);
      this.#parts = [];
      this.#partsBytes = 0;
    }
    this.#checkSize(bytes.length);
    const text = bytes.toString('utf8');
    try {
      return JSON.parse(text);
    } catch (err) {
      this.#fail(new OvsdbError('malformed-json', `${(err as Error).message} in ${preview(text, 80)}`));
    }
  }

  #checkSize(size: number): void {
    if (size > this.#maxMessageBytes) {
      this.#parts = [];
      this.#partsBytes = 0;
      this.#fail(
        new OvsdbError('oversize-message', `message exceeds ${this.#maxMessageBytes} bytes`, {
          limit: this.#maxMessageBytes,
        }),
      );
    }
  }

  #fail(error: OvsdbError): never {
    this.#failure = error;
    this.#depth = 0;
    this.#parts = [];
    this.#partsBytes = 0;
    throw error;
  }
}
