import { describe, expect, it } from 'vitest';
import { type Config, describePlan, planReload, validateConfig } from '../../src/config/index.js';

// biome-ignore lint/suspicious/noExplicitAny: the cases edit parsed YAML at any depth.
type Raw = Record<string, any>;

const BASE: Raw = {
  speaker: { name: 's1', local_as: 65000, router_id: '198.18.0.1' },
  peers: [
    { name: 'a', peer_ip: '198.18.1.2', remote_as: 65001, import: ['in'], export: ['out'] },
    { name: 'b', peer_ip: '198.18.1.3', remote_as: 65002, import: ['in'], export: ['out'] },
  ],
  routes: [{ prefix: '198.18.100.0/24', med: 10 }],
  networks: ['198.18.10.0/24'],
  prefix_lists: { pl: [{ action: 'permit', prefix: '198.18.0.0/15', le: 24 }] },
  policies: {
    in: { statements: [{ match: { prefix_list: 'pl' }, action: 'accept' }] },
    out: { statements: [{ action: 'accept' }] },
  },
};

function config(raw: Raw): Config {
  const result = validateConfig(raw, { readFile: () => 'from-file' });
  if (!result.ok) throw new Error(result.problems.map((p) => `${p.path}: ${p.message}`).join('\n'));
  return result.config;
}

/** The plan from BASE to BASE changed by `edit`. */
function planFor(edit: (raw: Raw) => void) {
  const next = structuredClone(BASE);
  edit(next);
  return planReload(config(BASE), config(next));
}

describe('reload plan: peers', () => {
  it('the same configuration plans nothing', () => {
    const plan = planReload(config(BASE), config(structuredClone(BASE)));
    expect(plan.empty).toBe(true);
    expect(describePlan(plan)).toEqual([]);
  });

  it('adding a peer touches no other peer', () => {
    const plan = planFor((r) => r.peers.push({ name: 'c', peer_ip: '2001:db8::3', remote_as: 65003 }));
    expect(plan.peers.added.map((p) => p.name)).toEqual(['c']);
    expect(plan.peers.removed).toEqual([]);
    expect(plan.peers.changed).toEqual([]);
    expect(describePlan(plan)).toEqual(['peer c added (2001:db8::3, AS 65003)']);
  });

  it('removing a peer touches no other peer', () => {
    const plan = planFor((r) => r.peers.pop());
    expect(plan.peers.removed.map((p) => p.name)).toEqual(['b']);
    expect(plan.peers.added).toEqual([]);
    expect(plan.peers.changed).toEqual([]);
  });

  it('a renamed peer is removed and added (names identify peers)', () => {
    const plan = planFor((r) => {
      r.peers[0].name = 'a2';
    });
    expect(plan.peers.removed.map((p) => p.name)).toEqual(['a']);
    expect(plan.peers.added.map((p) => p.name)).toEqual(['a2']);
  });

  interface PeerCase {
    readonly name: string;
    readonly edit: (peer: Raw) => void;
    readonly want: { reset: boolean; softIn: boolean; softOut: boolean; stop: boolean; start: boolean };
    readonly fields: readonly string[];
  }
  const none = { reset: false, softIn: false, softOut: false, stop: false, start: false };
  const peerCases: PeerCase[] = [
    {
      name: 'hold_time: next session only',
      edit: (p) => (p.hold_time = 9),
      want: none,
      fields: ['hold_time', 'keepalive_time'],
    },
    { name: 'passive: next session only', edit: (p) => (p.passive = true), want: none, fields: ['passive'] },
    {
      name: 'description: nothing',
      edit: (p) => (p.description = 'tor'),
      want: none,
      fields: ['description'],
    },
    {
      name: 'max_prefixes: applied live',
      edit: (p) => (p.max_prefixes = 10),
      want: none,
      fields: ['max_prefixes'],
    },
    {
      name: 'remote_as: reset',
      edit: (p) => (p.remote_as = 65011),
      want: { ...none, reset: true },
      fields: ['remote_as'],
    },
    {
      name: 'peer_ip: reset',
      edit: (p) => (p.peer_ip = '198.18.1.12'),
      want: { ...none, reset: true },
      fields: ['peer_ip'],
    },
    {
      name: 'families: reset',
      edit: (p) => (p.families = ['ipv4-unicast', 'ipv6-unicast']),
      want: { ...none, reset: true },
      fields: ['families'],
    },
    {
      name: 'local_address: reset',
      edit: (p) => (p.local_address = '198.18.1.1'),
      want: { ...none, reset: true },
      fields: ['local_address'],
    },
    {
      name: 'md5 password: reset',
      edit: (p) => Object.assign(p, { auth_type: 'md5', password: 'hunter2' }),
      want: { ...none, reset: true },
      fields: ['auth'],
    },
    {
      name: 'import chain: soft in',
      edit: (p) => (p.import = []),
      want: { ...none, softIn: true },
      fields: ['import'],
    },
    {
      name: 'export chain: soft out',
      edit: (p) => (p.export = []),
      want: { ...none, softOut: true },
      fields: ['export'],
    },
    {
      name: 'next_hop_self: soft out',
      edit: (p) => (p.next_hop_self = true),
      want: { ...none, softOut: true },
      fields: ['next_hop_self'],
    },
    {
      name: 'next_hop_unchanged: soft out',
      edit: (p) => (p.next_hop_unchanged = true),
      want: { ...none, softOut: true },
      fields: ['next_hop_unchanged'],
    },
    {
      name: 'reset wins over soft refresh',
      edit: (p) => Object.assign(p, { remote_as: 65011, import: [] }),
      want: { ...none, reset: true },
      fields: ['remote_as', 'import'],
    },
    {
      name: 'shutdown: stop, whatever else changed',
      edit: (p) => Object.assign(p, { shutdown: true, remote_as: 65011 }),
      want: { ...none, stop: true },
      fields: ['remote_as', 'shutdown'],
    },
  ];

  it.each(peerCases)('$name', ({ edit, want, fields }) => {
    const plan = planFor((r) => edit(r.peers[0]));
    expect(plan.peers.added).toEqual([]);
    expect(plan.peers.removed).toEqual([]);
    expect(plan.peers.changed).toHaveLength(1);
    const [change] = plan.peers.changed;
    expect(change.name).toBe('a');
    const { reset, softIn, softOut, stop, start } = change;
    expect({ reset, softIn, softOut, stop, start }).toEqual(want);
    expect(change.changes.map((c) => c.field)).toEqual(fields);
  });

  it('a peer brought back from shutdown is started', () => {
    const down = structuredClone(BASE);
    down.peers[0].shutdown = true;
    const plan = planReload(config(down), config(BASE));
    expect(plan.peers.changed[0]).toMatchObject({ name: 'a', start: true, stop: false, reset: false });
  });

  it('passwords never appear in a plan', () => {
    const withPassword = structuredClone(BASE);
    Object.assign(withPassword.peers[0], { auth_type: 'md5', password: 'old-secret' });
    const next = structuredClone(BASE);
    Object.assign(next.peers[0], { auth_type: 'md5', password: 'new-secret' });
    const plan = planReload(config(withPassword), config(next));
    const shown = JSON.stringify(plan.peers.changed[0].changes) + describePlan(plan).join('\n');
    expect(plan.peers.changed[0].reset).toBe(true);
    expect(shown).not.toMatch(/old-secret|new-secret/);
    expect(describePlan(plan)).toEqual([
      'peer a: reset: auth {"type":"md5","password":"(hidden)"} -> {"type":"md5","password":"(hidden)"} (reset)',
    ]);
  });
});

describe('reload plan: policies', () => {
  it('a changed prefix list refreshes the import side of the peers whose policy uses it', () => {
    const plan = planFor((r) => {
      r.prefix_lists.pl[0].le = 32;
    });
    expect(plan.policies).toEqual({ added: [], removed: [], changed: ['in'] });
    expect(plan.peers.changed.map((c) => [c.name, c.softIn, c.softOut, c.reset, c.policies])).toEqual([
      ['a', true, false, false, { import: ['in'], export: [] }],
      ['b', true, false, false, { import: ['in'], export: [] }],
    ]);
  });

  it('a changed export policy refreshes the export side only', () => {
    const plan = planFor((r) => {
      r.policies.out.statements[0].set = { med: 5 };
    });
    expect(plan.policies.changed).toEqual(['out']);
    expect(plan.peers.changed.map((c) => [c.name, c.softIn, c.softOut])).toEqual([
      ['a', false, true],
      ['b', false, true],
    ]);
    expect(describePlan(plan)).toEqual([
      'peer a: soft-out: policy out changed',
      'peer b: soft-out: policy out changed',
      'policy out changed',
    ]);
  });

  it('a new, unused policy changes no peer', () => {
    const plan = planFor((r) => {
      r.policies.spare = { statements: [{ action: 'reject' }] };
    });
    expect(plan.policies).toEqual({ added: ['spare'], removed: [], changed: [] });
    expect(plan.peers.changed).toEqual([]);
  });
});

describe('reload plan: routes and the speaker', () => {
  it('routes added, withdrawn and re-announced, keyed by prefix', () => {
    const plan = planFor((r) => {
      r.routes[0].med = 20;
      r.networks = ['198.18.11.0/24'];
    });
    expect(plan.routes.added.map((x) => x.prefix)).toEqual([{ afi: 1, addr: '198.18.11.0', len: 24 }]);
    expect(plan.routes.removed.map((x) => x.prefix)).toEqual([{ afi: 1, addr: '198.18.10.0', len: 24 }]);
    expect(plan.routes.changed.map((x) => [x.before.med, x.after.med])).toEqual([[10, 20]]);
    expect(plan.peers.changed).toEqual([]);
    expect(describePlan(plan)).toEqual([
      'route 198.18.10.0/24 withdrawn',
      'route 198.18.11.0/24 announced',
      'route 198.18.100.0/24 re-announced with new attributes',
    ]);
  });

  it('router_id and local_as changes are flagged as needing a restart', () => {
    const plan = planFor((r) => {
      r.speaker.router_id = '198.18.0.9';
    });
    expect(plan.restartRequired).toBe(true);
    expect(plan.speaker).toEqual([
      { field: 'speaker.router_id', before: '198.18.0.1', after: '198.18.0.9', effect: 'restart' },
    ]);
  });

  it('a new local_as also changes which peers are iBGP: they are reset with it', () => {
    const plan = planFor((r) => {
      r.speaker.local_as = 65001;
    });
    expect(plan.restartRequired).toBe(true);
    expect(plan.peers.changed.map((c) => [c.name, c.reset, c.changes.map((f) => f.field)])).toEqual([
      ['a', true, ['type']],
    ]);
  });

  it('log level, listener and metrics apply live', () => {
    const plan = planFor((r) => {
      r.speaker.log = { level: 'debug' };
      r.speaker.listen = { port: 1179 };
    });
    expect(plan.restartRequired).toBe(false);
    expect(plan.speaker.map((c) => [c.field, c.effect])).toEqual([
      ['speaker.listen', 'live'],
      ['speaker.log', 'live'],
    ]);
  });

  it('a speaker-wide hold time reaches the peers that inherit it, as their own change', () => {
    const plan = planFor((r) => {
      r.speaker.hold_time = 30;
      r.peers[1].hold_time = 90;
    });
    expect(plan.speaker.map((c) => [c.field, c.effect])).toEqual([
      ['speaker.hold_time', 'none'],
      ['speaker.keepalive_time', 'none'],
    ]);
    expect(plan.peers.changed.map((c) => c.name)).toEqual(['a']);
    expect(plan.peers.changed[0].changes).toEqual([
      { field: 'hold_time', before: 90, after: 30, effect: 'next-session' },
      { field: 'keepalive_time', before: 30, after: 10, effect: 'next-session' },
    ]);
  });

  it('OVN connection changes ask for a reconnect', () => {
    const withOvn = (nb: string) => (r: Raw) => {
      r.ovn = { nb, sb: 'tcp:198.18.0.10:6642' };
    };
    const before = structuredClone(BASE);
    withOvn('tcp:198.18.0.10:6641')(before);
    const after = structuredClone(BASE);
    withOvn('tcp:198.18.0.11:6641')(after);
    const plan = planReload(config(before), config(after));
    expect(plan.ovn.map((c) => [c.field, c.effect])).toEqual([['ovn', 'live']]);
    expect(describePlan(plan)).toEqual(['ovn settings changed: reconnecting and deriving the routes again']);
  });

  it('a changed chassis next hop is an OVN change too (maps compare by their entries)', () => {
    const withHop = (ipv4: string) => (r: Raw) => {
      r.ovn = {
        nb: 'tcp:198.18.0.10:6641',
        sb: 'tcp:198.18.0.10:6642',
        chassis_next_hops: { gw1: { ipv4 } },
      };
    };
    const before = structuredClone(BASE);
    withHop('198.18.1.11')(before);
    const after = structuredClone(BASE);
    withHop('198.18.1.12')(after);
    expect(planReload(config(before), config(after)).ovn).toHaveLength(1);
    expect(planReload(config(before), config(before)).empty).toBe(true);
  });

  it('sink changes rebuild only the sink that changed', () => {
    const before = structuredClone(BASE);
    before.sinks = { kernel: { table: 100 }, zebra: { socket: '/run/frr/zserv.api' } };
    const after = structuredClone(BASE);
    after.sinks = { kernel: { table: 101 }, zebra: { socket: '/run/frr/zserv.api' } };
    const plan = planReload(config(before), config(after));
    expect(plan.sinks.map((c) => c.field)).toEqual(['sinks.kernel']);
    expect(describePlan(plan)).toEqual(['sinks.kernel changed: rebuilding it']);
  });
});
