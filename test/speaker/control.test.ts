import { afterEach, describe, expect, it } from 'vitest';
import { ControlError, callControl } from '../../src/api/index.js';
import { CeaseSubcode, RouteRefreshSubtype } from '../../src/bgp/wire/constants.js';
import { capabilitiesOf, type OpenMessage } from '../../src/bgp/wire/open.js';
import type { Speaker } from '../../src/speaker/index.js';
import {
  ACCEPT_ALL,
  Probe,
  probePeer,
  SPEAKER_AS,
  SPEAKER_ID,
  speakerSection,
  startSpeaker,
  tempDir,
  until,
} from './support.js';

// SpeakerControl on a live speaker, over its control socket: the views and the neighbor actions.

let cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

async function probe(n: number, as: number, routerId = `198.18.0.${10 + n}`) {
  const p = await Probe.start(`127.0.0.${n}`, as, routerId);
  cleanups.push(() => p.close());
  return p;
}

async function speaker(doc: Record<string, unknown>): Promise<{ s: Speaker; socket: string }> {
  const t = tempDir();
  cleanups.push(t.cleanup);
  const s = await startSpeaker({ ...doc, speaker: speakerSection(t.dir) });
  cleanups.push(() => s.close());
  return { s, socket: s.controlSocket! };
}

describe('the control socket of a running speaker', () => {
  it('summary and neighbors, by name or address; an unknown peer is unknown-peer', async () => {
    const a = await probe(2, 65001);
    const { socket } = await speaker({
      peers: [probePeer(a, { import: ['all'], description: 'probe a' })],
      policies: { all: ACCEPT_ALL },
    });
    await until(() => a.established, 'a up');
    a.announce(['198.18.170.0/24']);
    await until(() => a.peer.stats.received.update > 0 && a.peer.stats.sent.update > 0, 'updates exchanged');
    const summary = await callControl(socket, 'summary', {});
    expect(summary).toMatchObject({ routerId: SPEAKER_ID, localAs: SPEAKER_AS });
    expect(summary.neighbors).toHaveLength(1);
    expect(summary.neighbors[0]).toMatchObject({
      name: 'p2',
      address: '127.0.0.2',
      remoteAs: 65001,
      state: 'Established',
      adminDown: false,
    });
    const [byName] = await callControl(socket, 'neighbors', { peer: 'p2' });
    const [byAddress] = await callControl(socket, 'neighbors', { peer: '127.0.0.2' });
    expect(byAddress!.name).toBe('p2');
    expect(byName).toMatchObject({
      localAs: SPEAKER_AS,
      localAddress: '127.0.0.1',
      ebgp: true,
      remoteRouterId: '198.18.0.12',
      holdTime: 30,
      keepaliveTime: 10,
      families: ['ipv4-unicast', 'ipv6-unicast'],
      establishedTransitions: 1,
    });
    expect(byName!.capabilities).toEqual(
      expect.arrayContaining(['multiprotocol', 'route-refresh', 'four-octet-as']),
    );
    // Each side's OPEN as the other end of the session saw it.
    const names = (open: OpenMessage) => [...new Set(capabilitiesOf(open).map((c) => c.name))];
    const seen = a.peer.established!;
    expect(byName!.localCapabilities).toEqual(names(seen.remoteOpen));
    expect(byName!.remoteCapabilities).toEqual(names(seen.localOpen));
    expect(byName!.localCapabilities).toEqual(expect.arrayContaining(['multiprotocol', 'route-refresh']));
    expect(byName!.messages.received.open).toBe(1);
    await expect(callControl(socket, 'neighbors', { peer: 'nobody' })).rejects.toMatchObject({
      code: 'unknown-peer',
    });
    await expect(callControl(socket, 'neighbor.reset', { peer: '127.0.0.99' })).rejects.toBeInstanceOf(
      ControlError,
    );
  });

  it('shutdown (with a message), enable, reset and refresh reach the peer', async () => {
    const a = await probe(2, 65001);
    const { s, socket } = await speaker({
      peers: [probePeer(a, { import: ['all'], export: ['all'] })],
      policies: { all: ACCEPT_ALL },
    });
    await until(() => a.established, 'a up');

    await callControl(socket, 'neighbor.refresh', { peer: 'p2' });
    await until(() => a.rec.refreshes.length === 2, 'ROUTE-REFRESH for both families');
    expect(a.rec.refreshes.every((m) => m.subtype === RouteRefreshSubtype.NORMAL)).toBe(true);

    await callControl(socket, 'neighbor.shutdown', { peer: 'p2', message: 'maintenance window' });
    await until(() => a.rec.notifications.length === 1, 'Cease at a');
    expect(a.rec.notifications[0]).toMatchObject({
      subcode: CeaseSubcode.ADMINISTRATIVE_SHUTDOWN,
      message: 'maintenance window',
    });
    expect(s.summary().neighbors[0]).toMatchObject({ adminDown: true, state: 'Idle' });
    await expect(callControl(socket, 'neighbor.reset', { peer: 'p2' })).rejects.toMatchObject({
      code: 'not-established',
    });
    await expect(callControl(socket, 'neighbor.refresh', { peer: 'p2' })).rejects.toMatchObject({
      code: 'not-established',
    });

    await callControl(socket, 'neighbor.enable', { peer: 'p2' });
    await until(() => a.rec.established.length === 2, 'a up again');
    await callControl(socket, 'neighbor.reset', { peer: 'p2' });
    await until(() => a.rec.notifications.length === 2, 'Cease/4 at a');
    expect(a.rec.notifications[1]).toMatchObject({ subcode: CeaseSubcode.ADMINISTRATIVE_RESET });
    await until(() => a.rec.established.length === 3, 'a up after the reset');
  });

  it('a route refresh from the peer gets the routes again, then nothing twice', async () => {
    const a = await probe(2, 65001);
    await speaker({
      peers: [probePeer(a, { export: ['all'] })],
      routes: [{ prefix: '198.18.175.0/24' }],
      policies: { all: ACCEPT_ALL },
    });
    await until(() => a.table().has('198.18.175.0/24'), 'the route at a');
    const before = a.events().length;
    a.peer.refresh(1);
    await until(() => a.events().length === before + 1, 'the route sent again');
    expect(a.events().at(-1)).toMatchObject({ kind: 'announce', prefix: '198.18.175.0/24' });
  });
});

describe('route reflection (RFC 4456)', () => {
  it('reflects a non-client’s route to clients with ORIGINATOR_ID and CLUSTER_LIST, not to non-clients', async () => {
    const nonClient = await probe(2, SPEAKER_AS, '198.18.0.22');
    const client = await probe(3, SPEAKER_AS, '198.18.0.23');
    const otherNonClient = await probe(4, SPEAKER_AS, '198.18.0.24');
    const { s } = await speaker({
      peers: [
        probePeer(nonClient),
        probePeer(client, { route_reflector_client: true }),
        probePeer(otherNonClient),
      ],
    });
    await until(
      () => nonClient.established && client.established && otherNonClient.established,
      'sessions up',
    );
    nonClient.announce(['198.18.180.0/24']);
    await until(() => client.table().has('198.18.180.0/24'), 'the route reflected to the client');
    const reflected = client.table().get('198.18.180.0/24')!;
    expect(reflected.originatorId).toBe(0xc6120016); // 198.18.0.22
    expect(reflected.clusterList).toEqual([0xc6120001]); // our router id 198.18.0.1
    expect(reflected.localPref).toBe(100);
    // From a non-client to another non-client: never (RFC 4456 section 6).
    await until(() => otherNonClient.rec.endOfRib.length === 2, 'End-of-RIB at the other non-client');
    expect(otherNonClient.table().has('198.18.180.0/24')).toBe(false);
    // A client's route goes to everyone, never back to the client.
    client.announce(['198.18.181.0/24']);
    await until(
      () => nonClient.table().has('198.18.181.0/24') && otherNonClient.table().has('198.18.181.0/24'),
      'the client’s route reflected to both non-clients',
    );
    expect(client.table().has('198.18.181.0/24')).toBe(false);
    expect(s.rib({ prefix: '198.18.181.0/24' })[0]!.paths[0]!.from).toBe('p3');
  });
});
