import type { Decoder, Field } from './decoders.js';
import { configSchema } from './sections.js';

/** One key of the file format, as the reference documentation lists it. */
export interface ReferenceRow {
  /** "speaker.local_as", "peers[].max_prefixes.limit", "policies.NAME.statements[].action". */
  readonly key: string;
  readonly type: string;
  readonly required: boolean;
  readonly default: string | undefined;
  readonly doc: string;
}

function walk(decoder: Decoder<unknown>, key: string, out: ReferenceRow[]): void {
  const shape = decoder.shape;
  switch (shape.kind) {
    case 'object':
      for (const [name, field] of Object.entries(shape.fields) as [string, Field<unknown>][]) {
        const at = key === '' ? name : `${key}.${name}`;
        out.push({
          key: at,
          type: field.decoder.expected,
          required: field.required,
          default: field.default,
          doc: field.doc,
        });
        walk(field.decoder, at, out);
      }
      return;
    case 'list':
      walk(shape.item, `${key}[]`, out);
      return;
    case 'dictionary':
      walk(shape.value, `${key}.NAME`, out);
      return;
    case 'either':
      for (const option of shape.options) walk(option, key, out);
      return;
    case 'scalar':
      return;
  }
}

/** Every key the file accepts, in schema order, generated from the schema itself. */
export function configReference(): ReferenceRow[] {
  const out: ReferenceRow[] = [];
  walk(configSchema, '', out);
  return out;
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

/** The reference as Markdown tables, one per top-level section. */
export function formatReference(rows: readonly ReferenceRow[] = configReference()): string {
  const sections = new Map<string, ReferenceRow[]>();
  for (const row of rows) {
    const top = row.key.split(/[.[]/)[0];
    const list = sections.get(top) ?? [];
    list.push(row);
    sections.set(top, list);
  }
  const out: string[] = [];
  for (const [top, list] of sections) {
    out.push(`#### \`${top}\``, '', '| key | type | default | meaning |', '| --- | --- | --- | --- |');
    for (const r of list) {
      const def = r.required ? '**required**' : r.default === undefined ? '' : `\`${r.default}\``;
      out.push(`| \`${cell(r.key)}\` | ${cell(r.type)} | ${cell(def)} | ${cell(r.doc)} |`);
    }
    out.push('');
  }
  return out.join('\n');
}
