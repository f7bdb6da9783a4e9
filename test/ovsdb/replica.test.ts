import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EMPTY_MAP } from '../../src/ovsdb/datum.js';
import { OvsdbError } from '../../src/ovsdb/errors.js';
import { prepareMonitor } from '../../src/ovsdb/monitor.js';
import { Replica } from '../../src/ovsdb/replica.js';
import type { Row } from '../../src/ovsdb/rows.js';
import { type DatabaseSchema, parseSchema } from '../../src/ovsdb/schema.js';
import { type PlainRow, tableUpdates2 } from './server-model.js';

const load = (f: string): DatabaseSchema =>
  parseSchema(JSON.parse(readFileSync(new URL(`./fixtures/${f}`, import.meta.url), 'utf8')));
const NB = load('ovn-nb.ovsschema');
const SB = load('ovn-sb.ovsschema');

const LR = '21a8892f-0000-4000-8000-000000000001';
const R1 = 'a46dd586-95c0-4c6d-a054-25eace872ae9';
const R2 = '5dd159d5-0000-4000-8000-000000000002';
const PB = '9c0876fb-0000-4000-8000-000000000010';
const HV1 = '0f1e2d3c-0000-4000-8000-000000000021';
const HV2 = '0f1e2d3c-0000-4000-8000-000000000022';
const DP = '3038871d-0000-4000-8000-000000000031';

function nbReplica(): Replica {
  return new Replica(
    prepareMonitor(NB, { Logical_Router: {}, Logical_Router_Static_Route: {}, NAT: {} }).codecs,
  );
}
function sbReplica(): Replica {
  return new Replica(prepareMonitor(SB, { Port_Binding: {} }).codecs);
}

describe('Replica.applyUpdate2 with the wire shapes seen from ovsdb-server 3.1', () => {
  it('fills columns left out at their default, and reads a set of one sent bare', () => {
    const r = nbReplica();
    const changes = r.applyUpdate2({
      Logical_Router: { [LR]: { insert: { name: 'router1', static_routes: ['uuid', R1] } } },
    });
    expect(changes).toHaveLength(1);
    const row = r.table('Logical_Router').get(LR) as Row;
    expect(changes[0]).toEqual({ table: 'Logical_Router', uuid: LR, old: null, new: row });
    expect(row.name).toBe('router1');
    expect(row.static_routes).toEqual([R1]);
    expect(row.nat).toEqual([]);
    expect(row.options).toBe(EMPTY_MAP);
    expect(row.enabled).toBeNull();
    expect(Object.isFrozen(row)).toBe(true);
  });

  it('toggles set elements on modify: a route added, then removed', () => {
    const r = nbReplica();
    r.applyUpdate2({
      Logical_Router: { [LR]: { insert: { name: 'router1', static_routes: ['uuid', R1] } } },
    });
    r.applyUpdate2({
      Logical_Router_Static_Route: {
        [R2]: { insert: { ip_prefix: '198.51.100.0/24', nexthop: '172.24.4.253' } },
      },
      Logical_Router: { [LR]: { modify: { static_routes: ['uuid', R2] } } },
    });
    expect(r.table('Logical_Router').get(LR)?.static_routes).toEqual([R1, R2]);
    const changes = r.applyUpdate2({
      Logical_Router_Static_Route: { [R2]: { delete: null } },
      Logical_Router: { [LR]: { modify: { static_routes: ['uuid', R2] } } },
    });
    expect(r.table('Logical_Router').get(LR)?.static_routes).toEqual([R1]);
    expect(r.table('Logical_Router_Static_Route').has(R2)).toBe(false);
    const del = changes.find((c) => c.table === 'Logical_Router_Static_Route');
    expect(del?.new).toBeNull();
    expect(del?.old?.ip_prefix).toBe('198.51.100.0/24');
  });

  it('optional columns take the new value; maps drop a key sent with its current value', () => {
    const r = sbReplica();
    r.applyUpdate2({
      Port_Binding: {
        [PB]: {
          initial: {
            logical_port: 'vm1',
            datapath: ['uuid', DP],
            chassis: ['uuid', HV1],
            up: true,
            tunnel_key: 2,
            mac: '50:54:00:00:01:10 10.0.1.10',
            options: ['map', [['new-key', '1']]],
          },
        },
      },
    });
    const before = r.table('Port_Binding').get(PB) as Row;
    expect(before.mac).toEqual(['50:54:00:00:01:10 10.0.1.10']);
    expect(before.type).toBe('');
    r.applyUpdate2({
      Port_Binding: {
        [PB]: {
          modify: {
            chassis: ['uuid', HV2],
            up: ['set', []],
            options: ['map', [['new-key', '1']]],
            nat_addresses: ['set', ['a 1.1.1.1', 'b 2.2.2.2']],
          },
        },
      },
    });
    const after = r.table('Port_Binding').get(PB) as Row;
    expect(after.chassis).toBe(HV2);
    expect(after.up).toBeNull();
    expect(after.options).toBe(EMPTY_MAP);
    expect(after.nat_addresses).toEqual(['a 1.1.1.1', 'b 2.2.2.2']);
    expect(after.datapath).toBe(DP);
    // The row objects handed out before are never changed.
    expect(before.chassis).toBe(HV1);
    // nat_addresses changing one string lists both the old and the new one.
    r.applyUpdate2({
      Port_Binding: { [PB]: { modify: { nat_addresses: ['set', ['a 1.1.1.1', 'c 3.3.3.3']] } } },
    });
    expect(r.table('Port_Binding').get(PB)?.nat_addresses).toEqual(['b 2.2.2.2', 'c 3.3.3.3']);
  });

  const BAD: { name: string; update: unknown }[] = [
    { name: 'modify of a row we do not have', update: { NAT: { [R2]: { modify: { external_ip: 'x' } } } } },
    { name: 'delete of a row we do not have', update: { NAT: { [R2]: { delete: null } } } },
    { name: 'insert of a row we have', update: { Logical_Router: { [LR]: { insert: {} } } } },
    { name: 'a table not monitored', update: { ACL: { [R2]: { insert: {} } } } },
    { name: 'a row key that is not a uuid', update: { NAT: { 'not-a-uuid': { insert: {} } } } },
    { name: 'two operations for one row', update: { NAT: { [R2]: { insert: {}, delete: null } } } },
    { name: 'an unknown operation', update: { NAT: { [R2]: { upsert: {} } } } },
    { name: 'a bad datum', update: { NAT: { [R2]: { insert: { external_ip: 5 } } } } },
    { name: 'not an object', update: ['NAT'] },
  ];
  for (const bad of BAD) {
    it(`rejects ${bad.name} and leaves the replica untouched`, () => {
      const r = nbReplica();
      r.applyUpdate2({ Logical_Router: { [LR]: { insert: { name: 'router1' } } } });
      const good = { Logical_Router_Static_Route: { [R1]: { insert: { ip_prefix: '10.0.0.0/8' } } } };
      const update =
        typeof bad.update === 'object' && !Array.isArray(bad.update)
          ? { ...good, ...bad.update }
          : bad.update;
      let error: unknown;
      try {
        r.applyUpdate2(update);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(OvsdbError);
      expect((error as OvsdbError).kind === 'bad-update' || (error as OvsdbError).kind === 'bad-datum').toBe(
        true,
      );
      expect(r.table('Logical_Router_Static_Route').size).toBe(0);
      expect(r.rowCount).toBe(1);
    });
  }
});

describe('Replica.applyUpdate (original monitor, old/new rows)', () => {
  it('inserts, modifies with full new values, and deletes', () => {
    const r = nbReplica();
    r.applyUpdate({
      Logical_Router: {
        [LR]: {
          new: {
            name: 'r',
            static_routes: [
              'set',
              [
                ['uuid', R1],
                ['uuid', R2],
              ],
            ],
          },
        },
      },
    });
    r.applyUpdate({
      Logical_Router: { [LR]: { old: { name: 'r' }, new: { name: 's', static_routes: ['uuid', R1] } } },
    });
    expect(r.table('Logical_Router').get(LR)?.static_routes).toEqual([R1]);
    expect(r.table('Logical_Router').get(LR)?.name).toBe('s');
    const changes = r.applyUpdate({ Logical_Router: { [LR]: { old: { name: 's' } } } });
    expect(changes[0].new).toBeNull();
    expect(r.table('Logical_Router').size).toBe(0);
  });
});

describe('Replica.resync (full snapshot after a reconnect)', () => {
  it('reports only real differences and keeps equal rows as the same objects', () => {
    const r = nbReplica();
    r.applyUpdate2({
      Logical_Router: { [LR]: { initial: { name: 'router1', static_routes: ['uuid', R1] } } },
      Logical_Router_Static_Route: {
        [R1]: { initial: { ip_prefix: '10.0.0.0/8', nexthop: '1.1.1.1' } },
        [R2]: { initial: { ip_prefix: '10.1.0.0/16', nexthop: '1.1.1.1' } },
      },
    });
    const keep = r.table('Logical_Router').get(LR);
    const changes = r.resync({
      Logical_Router: { [LR]: { initial: { name: 'router1', static_routes: ['uuid', R1] } } },
      Logical_Router_Static_Route: { [R1]: { initial: { ip_prefix: '10.0.0.0/8', nexthop: '2.2.2.2' } } },
      NAT: { [PB]: { initial: { type: 'snat', external_ip: '172.24.4.1', logical_ip: '10.0.1.0/24' } } },
    });
    const summary = changes
      .map((c) => `${c.table}:${c.old ? (c.new ? 'modify' : 'delete') : 'insert'}`)
      .sort();
    expect(summary).toEqual([
      'Logical_Router_Static_Route:delete',
      'Logical_Router_Static_Route:modify',
      'NAT:insert',
    ]);
    expect(r.table('Logical_Router').get(LR)).toBe(keep);
    expect(r.table('Logical_Router_Static_Route').get(R1)?.nexthop).toBe('2.2.2.2');
  });

  it('an identical snapshot gives no change at all', () => {
    const r = nbReplica();
    const snapshot = {
      Logical_Router: { [LR]: { initial: { name: 'router1', options: ['map', [['a', 'b']]] } } },
    };
    expect(r.resync(snapshot)).toHaveLength(1);
    expect(r.resync(snapshot)).toEqual([]);
  });

  it('rejects a snapshot with rows that are not initial', () => {
    expect(() => nbReplica().resync({ Logical_Router: { [LR]: { modify: {} } } })).toThrowError(
      /not an initial row/,
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Property: through any history of states, replica == state, and resync yields exactly the diff.

const LR_COLUMNS = ['name', 'enabled', 'static_routes', 'options'] as const;
const LR_TABLE = NB.tables.get('Logical_Router')!;
const POOL = [R1, R2, HV1, HV2, DP];

const rowArb = fc.record({
  name: fc.constantFrom('', 'r1', 'r2', 'x y'),
  enabled: fc.constantFrom(null, true, false),
  static_routes: fc.uniqueArray(fc.constantFrom(...POOL), { maxLength: 4 }),
  options: fc
    .uniqueArray(fc.tuple(fc.constantFrom('a', 'b', 'chassis'), fc.constantFrom('', '1', 'gw1')), {
      selector: ([k]) => k,
    })
    .map((pairs) => new Map<string, string>(pairs)),
});
const stateArb = fc
  .uniqueArray(fc.tuple(fc.constantFrom(LR, PB, R1, R2), rowArb), { selector: ([u]) => u, maxLength: 4 })
  .map((entries) => new Map<string, PlainRow>(entries as [string, PlainRow][]));

function sameAsState(r: Replica, state: ReadonlyMap<string, PlainRow>): void {
  const rows = r.table('Logical_Router');
  expect([...rows.keys()].sort()).toEqual([...state.keys()].sort());
  const codec = r.codec('Logical_Router')!;
  for (const [uuid, want] of state) {
    const got = rows.get(uuid) as Row;
    expect(codec.equals(got, { _uuid: uuid, ...want } as Row)).toBe(true);
  }
}

describe('property: replicas follow any history exactly', () => {
  it('update2 diffs take the replica through every state', () => {
    fc.assert(
      fc.property(fc.array(stateArb, { minLength: 1, maxLength: 6 }), (states) => {
        const r = new Replica(prepareMonitor(NB, { Logical_Router: { columns: [...LR_COLUMNS] } }).codecs);
        let prev = new Map<string, PlainRow>();
        for (const state of states) {
          const changes = r.applyUpdate2(tableUpdates2(LR_TABLE, LR_COLUMNS, prev, state));
          for (const c of changes) {
            expect(c.old === null ? undefined : c.old._uuid).toBe(prev.has(c.uuid) ? c.uuid : undefined);
            expect(c.new === null).toBe(!state.has(c.uuid));
          }
          sameAsState(r, state);
          prev = state;
        }
      }),
      { numRuns: 200 },
    );
  });

  it('resync from any state to any other reports exactly the rows that differ', () => {
    fc.assert(
      fc.property(stateArb, stateArb, (from, to) => {
        const r = new Replica(prepareMonitor(NB, { Logical_Router: { columns: [...LR_COLUMNS] } }).codecs);
        r.applyUpdate2(tableUpdates2(LR_TABLE, LR_COLUMNS, new Map(), from));
        const snapshot = tableUpdates2(LR_TABLE, LR_COLUMNS, new Map(), to);
        const changes = r.resync(snapshot);
        const expected = tableUpdates2(LR_TABLE, LR_COLUMNS, from, to).Logical_Router ?? {};
        expect(changes.map((c) => c.uuid).sort()).toEqual(Object.keys(expected).sort());
        sameAsState(r, to);
      }),
      { numRuns: 300 },
    );
  });
});
