/*
 * The speaker with an ovn section against real ovsdb-servers and ovn-northd: OVN-derived
 * routes enter the RIB as paths of the `ovn` origin, show ovn names the OVN row of each, a
 * VM moving to another chassis changes the next hop in place, and a deleted FIP goes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTopology } from '../../frr-interop/capture/ovn-snapshot.js';
import type { Speaker } from '../../src/speaker/index.js';
import { speakerSection, startSpeaker, tempDir, until } from '../speaker/support.js';
import { NB_SCHEMA, nbctl, OvsdbLab, SB_SCHEMA, type ServerHandle, sbctl } from '../support/ovsdb-lab.js';

const FIP = '198.18.64.100/32';
let lab: OvsdbLab;
let nb: ServerHandle;
let sb: ServerHandle;
let speaker: Speaker;
const cleanups: (() => unknown)[] = [];

const ribPath = (prefix: string) => speaker.rib({ prefix })[0]?.paths.find((p) => p.best);

beforeAll(async () => {
  lab = OvsdbLab.create('speaker-ovn-');
  cleanups.push(() => lab.close());
  nb = await lab.startServer('nb', await lab.createDb('nb', NB_SCHEMA));
  sb = await lab.startServer('sb', await lab.createDb('sb', SB_SCHEMA));
  await nbctl(nb.unix, 'init');
  await sbctl(sb.unix, 'init');
  await lab.startNorthd(nb.unix, sb.unix);
  await buildTopology(nb.unix, sb.unix);
  const t = tempDir();
  cleanups.push(t.cleanup);
  speaker = await startSpeaker({
    speaker: speakerSection(t.dir),
    routes: [{ prefix: '198.18.64.101/32', next_hop: '198.18.0.99' }],
    ovn: {
      nb: nb.unix,
      sb: sb.unix,
      coalesce_ms: 10,
      routes: { floating_ips: { communities: ['65000:101'] } },
    },
  });
  cleanups.push(() => speaker.close());
  await until(
    () => {
      speaker.flush();
      return ribPath(FIP) !== undefined;
    },
    'the distributed FIP in the RIB',
    15_000,
  );
}, 60_000);

afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

describe('the speaker publishing OVN routes', () => {
  it('puts OVN routes in the RIB as the ovn origin, with the chassis as next hop and the kind’s communities', () => {
    expect(ribPath(FIP)).toMatchObject({ from: 'ovn', nextHop: '198.18.100.12', communities: ['65000:101'] });
    const view = speaker.ovn()!;
    const route = view.routes.find((r) => r.prefix === FIP)!;
    expect(route).toMatchObject({
      kind: 'floating-ip',
      nextHop: '198.18.100.12',
      origin: { db: 'nb', table: 'NAT' },
    });
    expect(route.why).toMatch(/hv1/);
    expect(view.mode).toMatch(/synced/);
    // show rib names the same row and reason on the ovn path.
    expect(ribPath(FIP)?.ovn).toEqual({ kind: 'floating-ip', origin: route.origin, why: route.why });
  });

  it('a static route for an OVN-derived prefix is a second path, and wins by origin preference', () => {
    const paths = speaker.rib({ prefix: '198.18.64.101/32' })[0]!.paths;
    expect(paths.map((p) => `${p.from}${p.best ? '*' : ''}`).sort()).toEqual(['ovn', 'static*']);
  });

  it('a VM bound to another chassis moves the next hop in place, and a deleted FIP is withdrawn', async () => {
    await sbctl(sb.unix, 'lsp-unbind', 'vm1', '--', 'lsp-bind', 'vm1', 'hv2');
    await until(
      () => {
        speaker.flush();
        return ribPath(FIP)?.nextHop === '198.18.100.13';
      },
      'the FIP via hv2',
      10_000,
    );
    expect(speaker.rib({ prefix: FIP })[0]!.paths).toHaveLength(1);
    await nbctl(nb.unix, 'lr-nat-del', 'router1', 'dnat_and_snat', '198.18.64.100');
    await until(
      () => {
        speaker.flush();
        return ribPath(FIP) === undefined;
      },
      'the FIP withdrawn',
      10_000,
    );
  });
});
