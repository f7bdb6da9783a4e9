import { type Document, isAlias, isMap, isScalar, isSeq, type LineCounter, type Node } from 'yaml';
import type { Path, Problem } from './problem.js';

/** The longest chain of aliases followed while locating; anchors rarely nest deeper. */
const MAX_ALIAS_HOPS = 16;

function deref(node: unknown, doc: Document): unknown {
  let n = node;
  for (let hops = 0; isAlias(n) && hops < MAX_ALIAS_HOPS; hops++) n = n.resolve(doc);
  return n;
}

function keyText(key: unknown): string | undefined {
  if (isScalar(key)) return String(key.value);
  return undefined;
}

/**
 * Where `path` points in the document: the key of the last mapping entry on the path, or the
 * list item; for a path that does not exist (a missing key), the deepest part that does.
 * Returns a character offset, or undefined when not even the top level has a position.
 */
export function locateOffset(doc: Document, path: Path): number | undefined {
  let node: unknown = doc.contents;
  let offset = (doc.contents as Node | null)?.range?.[0];
  for (const seg of path) {
    const here = deref(node, doc);
    if (typeof seg === 'number' && isSeq(here)) {
      const item = here.items[seg] as Node | undefined;
      if (item === undefined) break;
      node = item;
      offset = (deref(item, doc) as Node | undefined)?.range?.[0] ?? offset;
    } else if (typeof seg === 'string' && isMap(here)) {
      const pair = here.items.find((p) => keyText(p.key) === seg);
      if (pair === undefined) break;
      node = pair.value;
      offset = (pair.key as Node | null)?.range?.[0] ?? offset;
    } else {
      break;
    }
  }
  return offset;
}

/** Adds line and column (1-based) to each problem whose path can be found in the document. */
export function withPositions(problems: readonly Problem[], doc: Document, lines: LineCounter): Problem[] {
  return problems.map((p) => {
    const offset = locateOffset(doc, p.segments);
    if (offset === undefined) return p;
    const { line, col } = lines.linePos(offset);
    return { ...p, line, column: col };
  });
}
