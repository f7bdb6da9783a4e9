import { afterEach, describe, expect, it } from 'vitest';
import { formatIpv4, parseIpv4 } from '../../src/address/index.js';
import { CeaseSubcode } from '../../src/bgp/wire/constants.js';
import { ConfigStore, parseConfig } from '../../src/config/index.js';
import { Speaker } from '../../src/speaker/index.js';
import {
  ACCEPT_ALL,
  Probe,
  probePeer,
  SPEAKER_AS,
  speakerSection,
  tempDir,
  until,
  yamlOf,
} from './support.js';

// Reloads (SIGHUP) applied to a running speaker: each change touches only what it concerns.

let cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

async function probe(n: number, as: number) {
  const p = await Probe.start(`127.0.0.${n}`, as, `198.18.0.${10 + n}`);
  cleanups.push(() => p.close());
  return p;
}

/** A speaker whose file is a variable: `write` changes it, `reload` is what SIGHUP does. */
async function reloadable(doc: Record<string, unknown>) {
  const t = tempDir();
  cleanups.push(t.cleanup);
  const speakerDoc = speakerSection(t.dir);
  let text = yamlOf({ ...doc, speaker: speakerDoc });
  const store = ConfigStore.open('speaker.yaml', { load: (f) => parseConfig(text, { file: f }) });
  const speaker = await Speaker.start(store.config);
  cleanups.push(() => speaker.close());
  return {
    speaker,
    write(next: Record<string, unknown>) {
      text = yamlOf({ ...next, speaker: speakerDoc });
    },
    writeText(raw: string) {
      text = raw;
    },
    async reload() {
      await speaker.reload(store.reload());
    },
  };
}

const policies = {
  all: ACCEPT_ALL,
  tag: { statements: [{ set: { communities: { add: ['65000:1'] } }, action: 'accept' }] },
};
const community = (a: number, b: number) => ((a << 16) | b) >>> 0;

describe('reload', () => {
  it('adding and removing a peer never resets the others; routes follow the file', async () => {
    const a = await probe(2, 65001);
    const b = await probe(3, 65002);
    const base = {
      peers: [probePeer(a, { import: ['all'], export: ['all'] })],
      routes: [{ prefix: '198.18.110.0/24' }, { prefix: '198.18.111.0/24' }],
      policies,
    };
    const r = await reloadable(base);
    await until(() => a.established && a.table().size === 2, 'a up with both routes');

    r.write({ ...base, peers: [...base.peers, probePeer(b, { import: ['all'], export: ['all'] })] });
    await r.reload();
    await until(() => b.established && b.table().size === 2, 'b added and up');
    b.announce(['198.18.120.0/24']);
    await until(() => a.table().has('198.18.120.0/24'), 'b’s route at a');

    // Remove b, drop one static route, add another.
    r.write({ ...base, routes: [{ prefix: '198.18.110.0/24' }, { prefix: '198.18.112.0/24' }] });
    await r.reload();
    await until(() => b.rec.notifications.length === 1, 'b told it is de-configured');
    expect(b.rec.notifications[0]).toMatchObject({ code: 6, subcode: CeaseSubcode.PEER_DE_CONFIGURED });
    await until(
      () => !a.table().has('198.18.111.0/24') && a.table().has('198.18.112.0/24'),
      'the routes changed at a',
    );
    await until(() => !a.table().has('198.18.120.0/24'), 'b’s route gone at a');
    expect([...a.table().keys()].sort()).toEqual(['198.18.110.0/24', '198.18.112.0/24']);
    // a kept its one session all along.
    expect(a.rec.notifications).toEqual([]);
    expect(a.rec.established).toHaveLength(1);
    expect(r.speaker.summary().neighbors.map((n) => n.name)).toEqual(['p2']);
  });

  it('a file that does not load keeps the running configuration', async () => {
    const a = await probe(2, 65001);
    const base = {
      peers: [probePeer(a, { export: ['all'] })],
      routes: [{ prefix: '198.18.130.0/24' }],
      policies,
    };
    const r = await reloadable(base);
    await until(() => a.table().has('198.18.130.0/24'), 'the route at a');
    r.writeText('speaker: { local_as: "not a number" }\npeers: [');
    await r.reload();
    r.write({ ...base, peers: [{ ...base.peers[0], export: ['no-such-policy'] }] });
    await r.reload();
    expect(r.speaker.config.peers[0]!.export).toEqual(['all']);
    expect(a.table().has('198.18.130.0/24')).toBe(true);
    expect(a.rec.notifications).toEqual([]);
  });

  it('a changed export policy is applied to what was sent (soft out), the session stays up', async () => {
    const a = await probe(2, 65001);
    const base = {
      peers: [probePeer(a, { export: ['all'] })],
      routes: [{ prefix: '198.18.140.0/24' }],
      policies,
    };
    const r = await reloadable(base);
    await until(() => a.table().has('198.18.140.0/24'), 'the route at a');
    expect(a.table().get('198.18.140.0/24')!.communities).toBeUndefined();
    r.write({ ...base, peers: [probePeer(a, { export: ['tag'] })] });
    await r.reload();
    await until(() => a.table().get('198.18.140.0/24')!.communities !== undefined, 'the community at a');
    expect(a.table().get('198.18.140.0/24')!.communities).toEqual([community(65000, 1)]);
    // RFC 8212: without an export policy the eBGP peer gets nothing: the route is withdrawn.
    r.write({ ...base, peers: [probePeer(a)] });
    await r.reload();
    await until(() => a.table().size === 0, 'the route withdrawn from a');
    expect(a.rec.established).toHaveLength(1);
    expect(a.rec.notifications).toEqual([]);
  });

  it('a changed import policy is applied to the stored routes (soft in), without asking the peer', async () => {
    const a = await probe(2, 65001);
    const base = { peers: [probePeer(a)], policies };
    const r = await reloadable(base);
    await until(() => a.established, 'a up');
    a.announce(['198.18.150.0/24', '198.18.151.0/24']);
    await until(() => r.speaker.received('p2', {}).length === 2, 'a’s routes received');
    expect(r.speaker.rib({})).toEqual([]);
    r.write({ ...base, peers: [probePeer(a, { import: ['tag'] })] });
    await r.reload();
    await until(() => r.speaker.rib({}).length === 2, 'a’s routes accepted');
    expect(r.speaker.rib({})[0]!.paths[0]!.communities).toEqual(['65000:1']);
    r.write({ ...base, peers: [probePeer(a)] });
    await r.reload();
    await until(() => r.speaker.rib({}).length === 0, 'a’s routes rejected again');
    expect(a.rec.refreshes).toEqual([]);
    expect(a.rec.established).toHaveLength(1);
  });

  it('shutdown: true closes the session with Cease/2, false starts it again; a reset-effect change resets', async () => {
    const a = await probe(2, 65001);
    const base = { peers: [probePeer(a, { export: ['all'] })], policies };
    const r = await reloadable(base);
    await until(() => a.established, 'a up');
    r.write({ ...base, peers: [probePeer(a, { export: ['all'], shutdown: true })] });
    await r.reload();
    await until(() => a.rec.notifications.length === 1, 'Cease at a');
    expect(a.rec.notifications[0]).toMatchObject({ code: 6, subcode: CeaseSubcode.ADMINISTRATIVE_SHUTDOWN });
    expect(r.speaker.summary().neighbors[0]).toMatchObject({ state: 'Idle', adminDown: true });
    r.write(base);
    await r.reload();
    await until(() => a.rec.established.length === 2, 'a up again');
    // families is carried in OPEN: the session is reset (Cease / Other Configuration Change).
    r.write({ ...base, peers: [probePeer(a, { export: ['all'], families: ['ipv4-unicast'] })] });
    await r.reload();
    await until(
      () => a.rec.established.length === 3 && r.speaker.summary().neighbors[0]!.state === 'Established',
      'a up with the new families, on both ends',
    );
    expect(a.rec.notifications[1]).toMatchObject({ subcode: CeaseSubcode.OTHER_CONFIGURATION_CHANGE });
    expect(r.speaker.neighbors('p2')[0]!.families).toEqual(['ipv4-unicast']);
  });

  it('next hops kept towards eBGP: by export policy, or next_hop_unchanged set by a reload, no reset', async () => {
    // Central OVN mode across a routed hop: a chassis next hop off every subnet we share with
    // the peers (127.0.0.0/8 here), originated or learned from another peer.
    const src = await probe(2, 65001);
    const keeps = await probe(3, 65002);
    const plain = await probe(4, 65003);
    const base = {
      peers: [
        probePeer(src, { import: ['all'], export: ['tag'] }),
        probePeer(keeps, { export: ['keep'] }),
        probePeer(plain, { export: ['tag'] }),
      ],
      routes: [{ prefix: '198.18.171.10/32', next_hop: '198.18.140.5' }],
      policies: { ...policies, keep: { statements: [{ set: { next_hop: 'unchanged' }, action: 'accept' }] } },
    };
    const r = await reloadable(base);
    await until(() => src.established && keeps.established && plain.established, 'sessions up');
    src.announce(['198.18.170.0/24'], { nextHop: parseIpv4('198.18.180.7') });
    const nextHop = (p: Probe, prefix: string) => {
      const nh = p.table().get(prefix)?.nextHop;
      return nh === undefined ? undefined : formatIpv4(nh);
    };
    await until(
      () =>
        nextHop(keeps, '198.18.170.0/24') !== undefined && nextHop(plain, '198.18.170.0/24') !== undefined,
      'the learned route at both eBGP peers',
    );
    expect(nextHop(keeps, '198.18.170.0/24')).toBe('198.18.180.7');
    expect(nextHop(keeps, '198.18.171.10/32')).toBe('198.18.140.5');
    // RFC 4271 5.1.3 as ever for a peer whose policy leaves the next hop alone.
    expect(nextHop(plain, '198.18.170.0/24')).toBe('127.0.0.1');
    expect(nextHop(plain, '198.18.171.10/32')).toBe('127.0.0.1');
    r.write({
      ...base,
      peers: [base.peers[0], base.peers[1], probePeer(plain, { export: ['tag'], next_hop_unchanged: true })],
    });
    await r.reload();
    await until(
      () => nextHop(plain, '198.18.171.10/32') === '198.18.140.5',
      'the chassis next hop at the peer',
    );
    expect(nextHop(plain, '198.18.170.0/24')).toBe('198.18.180.7');
    expect(plain.table().get('198.18.170.0/24')!.communities).toEqual([community(65000, 1)]);
    expect(plain.rec.established).toHaveLength(1);
    expect(keeps.rec.established).toHaveLength(1);
    // And back: our address again.
    r.write(base);
    await r.reload();
    await until(() => nextHop(plain, '198.18.171.10/32') === '127.0.0.1', 'our next hop again');
    expect(nextHop(plain, '198.18.170.0/24')).toBe('127.0.0.1');
    expect(plain.rec.established).toHaveLength(1);
  });

  it('next_hop_self on an iBGP peer re-sends routes with our address, no reset', async () => {
    const src = await probe(2, 65001);
    const ibgp = await probe(3, SPEAKER_AS);
    const base = { peers: [probePeer(src, { import: ['all'] }), probePeer(ibgp)], policies };
    const r = await reloadable(base);
    await until(() => src.established && ibgp.established, 'sessions up');
    src.announce(['198.18.160.0/24']);
    await until(() => ibgp.table().has('198.18.160.0/24'), 'the route at the iBGP peer');
    // Sent to iBGP with its next hop unchanged (RFC 4271 5.1.3).
    expect(formatIpv4(ibgp.table().get('198.18.160.0/24')!.nextHop!)).toBe('127.0.0.2');
    r.write({ ...base, peers: [base.peers[0], probePeer(ibgp, { next_hop_self: true })] });
    await r.reload();
    await until(
      () => formatIpv4(ibgp.table().get('198.18.160.0/24')!.nextHop!) === '127.0.0.1',
      'next hop self at the iBGP peer',
    );
    expect(ibgp.rec.established).toHaveLength(1);
  });
});
