/**
 * The lab reaches today's software: OVN 25.03's own dynamic routing, FRR 10.3 as the fabric,
 * every daemon from the trixie root (scripts/trixie-root.sh builds it on a machine that has
 * none). What OVN does here is what the speaker's per-chassis mode stands on: northd fills SB
 * Advertised_Route, ovn-controller on the chassis that holds the gateway port installs it into
 * the router's table (its datapath tunnel key) as protocol-84 blackholes, metric 100 where the
 * tracked port is bound here and 1000 elsewhere, and a route with a gateway that somebody else
 * puts into that table becomes an SB Learned_Route row.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../frr-interop/lab/index.js';
import { eventually } from '../speaker/lab-speaker.js';
import { FABRIC, OvnDrLab } from './support/ovn-dr-lab.js';

const WAIT_MS = 20_000;

describe('OVN 25.03 dynamic routing and FRR 10.3 from the trixie root', () => {
  let lab: OvnDrLab;
  let table: number;

  beforeAll(async () => {
    lab = await OvnDrLab.create({ id: 'lab', chassis: 2 });
    table = await lab.tableOf('lr0');
  }, 600_000);

  afterAll(async () => {
    await lab?.destroy();
  });

  it('runs OVN 25.03 and FRR 10.3', async () => {
    expect(await lab.nbctl('--version')).toMatch(/^ovn-nbctl 25\.03\./);
    expect(await lab.fabric.vtysh(['show version'])).toMatch(/FRRouting 10\.3/);
  });

  it('ovn-controller installs the advertised routes into the router table of the gateway chassis only', async () => {
    const wanted = await lab.advertisedPrefixes();
    // Connected networks, the FIP, the LB VIP and the static route, both families.
    expect(wanted).toEqual([
      '198.18.171.0/24',
      '198.18.171.10',
      '198.18.171.20',
      '198.18.190.0/24',
      '198.19.71.0/24',
      '2001:db8:171::/64',
      '2001:db8:171::10',
      '2001:db8:171::20',
      '2001:db8:190::/64',
      '2001:db8:71::/64',
    ]);
    const routes = await eventually(
      async () => {
        const r = (await lab.tableRoutes(1, table)).filter((l) => l.includes('proto 84'));
        return r.length === wanted.length ? r : undefined;
      },
      'hv1 table filled',
      WAIT_MS,
    );
    const metric = (prefix: string) =>
      routes.find((l) => l.startsWith(`blackhole ${prefix} `))?.match(/metric (\d+)/)?.[1];
    // The NAT and LB addresses track the gateway port, bound here: 100; the rest 1000.
    expect(metric('198.18.171.10')).toBe('100');
    expect(metric('2001:db8:171::20')).toBe('100');
    expect(metric('198.18.171.0/24')).toBe('1000');
    expect(metric('2001:db8:190::/64')).toBe('1000');
    expect(await lab.tableRoutes(2, table)).toEqual([]);
  });

  it('a route with a gateway in the table becomes a Learned_Route row, and leaves with it', async () => {
    const add = ['ip', '-n', lab.chassisNs(1), 'route', 'add', '198.18.181.0/24', 'via', FABRIC.ipv4];
    await run([...add, 'table', String(table), 'proto', 'bgp']);
    await eventually(
      async () =>
        (await lab.learnedRoutes()).some((r) => r.prefix === '198.18.181.0/24' && r.nextHop === FABRIC.ipv4)
          ? true
          : undefined,
      'Learned_Route row for 198.18.181.0/24',
      WAIT_MS,
    );
    await run([
      'ip',
      '-n',
      lab.chassisNs(1),
      'route',
      'del',
      '198.18.181.0/24',
      'table',
      String(table),
      'proto',
      'bgp',
    ]);
    await eventually(
      async () =>
        (await lab.learnedRoutes()).some((r) => r.prefix === '198.18.181.0/24') ? undefined : true,
      'Learned_Route row gone',
      WAIT_MS,
    );
  });
});
