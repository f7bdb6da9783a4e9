/**
 * Append-only storage for many small byte strings (interned attribute blocks): one typed
 * array per 256 KiB instead of one per string, which V8 allocates and collects far more
 * slowly. A stored string is (chunk, offset); a chunk lives as long as anything points into it.
 */
export class ByteArena {
  private static readonly CHUNK = 256 * 1024;
  chunk: Uint8Array = new Uint8Array(ByteArena.CHUNK);
  private used = 0;

  /** Copies src[0, len) and returns its offset in `this.chunk` (read `chunk` right after). */
  store(src: Uint8Array, len: number): number {
    if (this.used + len > this.chunk.length) {
      this.chunk = new Uint8Array(Math.max(ByteArena.CHUNK, len));
      this.used = 0;
    }
    const at = this.used;
    const chunk = this.chunk;
    for (let i = 0; i < len; i++) chunk[at + i] = src[i];
    this.used = at + len;
    return at;
  }
}
