import { describe, expect, it } from 'vitest';
import { backoffDelay, judgeServer, type ServerView } from '../../src/ovsdb/cluster.js';
import { parseRemote, parseRemotes } from '../../src/ovsdb/remote.js';

describe('parseRemote / parseRemotes', () => {
  const CASES: [string, unknown][] = [
    ['unix:/var/run/ovn/ovnnb_db.sock', { kind: 'unix', path: '/var/run/ovn/ovnnb_db.sock' }],
    ['tcp:127.0.0.1:6641', { kind: 'tcp', host: '127.0.0.1', port: 6641 }],
    ['ssl:ovn-central.example:6642', { kind: 'ssl', host: 'ovn-central.example', port: 6642 }],
    ['tcp:[2001:db8::1]:6641', { kind: 'tcp', host: '2001:db8::1', port: 6641 }],
    ['tcp:10.0.0.1', { kind: 'tcp', host: '10.0.0.1', port: 6640 }],
    ['ssl:[::1]', { kind: 'ssl', host: '::1', port: 6640 }],
  ];
  for (const [text, want] of CASES) {
    it(text, () => expect(parseRemote(text)).toMatchObject(want as object));
  }
  for (const bad of [
    'http:x:1',
    'tcp:',
    'tcp:host:0',
    'tcp:host:70000',
    'tcp:2001:db8::1:6641',
    'unix:',
    'tcp:[::1',
    'tcp:h:x',
  ]) {
    it(`rejects ${bad}`, () => expect(() => parseRemote(bad)).toThrowError(/bad-remote/));
  }
  it('splits connection lists as OVN writes them', () => {
    expect(parseRemotes('tcp:a:6641,tcp:b:6641, tcp:c:6641').map((r) => r.text)).toEqual([
      'tcp:a:6641',
      'tcp:b:6641',
      'tcp:c:6641',
    ]);
    expect(parseRemotes(['unix:/a', 'tcp:b:1,tcp:c:2'])).toHaveLength(3);
    expect(() => parseRemotes(' , ')).toThrowError(/no remote/);
  });
});

describe('judgeServer (_Server.Database)', () => {
  const leader: ServerView = { model: 'clustered', connected: true, leader: true, cid: 'c1', index: 10 };
  const need = { leaderOnly: true, cid: null, minIndex: 0 };
  it('accepts standalone and relay databases as they are', () => {
    expect(
      judgeServer({ ...leader, model: 'standalone', leader: false, connected: false }, need).usable,
    ).toBe(true);
    expect(judgeServer({ ...leader, model: 'relay', leader: false }, need).usable).toBe(true);
  });
  it('wants a connected leader by default, any connected member when reads are enough', () => {
    expect(judgeServer(leader, need).usable).toBe(true);
    const follower = { ...leader, leader: false };
    expect(judgeServer(follower, need)).toEqual({ usable: false, reason: 'member is not the leader' });
    expect(judgeServer(follower, { ...need, leaderOnly: false }).usable).toBe(true);
    expect(judgeServer({ ...leader, connected: false }, need).usable).toBe(false);
  });
  it('refuses another cluster, a stale member, and a server without the database', () => {
    expect(judgeServer(leader, { ...need, cid: 'c2' }).usable).toBe(false);
    expect(
      judgeServer({ ...leader, leader: false }, { leaderOnly: false, cid: 'c1', minIndex: 11 }).usable,
    ).toBe(false);
    expect(judgeServer(undefined, need)).toEqual({ usable: false, reason: 'database not served here' });
  });
});

describe('backoffDelay', () => {
  const policy = { initialMs: 100, maxMs: 8000, jitter: 0.5 };
  it('is immediate for the first attempt, then doubles up to the cap', () => {
    const noJitter = { ...policy, jitter: 0 };
    expect([0, 1, 2, 3, 4, 8, 20].map((a) => backoffDelay(a, noJitter, () => 0.5))).toEqual([
      0, 100, 200, 400, 800, 8000, 8000,
    ]);
  });
  it('takes at most `jitter` of each delay off at random', () => {
    expect(backoffDelay(3, policy, () => 0)).toBe(400);
    expect(backoffDelay(3, policy, () => 0.999999)).toBe(200);
    for (let a = 1; a < 12; a++) {
      const d = backoffDelay(a, policy, Math.random);
      expect(d).toBeGreaterThanOrEqual(Math.min(8000, 100 * 2 ** (a - 1)) / 2);
      expect(d).toBeLessThanOrEqual(8000);
    }
  });
});
