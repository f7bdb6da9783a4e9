import { TABLE_SHAPES, type TableShape } from '../gen/table-shapes.js';

/** The value after `name` on the command line, or `fallback`. */
export function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i < 0 ? fallback : (process.argv[i + 1] ?? fallback);
}

/** `--shape`, one of the generator's table shapes. */
export function shapeOption(fallback: TableShape): TableShape {
  const shape = option('--shape', fallback) as TableShape;
  if (!TABLE_SHAPES.includes(shape)) throw new Error(`--shape takes ${TABLE_SHAPES.join(' or ')}`);
  return shape;
}
