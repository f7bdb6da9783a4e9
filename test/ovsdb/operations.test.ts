import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { namedUuid } from '../../src/ovsdb/datum.js';
import { OvsdbError, TransactionError } from '../../src/ovsdb/errors.js';
import { decodeTransactResult, encodeTransact, type Operation } from '../../src/ovsdb/operations.js';
import { parseSchema } from '../../src/ovsdb/schema.js';

const NB = parseSchema(
  JSON.parse(readFileSync(new URL('./fixtures/ovn-nb.ovsschema', import.meta.url), 'utf8')),
);
const U1 = 'a46dd586-95c0-4c6d-a054-25eace872ae9';

describe('encodeTransact (RFC 7047 5.2)', () => {
  it('writes the static-route insert + mutate with a named-uuid, as the lab did', () => {
    const ops: Operation[] = [
      {
        op: 'insert',
        table: 'Logical_Router_Static_Route',
        uuidName: 'newroute',
        row: { ip_prefix: '198.51.100.0/24', nexthop: '172.24.4.253', external_ids: { owner: 'wire-probe' } },
      },
      {
        op: 'mutate',
        table: 'Logical_Router',
        where: [['name', '==', 'router1']],
        mutations: [['static_routes', 'insert', [namedUuid('newroute')]]],
      },
      { op: 'comment', comment: 'ovsdb-wire-probe' },
    ];
    expect(encodeTransact(NB, ops)).toEqual([
      'OVN_Northbound',
      {
        op: 'insert',
        table: 'Logical_Router_Static_Route',
        'uuid-name': 'newroute',
        row: {
          ip_prefix: '198.51.100.0/24',
          nexthop: '172.24.4.253',
          external_ids: ['map', [['owner', 'wire-probe']]],
        },
      },
      {
        op: 'mutate',
        table: 'Logical_Router',
        where: [['name', '==', 'router1']],
        mutations: [['static_routes', 'insert', ['set', [['named-uuid', 'newroute']]]]],
      },
      { op: 'comment', comment: 'ovsdb-wire-probe' },
    ]);
  });

  it('encodes where on _uuid, map key deletes, counters, wait, commit', () => {
    const [, del, keys, count, wait, commit] = encodeTransact(NB, [
      { op: 'delete', table: 'Logical_Router_Static_Route', where: [['_uuid', '==', U1]] },
      { op: 'mutate', table: 'Logical_Router', where: [], mutations: [['options', 'delete', ['chassis']]] },
      { op: 'mutate', table: 'NB_Global', where: [], mutations: [['nb_cfg', '+=', 1]] },
      {
        op: 'wait',
        table: 'Logical_Router',
        where: [['name', '==', 'r']],
        columns: ['name'],
        until: '==',
        rows: [{ name: 'r' }],
        timeout: 0,
      },
      { op: 'commit', durable: false },
    ]) as Record<string, unknown>[];
    expect(del.where).toEqual([['_uuid', '==', ['uuid', U1]]]);
    expect(keys.mutations).toEqual([['options', 'delete', ['set', ['chassis']]]]);
    expect(count.mutations).toEqual([['nb_cfg', '+=', 1]]);
    expect(wait).toMatchObject({ op: 'wait', rows: [{ name: 'r' }], timeout: 0, until: '==' });
    expect(commit).toEqual({ op: 'commit', durable: false });
  });

  it('names the table and column of a bad value', () => {
    expect(() =>
      encodeTransact(NB, [
        { op: 'insert', table: 'Logical_Router_Static_Route', row: { bfd: 'not-a-uuid' } },
      ]),
    ).toThrowError(/Logical_Router_Static_Route\.bfd.*expected uuid atom/);
    expect(() => encodeTransact(NB, [{ op: 'delete', table: 'NoSuch', where: [] }])).toThrowError(
      /no table NoSuch/,
    );
    expect(() =>
      encodeTransact(NB, [{ op: 'update', table: 'NAT', where: [], row: { no_such_column: 1 } }]),
    ).toThrowError(/no column no_such_column/);
  });
});

describe('decodeTransactResult', () => {
  const insertAndMutate: Operation[] = [
    { op: 'insert', table: 'Logical_Router_Static_Route', row: {}, uuidName: 'n' },
    { op: 'mutate', table: 'Logical_Router', where: [], mutations: [] },
  ];

  it('returns uuids by name and counts', () => {
    const r = decodeTransactResult(NB, insertAndMutate, [{ uuid: ['uuid', U1] }, { count: 1 }]);
    expect(r.uuids.get('n')).toBe(U1);
    expect(r.results).toEqual([
      { op: 'insert', uuid: U1 },
      { op: 'mutate', count: 1 },
    ]);
  });

  it('decodes select rows with the schema', () => {
    const r = decodeTransactResult(
      NB,
      [{ op: 'select', table: 'Logical_Router', where: [], columns: ['_uuid', 'name', 'static_routes'] }],
      [{ rows: [{ _uuid: ['uuid', U1], name: 'router1', static_routes: ['uuid', U1] }] }],
    );
    expect(r.results[0]).toEqual({
      op: 'select',
      rows: [{ _uuid: U1, name: 'router1', static_routes: [U1] }],
    });
  });

  const FAILURES: { name: string; result: unknown[]; opIndex: number; error: string }[] = [
    {
      name: 'a parse error with the untried op null',
      result: [
        { error: 'syntax error', details: 'Parsing ovsdb operation 1 of 2 failed: No table named NoSuch.' },
        null,
      ],
      opIndex: 0,
      error: 'syntax error',
    },
    {
      name: 'a runtime error of the second op',
      result: [{ uuid: ['uuid', U1] }, { error: 'timed out', details: '"where" clause test failed' }],
      opIndex: 1,
      error: 'timed out',
    },
    {
      name: 'a commit-time error as an extra element',
      result: [
        { uuid: ['uuid', U1] },
        { count: 1 },
        { error: 'constraint violation', details: 'Transaction causes multiple rows' },
      ],
      opIndex: -1,
      error: 'constraint violation',
    },
    {
      name: 'a referential integrity violation',
      result: [{ uuid: ['uuid', U1] }, { count: 1 }, { error: 'referential integrity violation' }],
      opIndex: -1,
      error: 'referential integrity violation',
    },
  ];
  for (const f of FAILURES) {
    it(`throws TransactionError for ${f.name}`, () => {
      try {
        decodeTransactResult(NB, insertAndMutate, f.result);
        expect.unreachable();
      } catch (err) {
        expect(err).toBeInstanceOf(TransactionError);
        const e = err as TransactionError;
        expect(e.kind).toBe('transaction-failed');
        expect(e.opIndex).toBe(f.opIndex);
        expect(e.error).toBe(f.error);
      }
    });
  }

  it('rejects results of the wrong shape', () => {
    expect(() => decodeTransactResult(NB, insertAndMutate, { a: 1 })).toThrowError(OvsdbError);
    expect(() => decodeTransactResult(NB, insertAndMutate, [{ uuid: ['uuid', U1] }])).toThrowError(
      /1 element/,
    );
    expect(() => decodeTransactResult(NB, insertAndMutate, [{ uuid: 'x' }, { count: 1 }])).toThrowError(
      /without uuid/,
    );
  });
});
