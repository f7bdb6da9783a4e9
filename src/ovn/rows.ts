/* Reading replica rows (src/ovsdb Row: atoms, null for empty optionals, arrays, Maps) by column kind. */
import type { Row } from '../ovsdb/index.js';

export function str(row: Row, column: string): string {
  const v = row[column];
  return typeof v === 'string' ? v : '';
}

/** An optional column (0..1): its atom or null. */
export function opt(row: Row, column: string): string | null {
  const v = row[column];
  if (typeof v === 'string') return v === '' ? null : v;
  if (Array.isArray(v) && typeof v[0] === 'string') return v[0];
  return null;
}

export function set(row: Row, column: string): readonly string[] {
  const v = row[column];
  if (Array.isArray(v)) return v as readonly string[];
  return typeof v === 'string' ? [v] : [];
}

export function mapGet(row: Row, column: string, key: string): string | undefined {
  const v = row[column];
  if (v instanceof Map) {
    const got = v.get(key);
    return typeof got === 'string' ? got : undefined;
  }
  return undefined;
}
