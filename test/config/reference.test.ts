import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { configReference, formatReference } from '../../src/config/index.js';

const EXAMPLE = readFileSync(fileURLToPath(new URL('./fixtures/example.yaml', import.meta.url)), 'utf8');
/** Sections whose keys are names the operator chooses. */
const NAMED = new Set([
  'prefix_lists',
  'community_lists',
  'large_community_lists',
  'extended_community_lists',
  'as_path_lists',
  'policies',
  'peer_templates',
  'bfd_profiles',
  'ovn.chassis_next_hops',
]);

/** Reference-style keys of every value in a parsed file: peers[].name, policies.NAME.statements[]. */
function keysOf(value: unknown, at: string, out: Set<string>): Set<string> {
  if (Array.isArray(value)) {
    for (const item of value) keysOf(item, `${at}[]`, out);
  } else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      const key = at !== '' && NAMED.has(at) ? `${at}.NAME` : at === '' ? k : `${at}.${k}`;
      if (!(at !== '' && NAMED.has(at))) out.add(key);
      keysOf(v, key, out);
    }
  }
  return out;
}

describe('the configuration reference', () => {
  const rows = configReference();

  it('documents every key with a type and a sentence', () => {
    for (const row of rows) {
      expect(row.doc, row.key).toMatch(/\S/);
      expect(row.type, row.key).toMatch(/\S/);
    }
    expect(new Set(rows.map((r) => r.key)).size).toBe(rows.length);
  });

  it('covers every key the annotated example uses', () => {
    const documented = new Set(rows.map((r) => r.key));
    const used = [...keysOf(parseYaml(EXAMPLE), '', new Set())];
    expect(used.filter((k) => !documented.has(k))).toEqual([]);
    expect(used.length).toBeGreaterThan(80);
  });

  it('prints one table per section, required keys marked', () => {
    const text = formatReference(rows);
    for (const section of ['speaker', 'peers', 'routes', 'networks', 'policies', 'ovn', 'sinks']) {
      expect(text).toContain(`#### \`${section}\``);
    }
    expect(text).toContain('| `speaker.local_as` | an AS number 1..4294967295 | **required** |');
    expect(text).toContain('| `peers[].hold_time` | 0 or a whole number of seconds 3..65535 | `90` |');
  });

  it('is what the README prints, so the documented keys are the accepted ones', () => {
    const readme = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
    expect(readme).toContain(formatReference(rows).trimEnd());
  });
});
