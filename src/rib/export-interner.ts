import { encodeUpdate, type PathAttributes, Writer } from '../bgp/wire/index.js';
import { InternTable } from './intern-table.js';

/** encodeUpdate's withdrawn-length and attribute-length fields, before the attributes. */
const UPDATE_PREFIX_BYTES = 4;
/** String.fromCharCode takes arguments on the stack: convert in bounded chunks. */
const CHUNK = 4096;

/**
 * Exported attribute sets interned by content (their encoding with 4-octet ASNs), so every
 * peer whose export gives the same attributes shares one object: its UPDATE bytes can be
 * prepared once and cached against it. One string key per attribute set, never per route.
 */
export class ExportInterner extends InternTable<PathAttributes> {
  constructor() {
    const w = new Writer(256);
    super((a) => contentKey(w, a));
  }
}

function contentKey(w: Writer, a: PathAttributes): string {
  w.reset();
  encodeUpdate(w, { attrs: a }, { as4: true });
  let s = '';
  for (let i = UPDATE_PREFIX_BYTES; i < w.pos; i += CHUNK) {
    s += String.fromCharCode.apply(
      null,
      w.buf.subarray(i, Math.min(w.pos, i + CHUNK)) as unknown as number[],
    );
  }
  return s;
}
