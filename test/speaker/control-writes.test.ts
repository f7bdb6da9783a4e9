import { afterEach, describe, expect, it } from 'vitest';
import { ControlError, callControl, type WatchEvent, watchControl } from '../../src/api/index.js';
import { ConfigStore, parseConfig } from '../../src/config/index.js';
import { Speaker } from '../../src/speaker/index.js';
import { ACCEPT_ALL, Probe, probePeer, speakerSection, tempDir, until, yamlOf } from './support.js';

// The control API's writes against a running speaker with real sessions (probes on loopback).

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

async function speakerWith(doc: Record<string, unknown>) {
  const t = tempDir();
  cleanups.push(t.cleanup);
  const text = yamlOf({ ...doc, speaker: speakerSection(t.dir) });
  const store = ConfigStore.open('speaker.yaml', { load: (f) => parseConfig(text, { file: f }) });
  const speaker = await Speaker.start(store.config, { peerEdits: (e) => store.editPeer(e) });
  cleanups.push(() => speaker.close());
  const socket = speaker.controlSocket!;
  return { speaker, store, socket };
}

async function refused(p: Promise<unknown>): Promise<ControlError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ControlError) return e;
    throw e;
  }
  throw new Error('expected the speaker to refuse');
}

const policies = { all: ACCEPT_ALL };

describe('control API writes', () => {
  it('announces a route with attributes, replaces it in place, withdraws it', async () => {
    const a = await probe(2, 65001);
    const { socket } = await speakerWith({
      peers: [probePeer(a, { import: ['all'], export: ['all'] })],
      policies,
    });
    await until(() => a.established, 'a up');

    const first = await callControl(socket, 'route.announce', {
      route: { prefix: '198.18.130.0/24', med: 7, communities: ['65000:5'] },
    });
    expect(first).toEqual({ prefix: '198.18.130.0/24', action: 'announced' });
    await until(() => a.table().get('198.18.130.0/24')?.med === 7, 'a has the route with MED 7');
    expect(a.table().get('198.18.130.0/24')?.communities).toEqual([65000 * 65536 + 5]);

    const again = await callControl(socket, 'route.announce', {
      route: { prefix: '198.18.130.0/24', med: 9 },
    });
    expect(again.action).toBe('replaced');
    await until(() => a.table().get('198.18.130.0/24')?.med === 9, 'a has MED 9');
    // Replaced in place: the peer never saw a withdrawal in between.
    expect(
      a
        .events()
        .filter((e) => e.prefix === '198.18.130.0/24')
        .map((e) => e.kind),
    ).toEqual(['announce', 'announce']);
    expect(await callControl(socket, 'routes', {})).toEqual([
      {
        prefix: '198.18.130.0/24',
        nextHop: 'self',
        origin: 'igp',
        med: 9,
        communities: [],
        largeCommunities: [],
      },
    ]);
    const rib = await callControl(socket, 'rib', { prefix: '198.18.130.0/24' });
    expect(rib[0]?.paths[0]?.from).toBe('api');

    expect(await callControl(socket, 'route.withdraw', { prefix: '198.18.130.0/24' })).toEqual({
      prefix: '198.18.130.0/24',
      action: 'withdrawn',
    });
    await until(() => !a.table().has('198.18.130.0/24'), 'a lost the route');
    const twice = await refused(callControl(socket, 'route.withdraw', { prefix: '198.18.130.0/24' }));
    expect(twice.code).toBe('unknown-route');
  });

  it('a bad route is refused naming the field, and nothing is announced', async () => {
    const { socket } = await speakerWith({});
    const e = await refused(
      callControl(socket, 'route.announce', {
        route: { prefix: '198.18.131.0/24', next_hop: '2001:db8::1' },
      }),
    );
    expect(e.code).toBe('bad-request');
    expect(e.message).toContain('route.next_hop: 2001:db8::1 is not IPv4 like the prefix 198.18.131.0/24');
    expect(await callControl(socket, 'routes', {})).toEqual([]);
  });

  it('adds and removes a peer at run time without touching the others', async () => {
    const a = await probe(2, 65001);
    const b = await probe(3, 65002);
    const { socket, speaker } = await speakerWith({
      peers: [probePeer(a, { import: ['all'], export: ['all'] })],
      routes: [{ prefix: '198.18.140.0/24' }],
      policies,
    });
    await until(() => a.established && speaker.neighbors('p2')[0]?.state === 'Established', 'a up');
    const transitions = () => speaker.neighbors('p2')[0]?.establishedTransitions;
    const before = transitions();

    const bad = await refused(callControl(socket, 'peer.add', { peer: { ...probePeer(b), remote_as: 'x' } }));
    expect(bad.code).toBe('bad-request');
    expect(bad.message).toMatch(/^peer\.remote_as: /);

    const added = await callControl(socket, 'peer.add', {
      peer: probePeer(b, { import: ['all'], export: ['all'] }),
    });
    expect(added.action).toBe('added');
    expect(added.changes.join('\n')).toContain('peer p3 added');
    await until(() => b.established && b.table().has('198.18.140.0/24'), 'b up with the static route');
    b.announce(['198.18.141.0/24']);
    await until(() => a.table().has('198.18.141.0/24'), 'b’s route reaches a');

    const removed = await callControl(socket, 'peer.remove', { peer: 'p3' });
    expect(removed.action).toBe('removed');
    await until(() => !b.established && !a.table().has('198.18.141.0/24'), 'b gone with its route');
    expect(transitions()).toBe(before);
    const unknown = await refused(callControl(socket, 'peer.remove', { peer: 'p3' }));
    expect(unknown.code).toBe('unknown-peer');
  });

  it('watch: the snapshot, then synced, then every change, in order', async () => {
    const a = await probe(2, 65001);
    const { socket } = await speakerWith({
      peers: [probePeer(a, { import: ['all'], export: ['all'] })],
      routes: [{ prefix: '198.18.150.0/24' }],
      policies,
    });
    await until(() => a.established, 'a up');
    const events: WatchEvent[] = [];
    const watch = watchControl(socket, undefined, (e) => events.push(e));
    cleanups.push(() => watch.close());
    expect(await watch.started).toEqual({ api: 1, topics: ['bestpath', 'sessions'] });
    await until(() => events.some((e) => e.type === 'synced'), 'snapshot done');
    const synced = events.findIndex((e) => e.type === 'synced');
    expect(events.slice(0, synced)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'session', peer: 'p2', state: 'Established' }),
        expect.objectContaining({ type: 'bestpath', prefix: '198.18.150.0/24' }),
      ]),
    );
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));

    a.announce(['198.18.151.0/24']);
    await until(
      () => events.some((e) => e.type === 'bestpath' && e.prefix === '198.18.151.0/24'),
      'new best path',
    );
    const learned = events.find((e) => e.type === 'bestpath' && e.prefix === '198.18.151.0/24');
    expect(learned).toMatchObject({ path: { from: 'p2', best: true } });
    a.withdraw(['198.18.151.0/24']);
    await until(
      () => events.some((e) => e.type === 'bestpath' && e.prefix === '198.18.151.0/24' && e.path === null),
      'withdrawal',
    );
    await a.close();
    await until(
      () => events.some((e) => e.type === 'session' && e.previous === 'Established'),
      'session down',
    );
  });

  it('a speaker without a configuration store says it cannot edit peers', async () => {
    const t = tempDir();
    cleanups.push(t.cleanup);
    const text = yamlOf({ speaker: speakerSection(t.dir) });
    const speaker = await Speaker.start(parseConfig(text).config);
    cleanups.push(() => speaker.close());
    const e = await refused(callControl(speaker.controlSocket!, 'peer.remove', { peer: 'x' }));
    expect(e.code).toBe('unsupported');
  });
});
