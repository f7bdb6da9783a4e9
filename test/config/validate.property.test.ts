import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { type Decoder, INVALID } from '../../src/config/decoders.js';
import {
  ConfigError,
  configReference,
  formatPath,
  parseConfig,
  planReload,
  type Validation,
  validateConfig,
} from '../../src/config/index.js';
import { configSchema } from '../../src/config/sections.js';

const EXAMPLE_TEXT = readFileSync(fileURLToPath(new URL('./fixtures/example.yaml', import.meta.url)), 'utf8');
const readFile = () => 'pw';
/** Raise for a longer hunt: CONFIG_FUZZ_RUNS=50000 npx vitest run test/config/validate.property.test.ts */
const SHAPED_RUNS = Number(process.env.CONFIG_FUZZ_RUNS ?? 1000);

/** Every key the schema knows, so random mappings reach deep into it. */
const KEYS = [...new Set(configReference().flatMap((r) => r.key.split(/[.[\]]+/)))].filter(
  (k) => k !== '' && k !== 'NAME',
);

/** Values that sit near the edges of what the schema takes, and good ones for every kind of field. */
// biome-ignore format: a table of values reads better packed.
const POOL: readonly unknown[] = [
  0, 1, 2, 3, 8, 9, 16, 24, 32, 48, 64, 90, 100, 128, 129, 179, 1000, 23456, 65000, 65001, 65535,
  4294967295, 4294967296, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY,
  '', 'self', 'unchanged', 'any', 'md5', 'none', 'ebgp', 'ibgp', 'igp', 'incomplete', 'info', 'debug',
  'ipv4', 'ipv6', 'ipv4-unicast', 'ipv6-unicast', 'permit', 'deny', 'accept', 'reject', 'next', 4, 6,
  '198.18.0.1', '198.18.1.2', '198.18.0.0/15', '198.18.10.0/24', '198.18.0.1/24', '2001:db8::1', '2001:db8::/32',
  '2001:db8:1::/48', '::', '0.0.0.0', '::ffff:1.2.3.4', '224.0.0.5', '65000:100', '65000:1:2', '65000:1:*',
  'no-export', '65000:*', '1.10', '+10', '-5', 'tcp:198.18.0.1:6641', 'tcp:198.18.0.1', 'ssl:[2001:db8::1]:6642',
  'unix:/run/ovn/nb.sock', '127.0.0.1:9179', '[::1]:9179', '^65001_', '(', '/run/x.sock', 'secret.pw',
  'tor-a', 'from-tor', 'p', 'pl', 'bad name', '__proto__', 'constructor', true, false, null,
];
const scalar = fc.oneof(fc.constantFrom(...POOL), fc.string({ maxLength: 12 }), fc.integer(), fc.double());

const yamlish: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.constantFrom(...KEYS), fc.string({ maxLength: 6 })), tie('value'), {
      maxKeys: 5,
    }),
  ),
})).value;

/**
 * Values shaped like the schema: the keys each mapping may have (plus, rarely, an unknown one),
 * scalars from the edge pool. This reaches the checks that need several fields at once.
 */
function shaped(decoder: Decoder<unknown>): fc.Arbitrary<unknown> {
  const shape = decoder.shape;
  switch (shape.kind) {
    case 'object': {
      const fields = Object.fromEntries(Object.entries(shape.fields).map(([k, f]) => [k, shaped(f.decoder)]));
      return fc
        .tuple(fc.record(fields, { requiredKeys: [] }), fc.option(scalar, { freq: 8 }))
        .map(([o, extra]) => (extra === null ? o : { ...o, colour: extra }));
    }
    case 'list':
      return fc.array(shaped(shape.item), { maxLength: 3 });
    case 'dictionary':
      return fc.dictionary(fc.constantFrom('from-tor', 'p', 'pl', 'tor-a', 'bad name'), shaped(shape.value), {
        maxKeys: 2,
      });
    case 'either':
      return fc.oneof(...shape.options.map(shaped));
    case 'scalar': {
      // Mostly values this field takes (found by asking the decoder), sometimes anything.
      const scratch = { problems: [], warnings: [] };
      const good = POOL.filter((v) => decoder.decode(v, [], scratch) !== INVALID);
      return good.length === 0
        ? scalar
        : fc.oneof({ arbitrary: fc.constantFrom(...good), weight: 4 }, { arbitrary: scalar, weight: 1 });
    }
  }
}

function checkShape(v: Validation): void {
  if (v.ok) return;
  expect(v.problems.length).toBeGreaterThan(0);
  for (const p of v.problems) {
    expect(p.path).toBe(formatPath(p.segments));
    expect(typeof p.message).toBe('string');
    expect(p.message.length).toBeGreaterThan(0);
  }
}

type Step = {
  path: readonly (string | number)[];
  kind: 'replace' | 'delete' | 'add';
  value: unknown;
  key: string;
};

/** Applies one edit at a node chosen by `path` (followed as far as it goes). */
function mutate(root: unknown, step: Step): unknown {
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let node: Record<string | number, unknown> = copy;
  for (const seg of step.path) {
    const keys = Object.keys(node);
    if (keys.length === 0) break;
    const key = keys[Math.abs(typeof seg === 'number' ? seg : seg.length) % keys.length];
    const child = node[key];
    if (typeof child !== 'object' || child === null) {
      if (step.kind === 'delete' && !Array.isArray(node)) delete node[key];
      else node[key] = step.value;
      return copy;
    }
    node = child as Record<string | number, unknown>;
  }
  if (step.kind === 'add' && !Array.isArray(node)) node[step.key] = step.value;
  else if (Array.isArray(node)) node.push(step.value);
  else node[step.key] = step.value;
  return copy;
}

describe('the validator on any input', () => {
  it('never throws on YAML-ish values and reports problems with well-formed paths', () => {
    fc.assert(
      fc.property(yamlish, (raw) => {
        checkShape(validateConfig(raw, { readFile }));
      }),
      { numRuns: 600 },
    );
  });

  it('never throws on a speaker section full of random values', () => {
    fc.assert(
      fc.property(yamlish, yamlish, (speaker, peers) => {
        checkShape(validateConfig({ speaker, peers: [peers] }, { readFile }));
      }),
      { numRuns: 600 },
    );
  });

  it('never throws on configurations shaped like the schema, good and bad fields mixed', () => {
    fc.assert(
      fc.property(shaped(configSchema), (raw) => {
        checkShape(validateConfig(raw, { readFile }));
      }),
      { numRuns: SHAPED_RUNS },
    );
  });

  it('never throws on the full example with random edits deep inside it', () => {
    const example = parseYaml(EXAMPLE_TEXT) as unknown;
    const step = fc.record({
      path: fc.array(fc.oneof(fc.nat(), fc.string({ maxLength: 5 })), { maxLength: 6 }),
      kind: fc.constantFrom('replace' as const, 'delete' as const, 'add' as const),
      value: yamlish,
      key: fc.oneof(fc.constantFrom(...KEYS), fc.string({ maxLength: 6 })),
    });
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 3 }), (steps) => {
        const raw = steps.reduce(mutate, example);
        checkShape(validateConfig(raw, { readFile }));
      }),
      { numRuns: 800 },
    );
  });

  it('text that is not a configuration raises ConfigError and nothing else', () => {
    const lines = fc.array(
      fc.oneof(
        fc.string({ maxLength: 20 }),
        fc.constantFrom(
          'speaker:',
          '  name: s',
          '  local_as: 65000',
          '- ',
          '  - [',
          '{',
          '&a x',
          '*a',
          '---',
          '  ? x',
          '!!binary x',
        ),
      ),
      { maxLength: 8 },
    );
    fc.assert(
      fc.property(lines, (ls) => {
        try {
          parseConfig(ls.join('\n'), { file: 'fuzz.yaml', readFile });
        } catch (e) {
          expect(e).toBeInstanceOf(ConfigError);
          for (const p of (e as ConfigError).problems) {
            if (p.line !== undefined) expect(p.line).toBeGreaterThan(0);
          }
        }
      }),
      { numRuns: 600 },
    );
  });
});

/** Valid peers, so the properties below are about configurations the validator accepts. */
const validPeer = (i: number) =>
  fc.record({
    name: fc.constant(`peer-${i}`),
    peer_ip: fc.constant(i % 2 === 0 ? `198.18.1.${i + 1}` : `2001:db8:1::${(i + 1).toString(16)}`),
    remote_as: fc.constantFrom(65000, 65001, 4200000000),
    hold_time: fc.constantFrom(0, 3, 9, 90, 65535),
    passive: fc.boolean(),
    families: fc.subarray(['ipv4-unicast', 'ipv6-unicast'], { minLength: 1 }),
    max_prefixes: fc.integer({ min: 1, max: 1_000_000 }),
    import: fc.constant(['p']),
    export: fc.constant(['p']),
  });

const validConfig = fc.integer({ min: 0, max: 6 }).chain((n) =>
  fc.record({
    speaker: fc.constant({ name: 's', local_as: 65000, router_id: '198.18.0.1' }),
    peers: n === 0 ? fc.constant([]) : fc.tuple(...Array.from({ length: n }, (_, i) => validPeer(i))),
    networks: fc.uniqueArray(
      fc.integer({ min: 0, max: 255 }).map((x) => `198.19.${x}.0/24`),
      { maxLength: 5 },
    ),
    policies: fc.constant({ p: { statements: [{ action: 'accept' }] } }),
  }),
);

describe('valid configurations', () => {
  it('are accepted, and reloading one onto itself plans nothing', () => {
    fc.assert(
      fc.property(validConfig, (raw) => {
        const v = validateConfig(raw, { readFile });
        if (!v.ok) throw new Error(v.problems.map((p) => `${p.path}: ${p.message}`).join('\n'));
        expect(v.config.peers).toHaveLength(raw.peers.length);
        expect(v.config.routes).toHaveLength(raw.networks.length);
        expect(planReload(v.config, v.config).empty).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('dropping peers plans exactly their removal and leaves the rest alone', () => {
    fc.assert(
      fc.property(validConfig, fc.nat(), (raw, seed) => {
        const before = validateConfig(raw, { readFile });
        const peers = raw.peers as readonly { name: string }[];
        const kept = peers.filter((_, i) => (seed >> i) & 1);
        const after = validateConfig({ ...raw, peers: kept }, { readFile });
        if (!before.ok || !after.ok) throw new Error('expected valid configurations');
        const plan = planReload(before.config, after.config);
        expect(plan.peers.changed).toEqual([]);
        expect(plan.peers.added).toEqual([]);
        expect(plan.peers.removed.map((p) => p.name)).toEqual(
          peers.filter((p) => !kept.includes(p)).map((p) => p.name),
        );
      }),
      { numRuns: 300 },
    );
  });
});
