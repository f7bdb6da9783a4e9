import { describe, expect, it } from 'vitest';
import { ConfigStore, decodeRoute, formatProblem, parseConfig } from '../../src/config/index.js';
import { SPEAKER } from './support.js';

const peer = (name: string, ip: string) => `  - { name: ${name}, peer_ip: ${ip}, remote_as: 65000 }\n`;
const withPeers = (...names: string[]) =>
  `${SPEAKER}peers:\n${names.map((n, i) => peer(n, `198.18.1.${i + 2}`)).join('')}`;

/** A store over text that the test rewrites; reload reads the latest text. */
function store(first: string) {
  let text = first;
  const s = ConfigStore.open('speaker.yaml', { load: (f) => parseConfig(text, { file: f }) });
  return {
    s,
    write(t: string) {
      text = t;
    },
  };
}

const problems = (outcome: ReturnType<ConfigStore['editPeer']>) =>
  outcome.ok ? [] : outcome.error.problems.map((p) => formatProblem(p));

describe('ConfigStore.editPeer', () => {
  it('adds a peer with the file rules and plans only that peer', () => {
    const { s } = store(withPeers('a'));
    const outcome = s.editPeer({ op: 'add', peer: { name: 'b', peer_ip: '198.18.1.9', remote_as: 65009 } });
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.plan.peers.added.map((p) => p.name)).toEqual(['b']);
    expect(outcome.plan.peers.changed).toEqual([]);
    expect(s.config.peers.map((p) => p.name)).toEqual(['a', 'b']);
    expect([...s.runtimePeers]).toEqual(['b']);
  });

  it('a bad peer is refused naming the field under peer, and nothing changes', () => {
    const { s } = store(withPeers('a'));
    const before = s.config;
    const outcome = s.editPeer({ op: 'add', peer: { name: 'b', peer_ip: '198.18.1.9', remote_as: 'x' } });
    expect(problems(outcome).join('\n')).toMatch(/^peer\.remote_as: /);
    expect(s.config).toBe(before);
    expect(s.runtimePeers.size).toBe(0);
  });

  it('cross-peer rules hold too: an address another peer has is refused', () => {
    const { s } = store(withPeers('a'));
    const outcome = s.editPeer({ op: 'add', peer: { name: 'b', peer_ip: '198.18.1.2', remote_as: 65009 } });
    expect(outcome.ok).toBe(false);
    expect(problems(outcome).join('\n')).toContain('198.18.1.2');
  });

  it('add of an existing name, change or remove of an unknown one are refused', () => {
    const { s } = store(withPeers('a'));
    expect(
      problems(s.editPeer({ op: 'add', peer: { name: 'a', peer_ip: '198.18.1.9', remote_as: 1 } })),
    ).toEqual(['peer.name: a peer named a exists: change it instead']);
    expect(
      problems(s.editPeer({ op: 'change', peer: { name: 'z', peer_ip: '198.18.1.9', remote_as: 1 } })),
    ).toEqual(['peer.name: no peer named z: add it instead']);
    expect(problems(s.editPeer({ op: 'remove', name: 'z' }))).toEqual(['peer: no peer named z']);
  });

  it('changes and removes a peer of the file', () => {
    const { s } = store(withPeers('a', 'b'));
    const changed = s.editPeer({
      op: 'change',
      peer: { name: 'a', peer_ip: '198.18.1.2', remote_as: 65111 },
    });
    expect(changed.ok && changed.plan.peers.changed.map((c) => c.name)).toEqual(['a']);
    expect(s.config.peers[0]?.remoteAs).toBe(65111);
    const removed = s.editPeer({ op: 'remove', name: 'b' });
    expect(removed.ok && removed.plan.peers.removed.map((p) => p.name)).toEqual(['b']);
    expect(s.config.peers.map((p) => p.name)).toEqual(['a']);
  });

  it('a reload keeps run-time peers the file does not touch', () => {
    const { s, write } = store(withPeers('a'));
    s.editPeer({ op: 'add', peer: { name: 'x', peer_ip: '198.18.1.9', remote_as: 65009 } });
    write(withPeers('a', 'b'));
    const outcome = s.reload();
    expect(outcome.ok && outcome.plan.peers.added.map((p) => p.name)).toEqual(['b']);
    expect(outcome.ok && outcome.plan.peers.removed).toEqual([]);
    expect(s.config.peers.map((p) => p.name)).toEqual(['a', 'b', 'x']);
  });

  it('the file wins: a reload that changes a run-time-changed peer drops the run-time settings', () => {
    const { s, write } = store(withPeers('a'));
    s.editPeer({ op: 'change', peer: { name: 'a', peer_ip: '198.18.1.2', remote_as: 65111 } });
    write(`${SPEAKER}peers:\n  - { name: a, peer_ip: 198.18.1.2, remote_as: 65222 }\n`);
    const outcome = s.reload();
    expect(outcome.ok).toBe(true);
    expect(outcome.ok && outcome.warnings.map((w) => w.message)).toContainEqual(
      'the file changed peer a: its run-time settings are dropped',
    );
    expect(s.config.peers[0]?.remoteAs).toBe(65222);
    expect(s.runtimePeers.size).toBe(0);
  });

  it('a file that conflicts with run-time peers loads without them, with a warning', () => {
    const { s, write } = store(withPeers('a'));
    s.editPeer({ op: 'add', peer: { name: 'x', peer_ip: '198.18.1.9', remote_as: 65009 } });
    write(`${withPeers('a')}  - { name: y, peer_ip: 198.18.1.9, remote_as: 65009 }\n`);
    const outcome = s.reload();
    expect(outcome.ok).toBe(true);
    expect(s.config.peers.map((p) => p.name)).toEqual(['a', 'y']);
    expect(outcome.ok && outcome.plan.peers.removed.map((p) => p.name)).toEqual(['x']);
  });
});

describe('decodeRoute', () => {
  it('reads a route as the routes section does', () => {
    const r = decodeRoute({ prefix: '198.18.50.0/24', med: 5, communities: ['65000:1'] }, [4, 6]);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.route).toMatchObject({
      nextHop: 'self',
      origin: 'igp',
      med: 5,
      communities: [65000 * 65536 + 1],
    });
  });

  it('names the field of a bad value under route', () => {
    const r = decodeRoute({ prefix: '198.18.50.0/24', med: -1 }, [4, 6]);
    expect(r.ok ? [] : r.problems.map((p) => p.path)).toEqual(['route.med']);
  });

  it('refuses a next hop of the other family and a family the speaker leaves out', () => {
    const mixed = decodeRoute({ prefix: '198.18.50.0/24', next_hop: '2001:db8::1' }, [4, 6]);
    expect(mixed.ok ? [] : mixed.problems.map((p) => p.path)).toEqual(['route.next_hop']);
    const v6 = decodeRoute({ prefix: '2001:db8:50::/48' }, [4]);
    expect(v6.ok ? [] : v6.problems.map((p) => p.message)).toEqual([
      '2001:db8:50::/48 is IPv6, which speaker.ip_versions [4] leaves out',
    ]);
  });

  it('refuses what is not a route', () => {
    expect(decodeRoute('198.18.50.0/24', [4]).ok).toBe(false);
    expect(decodeRoute({}, [4]).ok).toBe(false);
  });
});
