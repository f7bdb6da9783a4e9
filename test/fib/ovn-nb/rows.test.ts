/* Which rows are ours (the mark), what prefix they route, and whether we would write them so. */
import { describe, expect, it } from 'vitest';
import {
  findRouter,
  OvnNbError,
  OwnedRoutes,
  ovnIpPrefix,
  ownedRow,
  parseIpPrefixColumn,
  routeKey,
} from '../../../src/fib/ovn-nb/index.js';
import type { Row } from '../../../src/ovsdb/index.js';
import { parsePrefix } from '../../../src/rib/index.js';
import { lrsr, MARK_KEY, ME, ours, SETTINGS, theirs } from './support.js';

const U = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

describe('prefix text', () => {
  it.each([
    ['198.18.1.0/24', '198.18.1.0/24', '198.18.1.0/24'],
    ['198.18.1.7/32', '198.18.1.7/32', '198.18.1.7'],
    ['2001:db8:0:1::/64', '2001:db8:0:1::/64', '2001:db8:0:1::/64'],
    ['2001:db8::7/128', '2001:db8::7/128', '2001:db8::7'],
    ['0.0.0.0/0', '0.0.0.0/0', '0.0.0.0/0'],
  ])('%s: key %s, ip_prefix %s (as ovn-nbctl writes it)', (text, key, ip) => {
    const p = parsePrefix(text);
    expect(routeKey(p)).toBe(key);
    expect(ovnIpPrefix(p)).toBe(ip);
  });

  it.each([
    ['198.18.1.7', '198.18.1.7/32'],
    ['198.18.1.7/32', '198.18.1.7/32'],
    ['198.18.1.9/24', '198.18.1.0/24'],
    ['2001:DB8::7', '2001:db8::7/128'],
  ])('reads ip_prefix %s as %s', (text, key) => {
    expect(routeKey(parseIpPrefixColumn(text)!)).toBe(key);
  });

  it.each(['', 'nonsense', '198.18.1.0/33', '2001:db8::/129', '198.18.1/24'])('%j is no prefix', (text) => {
    expect(parseIpPrefixColumn(text)).toBeNull();
  });
});

describe('ownedRow: the mark decides, exactness decides replacement', () => {
  const base = { ip_prefix: '198.18.1.0/24', nexthop: '198.18.0.1' };

  it('a row without the mark, or with another speaker name, is not ours', () => {
    expect(ownedRow(lrsr(U(1), base), SETTINGS)).toBeNull();
    expect(ownedRow(lrsr(U(2), { ...base, external_ids: theirs }), SETTINGS)).toBeNull();
    expect(ownedRow(lrsr(U(3), { ...base, external_ids: { other: ME } }), SETTINGS)).toBeNull();
  });

  it('our row as we write it is exact', () => {
    expect(ownedRow(lrsr(U(4), { ...base, external_ids: ours }), SETTINGS)).toEqual({
      uuid: U(4),
      key: '198.18.1.0/24',
      nexthop: '198.18.0.1',
      exact: true,
    });
    // Other external_ids keys beside the mark do not matter; an explicit dst-ip is the default.
    const extra = lrsr(U(5), { ...base, policy: 'dst-ip', external_ids: { ...ours, note: 'x' } });
    expect(ownedRow(extra, SETTINGS)?.exact).toBe(true);
  });

  it.each([
    ['another route table', { route_table: 'rtb-fo' }],
    ['an output port', { output_port: 'lrp-fo' }],
    ['policy src-ip', { policy: 'src-ip' }],
    ['a /32 written with its length', { ip_prefix: '198.18.1.7/32' }],
  ])('ours but with %s: not exact (replaced)', (_name, extra) => {
    const row = ownedRow(lrsr(U(6), { ...base, ...extra, external_ids: ours }), SETTINGS);
    expect(row?.exact).toBe(false);
  });

  it('exactness follows the settings', () => {
    const row = lrsr(U(7), { ...base, route_table: 'rtb-fo', output_port: 'lrp-fo', external_ids: ours });
    expect(ownedRow(row, { ...SETTINGS, routeTable: 'rtb-fo', outputPort: 'lrp-fo' })?.exact).toBe(true);
  });

  it('an ip_prefix that is no prefix gets a key no route has', () => {
    const row = ownedRow(
      lrsr(U(8), { ip_prefix: 'bogus', nexthop: '198.18.0.1', external_ids: ours }),
      SETTINGS,
    );
    expect(row).toMatchObject({ key: '!bogus', exact: false });
  });
});

describe('findRouter', () => {
  const router = (uuid: string, name: string, extra: Record<string, unknown> = {}): [string, Row] => [
    uuid,
    { _uuid: uuid, name, static_routes: [], _version: U(99), ...extra } as Row,
  ];

  it('finds the one router of that name', () => {
    const rows = new Map([router(U(1), 'fo-r1'), router(U(2), 'fo-r2')]);
    expect(findRouter(rows, 'fo-r2')).toEqual({ uuid: U(2), version: U(99), routes: [] });
  });

  it.each([
    ['no-router', new Map([router(U(1), 'fo-r1')])],
    ['ambiguous-router', new Map([router(U(1), 'fo-r2'), router(U(2), 'fo-r2')])],
    ['not-monitored', new Map([router(U(1), 'fo-r2', { _version: undefined })])],
  ])('%s', (kind, rows) => {
    let error: unknown;
    try {
      findRouter(rows, 'fo-r2');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(OvnNbError);
    expect((error as OvnNbError).kind).toBe(kind);
    expect((error as Error).message).toContain('fo-r2');
  });
});

describe('OwnedRoutes: our rows on our router, by prefix', () => {
  it('counts only rows with our mark that the router holds', () => {
    const index = new OwnedRoutes(SETTINGS);
    const rows = new Map<string, Row>([
      [U(1), lrsr(U(1), { ip_prefix: '198.18.1.0/24', nexthop: '198.18.0.1', external_ids: ours })],
      [U(2), lrsr(U(2), { ip_prefix: '198.18.1.0/24', nexthop: '198.18.0.2', external_ids: ours })],
      [U(3), lrsr(U(3), { ip_prefix: '198.18.1.0/24', nexthop: '198.18.0.3' })],
      [U(4), lrsr(U(4), { ip_prefix: '198.18.1.0/24', nexthop: '198.18.0.4', external_ids: theirs })],
      // Ours, but on another router.
      [U(5), lrsr(U(5), { ip_prefix: '198.18.2.0/24', nexthop: '198.18.0.5', external_ids: ours })],
    ]);
    index.load(rows);
    const onRouter = [U(1), U(2), U(3), U(4)];
    expect(index.on('198.18.1.0/24', onRouter).map((r) => r.uuid)).toEqual([U(1), U(2)]);
    expect(index.keysOn(onRouter)).toEqual(['198.18.1.0/24']);
    expect(index.countOn(onRouter)).toBe(2);
    expect(index.on('198.18.2.0/24', onRouter)).toEqual([]);
    expect(index.on('198.18.2.0/24', [...onRouter, U(5)]).map((r) => r.uuid)).toEqual([U(5)]);
  });

  it('follows row changes: a moved prefix, a lost mark, a deleted row', () => {
    const index = new OwnedRoutes(SETTINGS);
    const on = [U(1), U(2)];
    index.update(U(1), lrsr(U(1), { ip_prefix: '198.18.1.0/24', nexthop: '198.18.0.1', external_ids: ours }));
    index.update(U(2), lrsr(U(2), { ip_prefix: '198.18.1.0/24', nexthop: '198.18.0.2', external_ids: ours }));
    index.update(U(1), lrsr(U(1), { ip_prefix: '198.18.3.0/24', nexthop: '198.18.0.1', external_ids: ours }));
    expect(index.on('198.18.1.0/24', on).map((r) => r.uuid)).toEqual([U(2)]);
    expect(index.on('198.18.3.0/24', on).map((r) => r.uuid)).toEqual([U(1)]);
    index.update(U(2), lrsr(U(2), { ip_prefix: '198.18.1.0/24', nexthop: '198.18.0.2', external_ids: {} }));
    index.update(U(1), null);
    expect(index.keysOn(on)).toEqual([]);
    expect(index.countOn(on)).toBe(0);
  });

  it('uses the configured mark key', () => {
    const index = new OwnedRoutes({ ...SETTINGS, markKey: 'fo-owner' });
    index.update(U(1), lrsr(U(1), { ip_prefix: '198.18.1.0/24', nexthop: '198.18.0.1', external_ids: ours }));
    index.update(
      U(2),
      lrsr(U(2), { ip_prefix: '198.18.1.0/24', nexthop: '198.18.0.2', external_ids: { 'fo-owner': ME } }),
    );
    expect(index.on('198.18.1.0/24', [U(1), U(2)]).map((r) => r.uuid)).toEqual([U(2)]);
    expect(MARK_KEY).not.toBe('fo-owner');
  });
});
