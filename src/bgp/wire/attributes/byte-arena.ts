/**
 * Append-only storage for many small byte strings (interned attribute blocks): one typed
 * array per 256 KiB instead of one per string, which V8 allocates and collects far more
 * slowly. A candidate is written in place first (`reserve`), looked up, and kept only if
 * new (`commit`), so a string that is already interned is never copied twice.
 * A stored string is (chunk, offset); a chunk lives as long as anything points into it.
 *
 * Chunks start small and double up to 256 KiB: the interner outlives the session whose decoder
 * filled a chunk, so one interned string of a short session pins its whole chunk. With a fixed
 * 256 KiB first chunk a peer that reconnected a thousand times held a quarter of a GiB.
 */
export class ByteArena {
  static readonly FIRST_CHUNK = 4 * 1024;
  static readonly MAX_CHUNK = 256 * 1024;
  /** Empty until the first `reserve`: a decoder that never interns allocates nothing. */
  chunk: Uint8Array = new Uint8Array(0);
  private used = 0;

  /** Room for up to n bytes at the returned offset of `chunk` (which may be a new chunk). */
  reserve(n: number): number {
    if (this.used + n > this.chunk.length) {
      const next = Math.min(ByteArena.MAX_CHUNK, Math.max(ByteArena.FIRST_CHUNK, this.chunk.length * 2));
      this.chunk = new Uint8Array(Math.max(next, n));
      this.used = 0;
    }
    return this.used;
  }

  /** Keeps the len bytes written at the last reserved offset. */
  commit(len: number): void {
    this.used += len;
  }
}
