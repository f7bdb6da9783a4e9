/**
 * Append-only storage for many small byte strings (interned attribute blocks): one typed
 * array per 256 KiB instead of one per string, which V8 allocates and collects far more
 * slowly. A candidate is written in place first (`reserve`), looked up, and kept only if
 * new (`commit`), so a string that is already interned is never copied twice.
 * A stored string is (chunk, offset); a chunk lives as long as anything points into it.
 */
export class ByteArena {
  private static readonly CHUNK = 256 * 1024;
  chunk: Uint8Array = new Uint8Array(ByteArena.CHUNK);
  private used = 0;

  /** Room for up to n bytes at the returned offset of `chunk` (which may be a new chunk). */
  reserve(n: number): number {
    if (this.used + n > this.chunk.length) {
      this.chunk = new Uint8Array(Math.max(ByteArena.CHUNK, n));
      this.used = 0;
    }
    return this.used;
  }

  /** Keeps the len bytes written at the last reserved offset. */
  commit(len: number): void {
    this.used += len;
  }
}
