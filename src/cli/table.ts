/** Fixed-width text tables as vtysh prints them: columns as wide as their widest cell. */

export interface Column {
  readonly header: string;
  readonly align: 'left' | 'right';
}

const GAP = ' ';

/** Header line then one line per row; no trailing spaces. */
export function renderTable(columns: readonly Column[], rows: readonly (readonly string[])[]): string[] {
  // A loop, not Math.max(...cells): spread as arguments overflows the stack on a full table.
  const widths = columns.map((c) => c.header.length);
  for (const r of rows)
    for (let i = 0; i < widths.length; i++) widths[i] = Math.max(widths[i]!, (r[i] ?? '').length);
  const line = (cells: readonly string[]) =>
    columns
      .map((c, i) => {
        const cell = cells[i] ?? '';
        return c.align === 'left' ? cell.padEnd(widths[i]) : cell.padStart(widths[i]);
      })
      .join(GAP)
      .trimEnd();
  return [line(columns.map((c) => c.header)), ...rows.map(line)];
}
