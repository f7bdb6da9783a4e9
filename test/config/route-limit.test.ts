import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatProblem, validateConfig } from '../../src/config/index.js';
import { countRouteItems } from '../../src/config/route-count.js';
import { configError, parse, SPEAKER } from './support.js';

const LIMIT = 10_000;
const route = (i: number, style: 'block' | 'flow') =>
  style === 'block'
    ? `  - prefix: 198.18.${(i >> 8) & 255}.${i & 255}/32\n    med: 5\n`
    : `  - { prefix: 198.18.${(i >> 8) & 255}.${i & 255}/32 }\n`;
const routes = (n: number, style: 'block' | 'flow' = 'block') =>
  `routes:\n${Array.from({ length: n }, (_, i) => route(i, style)).join('')}`;

describe('a large routes: list', () => {
  it('is refused before YAML reads it, naming the field, the count and the advice to use MRT', () => {
    const e = configError(`${SPEAKER}${routes(LIMIT + 1)}peers: []\n`);
    expect(e.problems).toHaveLength(1);
    expect(formatProblem(e.problems[0], 'config.yaml')).toBe(
      'config.yaml:5:1 routes: 10001 entries, over the limit of 10000: originate a large table from an MRT file instead (ovn-bgp-speaker mrt inject FILE, docs/mrt.md)',
    );
  });

  it('at the limit is read as usual', () => {
    const loaded = parse(`${SPEAKER}${routes(LIMIT, 'flow')}`);
    expect(loaded.config.routes).toHaveLength(LIMIT);
  });

  it('over the limit in a shape the text count does not see (JSON-like flow) is refused by the schema', () => {
    const items = Array.from({ length: LIMIT + 1 }, (_, i) => ({
      prefix: `198.19.${(i >> 8) & 255}.${i & 255}/32`,
    }));
    const result = validateConfig({
      speaker: { name: 's', local_as: 65000, router_id: '198.18.0.1' },
      routes: items,
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.map((p) => `${p.path}: ${p.message}`)).toEqual([
      'routes: 10001 entries, over the limit of 10000: originate a large table from an MRT file instead (ovn-bgp-speaker mrt inject FILE, docs/mrt.md)',
    ]);
  });

  it('property: the text count is the number of entries, whatever follows the list', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 60 }),
        fc.constantFrom('block', 'flow') as fc.Arbitrary<'block' | 'flow'>,
        fc.boolean(),
        fc.boolean(),
        (n, style, before, after) => {
          const text = `${before ? 'peers:\n  - name: a\n' : ''}${routes(n, style)}# a comment\n\n${after ? 'networks:\n  - 198.18.0.0/24\n' : ''}`;
          const counted = countRouteItems(text, 0);
          expect(counted?.count).toBe(n);
          expect(counted?.line).toBe(before ? 3 : 1);
        },
      ),
    );
  });

  it('a short text is not scanned at all', () => {
    expect(countRouteItems(`${SPEAKER}${routes(3)}`, LIMIT)).toBeNull();
  });
});
