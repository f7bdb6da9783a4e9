import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { prepareMonitor } from '../../src/ovsdb/monitor.js';
import { parseColumnType, parseSchema } from '../../src/ovsdb/schema.js';

const read = (f: string) => JSON.parse(readFileSync(new URL(`./fixtures/${f}`, import.meta.url), 'utf8'));

describe('parseSchema with the OVN 23.03 schemas', () => {
  it('reads OVN_Northbound 7.0.0 and OVN_Southbound 20.27.0', () => {
    const nb = parseSchema(read('ovn-nb.ovsschema'));
    const sb = parseSchema(read('ovn-sb.ovsschema'));
    expect([nb.name, nb.version, nb.tables.size]).toEqual(['OVN_Northbound', '7.0.0', 30]);
    expect([sb.name, sb.version, sb.tables.size]).toEqual(['OVN_Southbound', '20.27.0', 34]);
  });

  it('gets the column types the route derivation relies on', () => {
    const nb = parseSchema(read('ovn-nb.ovsschema'));
    const sb = parseSchema(read('ovn-sb.ovsschema'));
    const kind = (db: typeof nb, t: string, c: string) => db.tables.get(t)?.columns.get(c)?.kind;
    expect(kind(nb, 'NAT', 'type')).toBe('scalar');
    expect(kind(nb, 'NAT', 'logical_port')).toBe('optional');
    expect(kind(nb, 'NAT', 'gateway_port')).toBe('optional');
    expect(kind(nb, 'Logical_Router', 'static_routes')).toBe('set');
    expect(kind(nb, 'Logical_Router', 'options')).toBe('map');
    expect(kind(nb, 'Logical_Router_Port', 'networks')).toBe('set');
    expect(nb.tables.get('Logical_Router_Port')?.columns.get('networks')?.min).toBe(1);
    expect(kind(sb, 'Port_Binding', 'chassis')).toBe('optional');
    expect(sb.tables.get('Port_Binding')?.columns.get('chassis')?.key).toMatchObject({
      type: 'uuid',
      refTable: 'Chassis',
      refType: 'weak',
    });
    expect(kind(sb, 'Port_Binding', 'datapath')).toBe('scalar');
    expect(kind(sb, 'Chassis', 'encaps')).toBe('set');
    expect(nb.tables.get('NAT')?.columns.has('_uuid')).toBe(true);
  });

  it('rejects bad type text with a clear error', () => {
    expect(() => parseColumnType('int')).toThrowError(/unknown atomic type/);
    expect(() => parseColumnType({ key: 'string', min: 2 })).toThrowError(/min must be 0 or 1/);
    expect(() => parseColumnType({ key: 'string', max: 0 })).toThrowError(/bad max/);
    expect(() => parseSchema({ name: 'x' })).toThrowError(/bad database schema/);
  });
});

describe('prepareMonitor', () => {
  const nb = parseSchema(read('ovn-nb.ovsschema'));
  it('asks for all user columns by default and encodes conditions', () => {
    const p = prepareMonitor(nb, {
      NAT: { where: [['type', '==', 'dnat_and_snat']] },
      Logical_Router: { columns: ['name', 'nat'] },
      Load_Balancer: { where: false },
    });
    const nat = p.requests.NAT[0] as { columns: string[]; where: unknown };
    expect(nat.columns).toContain('external_ip');
    expect(nat.columns).not.toContain('_uuid');
    expect(nat.where).toEqual([['type', '==', 'dnat_and_snat']]);
    expect(p.requests.Logical_Router).toEqual([{ columns: ['name', 'nat'] }]);
    expect(p.requests.Load_Balancer).toEqual([expect.objectContaining({ where: [false] })]);
  });
  it('leaves out what an older server lacks, and says so', () => {
    const p = prepareMonitor(nb, { NAT: { columns: ['type', 'shiny_new'] }, Future_Table: {} });
    expect(p.missing).toEqual(['NAT.shiny_new', 'Future_Table']);
    expect([...p.codecs.keys()]).toEqual(['NAT']);
  });
});
