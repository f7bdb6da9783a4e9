import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  applyDiff,
  decodeValue,
  defaultValue,
  EMPTY_MAP,
  EMPTY_SET,
  encodeValue,
  namedUuid,
  type Value,
  valueEquals,
} from '../../src/ovsdb/datum.js';
import { OvsdbError } from '../../src/ovsdb/errors.js';
import { type ColumnType, parseColumnType } from '../../src/ovsdb/schema.js';
import { serverDiff } from './server-model.js';

const U1 = 'a46dd586-95c0-4c6d-a054-25eace872ae9';
const U2 = '5dd159d5-0000-4000-8000-000000000002';

// Column types as the OVN schemas write them (notes section 4).
const T = {
  string: parseColumnType('string'), // Logical_Router.name
  integer: parseColumnType({ key: { type: 'integer', minInteger: 0, maxInteger: 32767 } }), // priority
  real: parseColumnType('real'),
  boolean: parseColumnType('boolean'),
  uuidRef: parseColumnType({ key: { type: 'uuid', refTable: 'Datapath_Binding' } }), // Port_Binding.datapath
  optString: parseColumnType({ key: 'string', min: 0, max: 1 }), // NAT.logical_port
  optBool: parseColumnType({ key: 'boolean', min: 0, max: 1 }), // Port_Binding.up
  optUuid: parseColumnType({ key: { type: 'uuid', refTable: 'Chassis', refType: 'weak' }, min: 0, max: 1 }),
  stringSet: parseColumnType({ key: 'string', min: 0, max: 'unlimited' }), // nat_addresses
  nonEmptySet: parseColumnType({ key: 'string', min: 1, max: 'unlimited' }), // LRP.networks
  uuidSet: parseColumnType({ key: { type: 'uuid', refTable: 'NAT' }, min: 0, max: 'unlimited' }),
  map: parseColumnType({ key: 'string', value: 'string', min: 0, max: 'unlimited' }), // options
  smallMap: parseColumnType({ key: 'string', value: 'integer', min: 0, max: 1 }),
};

describe('column kinds', () => {
  it('follow min/max/value as RFC 7047 3.2 defines them', () => {
    expect(T.string.kind).toBe('scalar');
    expect(T.optString.kind).toBe('optional');
    expect(T.stringSet.kind).toBe('set');
    expect(T.nonEmptySet.kind).toBe('set');
    expect(T.map.kind).toBe('map');
    expect(T.optString.composite).toBe(false);
    expect(T.smallMap.composite).toBe(false);
    expect(T.uuidSet.composite).toBe(true);
  });
});

const DECODE: { name: string; type: ColumnType; json: unknown; value: Value }[] = [
  { name: 'string atom', type: T.string, json: 'router1', value: 'router1' },
  { name: 'integer atom', type: T.integer, json: 20, value: 20 },
  { name: 'real atom (integer-looking)', type: T.real, json: 3, value: 3 },
  { name: 'boolean atom', type: T.boolean, json: true, value: true },
  { name: 'uuid atom', type: T.uuidRef, json: ['uuid', U1], value: U1 },
  { name: 'scalar sent as a set of one', type: T.string, json: ['set', ['x']], value: 'x' },
  { name: 'optional, empty', type: T.optString, json: ['set', []], value: null },
  { name: 'optional, bare atom', type: T.optString, json: 'vm1', value: 'vm1' },
  { name: 'optional, set of one', type: T.optBool, json: ['set', [true]], value: true },
  { name: 'optional uuid, bare', type: T.optUuid, json: ['uuid', U2], value: U2 },
  {
    name: 'set of one sent bare',
    type: T.stringSet,
    json: '00:00:20:20:12:13 172.24.4.1/24',
    value: ['00:00:20:20:12:13 172.24.4.1/24'],
  },
  { name: 'uuid set of one sent bare', type: T.uuidSet, json: ['uuid', U1], value: [U1] },
  {
    name: 'uuid set',
    type: T.uuidSet,
    json: [
      'set',
      [
        ['uuid', U1],
        ['uuid', U2],
      ],
    ],
    value: [U1, U2],
  },
  { name: 'empty set', type: T.stringSet, json: ['set', []], value: EMPTY_SET },
  {
    name: 'map',
    type: T.map,
    json: [
      'map',
      [
        ['a', '1'],
        ['b', '2'],
      ],
    ],
    value: new Map([
      ['a', '1'],
      ['b', '2'],
    ]),
  },
  { name: 'empty map', type: T.map, json: ['map', []], value: EMPTY_MAP },
];

const DECODE_ERRORS: { name: string; type: ColumnType; json: unknown }[] = [
  { name: 'number for string', type: T.string, json: 1 },
  { name: 'real for integer', type: T.integer, json: 1.5 },
  { name: 'string for boolean', type: T.boolean, json: 'true' },
  { name: 'bad uuid text', type: T.uuidRef, json: ['uuid', 'not-a-uuid'] },
  { name: 'named-uuid from a server', type: T.uuidRef, json: ['named-uuid', 'x'] },
  { name: 'empty set for a scalar', type: T.string, json: ['set', []] },
  { name: 'two atoms for an optional', type: T.optString, json: ['set', ['a', 'b']] },
  { name: 'empty set where min is 1', type: T.nonEmptySet, json: ['set', []] },
  { name: 'map given for a set', type: T.stringSet, json: ['map', []] },
  { name: 'bare pair for a map', type: T.map, json: ['a', 'b'] },
  { name: 'map with a bad pair', type: T.map, json: ['map', [['a']]] },
  { name: 'null', type: T.string, json: null },
];

describe('decodeValue (RFC 7047 5.1)', () => {
  for (const c of DECODE) {
    it(c.name, () => {
      expect(decodeValue(c.type, c.json)).toEqual(c.value);
    });
  }
  for (const c of DECODE_ERRORS) {
    it(`rejects ${c.name}`, () => {
      expect(() => decodeValue(c.type, c.json)).toThrowError(OvsdbError);
      try {
        decodeValue(c.type, c.json);
      } catch (err) {
        expect((err as OvsdbError).kind).toBe('bad-datum');
      }
    });
  }
});

describe('defaultValue (ovsdb_datum_init_default: what updates leave out)', () => {
  it('gives each type its default', () => {
    expect(defaultValue(T.string)).toBe('');
    expect(defaultValue(T.integer)).toBe(0);
    expect(defaultValue(T.boolean)).toBe(false);
    expect(defaultValue(T.uuidRef)).toBe('00000000-0000-0000-0000-000000000000');
    expect(defaultValue(T.optString)).toBeNull();
    expect(defaultValue(T.stringSet)).toEqual([]);
    expect(defaultValue(T.nonEmptySet)).toEqual(['']);
    expect(defaultValue(T.map)).toEqual(new Map());
  });
  it('shares one empty map and one empty set', () => {
    expect(defaultValue(T.map)).toBe(EMPTY_MAP);
    expect(defaultValue(T.stringSet)).toBe(EMPTY_SET);
    expect(Object.isFrozen(EMPTY_SET)).toBe(true);
  });
});

describe('applyDiff (update2 modify, ovsdb_datum_apply_diff)', () => {
  it('scalar and optional columns carry the new value', () => {
    expect(applyDiff(T.string, 'a', 'b')).toBe('b');
    expect(applyDiff(T.optUuid, U1, ['uuid', U2])).toBe(U2); // chassis moves in one step
    expect(applyDiff(T.optBool, true, ['set', []])).toBeNull(); // "up":["set",[]]
    expect(applyDiff(T.optString, null, 'x')).toBe('x');
  });
  it('a map of max 1 is not composite: new value', () => {
    expect(applyDiff(T.smallMap, new Map([['a', 1]]), ['map', [['b', 2]]])).toEqual(new Map([['b', 2]]));
  });
  it('sets toggle each element listed (symmetric difference)', () => {
    expect(applyDiff(T.uuidSet, [U1], ['uuid', U2])).toEqual([U1, U2]); // static route added
    expect(applyDiff(T.uuidSet, [U1, U2], ['uuid', U1])).toEqual([U2]); // and removed
    expect(applyDiff(T.stringSet, ['old'], ['set', ['old', 'new']])).toEqual(['new']); // nat_addresses change
    expect(applyDiff(T.uuidSet, [U1], ['uuid', U1])).toEqual([]);
  });
  it('maps: new key added, other value replaces, same value removes', () => {
    const old = new Map([
      ['keep', '1'],
      ['change', 'a'],
      ['drop', 'x'],
    ]);
    const diff = [
      'map',
      [
        ['change', 'b'],
        ['drop', 'x'],
        ['new-key', '1'],
      ],
    ];
    expect(applyDiff(T.map, old, diff)).toEqual(
      new Map([
        ['keep', '1'],
        ['change', 'b'],
        ['new-key', '1'],
      ]),
    );
    // The lab's removal: a key sent with its current value.
    expect(applyDiff(T.map, new Map([['new-key', '1']]), ['map', [['new-key', '1']]])).toBe(EMPTY_MAP);
  });
  it('refuses a diff that breaks the column size', () => {
    expect(() => applyDiff(T.nonEmptySet, ['10.0.0.1/24'], '10.0.0.1/24')).toThrowError(/0 element/);
  });
  it('does not change the old value', () => {
    const old = Object.freeze(['a', 'b']);
    applyDiff(T.stringSet, old, 'c');
    expect(old).toEqual(['a', 'b']);
  });
});

describe('property: applying the server diff of old→new gives new', () => {
  const small = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f');
  it('sets of strings', () => {
    fc.assert(
      fc.property(fc.uniqueArray(small), fc.uniqueArray(small), (o, n) => {
        const result = applyDiff(T.stringSet, o, serverDiff(T.stringSet, o, n));
        expect(valueEquals(T.stringSet, result, n)).toBe(true);
      }),
    );
  });
  it('maps of strings', () => {
    const map = fc.uniqueArray(fc.tuple(small, small), { selector: ([k]) => k }).map((e) => new Map(e));
    fc.assert(
      fc.property(map, map, (o, n) => {
        const result = applyDiff(T.map, o, serverDiff(T.map, o, n));
        expect(valueEquals(T.map, result, n)).toBe(true);
      }),
    );
  });
  it('optional columns', () => {
    const opt = fc.option(small, { nil: null });
    fc.assert(
      fc.property(opt, opt, (o, n) => {
        expect(applyDiff(T.optString, o, serverDiff(T.optString, o, n))).toBe(n);
      }),
    );
  });
});

describe('valueEquals', () => {
  it('compares sets as sets and maps by pairs', () => {
    expect(valueEquals(T.stringSet, ['a', 'b'], ['b', 'a'])).toBe(true);
    expect(valueEquals(T.stringSet, ['a', 'b'], ['a', 'c'])).toBe(false);
    const many = Array.from({ length: 20 }, (_, i) => `x${i}`);
    expect(valueEquals(T.stringSet, many, [...many].reverse())).toBe(true);
    expect(valueEquals(T.map, new Map([['a', '1']]), new Map([['a', '2']]))).toBe(false);
    expect(valueEquals(T.map, new Map([['a', '1']]), new Map([['a', '1']]))).toBe(true);
    expect(valueEquals(T.optString, null, '')).toBe(false);
  });
});

describe('encodeValue', () => {
  it('writes each kind in RFC 7047 5.1 form', () => {
    expect(encodeValue(T.uuidRef, U1)).toEqual(['uuid', U1]);
    expect(encodeValue(T.uuidSet, [U1, namedUuid('new')])).toEqual([
      'set',
      [
        ['uuid', U1],
        ['named-uuid', 'new'],
      ],
    ]);
    expect(encodeValue(T.optString, null)).toEqual(['set', []]);
    expect(encodeValue(T.optString, 'x')).toBe('x');
    expect(encodeValue(T.map, new Map([['k', 'v']]))).toEqual(['map', [['k', 'v']]]);
    expect(encodeValue(T.map, { k: 'v' })).toEqual(['map', [['k', 'v']]]);
    expect(encodeValue(T.stringSet, new Set(['a']))).toEqual(['set', ['a']]);
  });
  it('refuses values of the wrong type, naming the problem', () => {
    expect(() => encodeValue(T.uuidRef, 'nope')).toThrowError(/expected uuid atom/);
    expect(() => encodeValue(T.string, namedUuid('x'))).toThrowError(/named-uuid in a string column/);
    expect(() => encodeValue(T.optString, ['a', 'b'])).toThrowError(/more than 1/);
    expect(() => encodeValue(T.map, ['a'])).toThrowError(/map column/);
    expect(() => encodeValue(T.string, [])).toThrowError(/exactly one/);
  });
  it('round-trips through decodeValue', () => {
    for (const c of DECODE)
      expect(decodeValue(c.type, encodeValue(c.type, c.value as never))).toEqual(c.value);
  });
});
