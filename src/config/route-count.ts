/** The shortest `routes:` entry a file can hold: "- prefix: 0.0.0.0/0\n". */
const MIN_ENTRY_BYTES = 20;

/**
 * How many items the top-level `routes:` list holds, counted on the text before YAML parses it
 * (which builds nodes for every line and takes seconds per hundred thousand entries), and the
 * line of `routes:`; null when the text is too short to hold more than `limit`, or has no
 * block list under `routes:`. Items are the lines that start with "-" at the first item's
 * indentation, up to the next top-level key.
 */
export function countRouteItems(text: string, limit: number): { count: number; line: number } | null {
  if (text.length <= limit * MIN_ENTRY_BYTES) return null;
  let line = 0;
  let routesLine = 0;
  let indent = -1;
  let count = 0;
  for (let start = 0; start < text.length; ) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    line++;
    const first = text.charCodeAt(start);
    if (routesLine === 0) {
      if (text.startsWith('routes', start) && /^routes\s*:\s*(#.*)?\r?$/.test(text.slice(start, end)))
        routesLine = line;
    } else if (
      end > start &&
      first !== 0x20 &&
      first !== 0x2d /* - */ &&
      first !== 0x23 /* # */ &&
      first !== 0x0d
    ) {
      break; // the next top-level key
    } else {
      let i = start;
      while (i < end && text.charCodeAt(i) === 0x20) i++;
      if (text.charCodeAt(i) === 0x2d && (i + 1 === end || text.charCodeAt(i + 1) === 0x20)) {
        if (indent < 0) indent = i - start;
        if (i - start === indent) count++;
      }
    }
    start = end + 1;
  }
  return routesLine === 0 ? null : { count, line: routesLine };
}
