import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Lab } from '../../frr-interop/lab/index.js';
import { eventually, LabSpeaker } from '../speaker/lab-speaker.js';

// Add-path send (RFC 7911) against real receivers: three sources announce one prefix to the
// speaker; GoBGP (add_path.send: all) holds all three paths from it, FRR (send: 2) the two
// best, each path under an id of its own; a path that leaves is withdrawn by its id while the
// others keep theirs. BIRD 2.0 (host) and BIRD 3.1 (trixie root) receive with send: all too;
// their `show route` prints no path ids, so there the proof is that three paths of one prefix
// stand side by side (paths under one id would replace each other) and that exactly the one
// that left goes.

const IS_ROOT = process.getuid?.() === 0;
const SPEAKER = { as: 65000, routerId: '198.18.0.1' } as const;
const UP_MS = 60_000;
const FLOW_MS = 30_000;
const V4 = { transports: ['ipv4' as const] };
const PREFIX = '198.19.80.0/24';

interface FrrPath {
  readonly addpathRxId?: number;
  readonly aspath?: { readonly string?: string };
  readonly peer?: { readonly peerId?: string };
}

/** The BIRD receivers: title and lab peer name. */
const BIRD_RX = [
  ['BIRD 2.0', 'brx2'],
  ['BIRD 3.1', 'brx3'],
] as const;

describe.skipIf(!IS_ROOT)('add-path send to GoBGP, FRR and BIRD', () => {
  let lab: Lab;
  let speaker: LabSpeaker;

  /**
   * GoBGP's paths of PREFIX from the speaker: AS path → path id as received. Its JSON leaves
   * the path id out; the table has it in the ID column.
   */
  const atGobgp = async (): Promise<Map<string, number>> => {
    const from = lab.peer('grx').speakerAddress.ipv4!;
    const text = await lab.gobgp('grx').gobgp(['neighbor', from, 'adj-in', '-a', 'ipv4']);
    const out = new Map<string, number>();
    for (const line of text.split('\n')) {
      const m = /^\s*(\d+)\s+(\S+)\s+\S+\s+([\d ]+?)\s+\d+:\d\d:\d\d/.exec(line);
      if (m && m[2] === PREFIX) out.set(m[3]!, Number(m[1]));
    }
    return out;
  };

  /** FRR's paths of PREFIX: AS path → addpathRxId. */
  const atFrr = async (): Promise<Map<string, number>> => {
    const text = await lab.frr('frx').vtysh([`show bgp ipv4 unicast ${PREFIX} json`]);
    const paths = ((JSON.parse(text) as { paths?: FrrPath[] }).paths ?? []) as FrrPath[];
    return new Map(paths.map((p) => [p.aspath?.string ?? '', p.addpathRxId ?? -1]));
  };

  /** A BIRD receiver's paths of PREFIX from the speaker: AS paths, sorted, and how many are best. */
  const atBird = async (name: string): Promise<{ paths: string[]; best: number }> => {
    const from = lab.peer(name).speakerAddress.ipv4;
    const routes = (await lab.bird(name).routes('ipv4', { from })).filter((r) => r.prefix === PREFIX);
    return { paths: routes.map((r) => r.asPath.join(' ')).sort(), best: routes.filter((r) => r.best).length };
  };

  beforeAll(async () => {
    lab = await Lab.create({
      id: 'apsend',
      speaker: SPEAKER,
      peers: [
        { name: 'gsrc', impl: 'gobgp', as: 65002, speakerSessions: V4, originate: { ipv4: [PREFIX] } },
        { name: 'bsrc', impl: 'bird', as: 65003, speakerSessions: V4, originate: { ipv4: [PREFIX] } },
        { name: 'fsrc', impl: 'frr', as: 65006, speakerSessions: V4, originate: { ipv4: [PREFIX] } },
        { name: 'grx', impl: 'gobgp', as: 65004, speakerSessions: { ...V4, addPath: 'receive' } },
        // FRR offers add-path receive on every session unless told not to.
        { name: 'frx', impl: 'frr', as: 65005, speakerSessions: V4 },
        { name: 'brx2', impl: 'bird', as: 65007, speakerSessions: { ...V4, addPath: 'receive' } },
        {
          name: 'brx3',
          impl: 'bird',
          release: 'trixie',
          as: 65008,
          speakerSessions: { ...V4, addPath: 'receive' },
        },
      ],
    });
    const peer = (name: string, extra: Record<string, unknown> = {}) => ({
      name,
      peer_ip: lab.peer(name).address.ipv4,
      remote_as: lab.peer(name).as,
      import: ['accept-all'],
      export: ['accept-all'],
      ...extra,
    });
    speaker = await LabSpeaker.start(lab, {
      speaker: {
        name: 'addpath',
        local_as: SPEAKER.as,
        router_id: SPEAKER.routerId,
        listen: { address: '::', port: 179 },
        hold_time: 9,
        connect_retry: 2,
        log: { level: 'info' },
      },
      peers: [
        peer('gsrc'),
        peer('bsrc'),
        peer('fsrc'),
        peer('grx', { add_path: { send: 'all' } }),
        peer('frx', { add_path: { send: 2 } }),
        peer('brx2', { add_path: { send: 'all' } }),
        peer('brx3', { add_path: { send: 'all' } }),
      ],
    });
    await speaker.waitEstablished(['gsrc', 'bsrc', 'fsrc', 'grx', 'frx', 'brx2', 'brx3'], UP_MS);
  });

  afterAll(async () => {
    await lab?.destroy();
  });

  it('GoBGP with send: all holds every path, each with its own path id', async () => {
    const paths = await eventually(
      async () => {
        const m = await atGobgp();
        return m.size === 3 ? m : undefined;
      },
      `three paths of ${PREFIX} at GoBGP`,
      FLOW_MS,
    );
    expect([...paths.keys()].sort()).toEqual(['65000 65002', '65000 65003', '65000 65006']);
    const ids = [...paths.values()];
    expect(new Set(ids).size).toBe(3);
    for (const id of ids) expect(id).toBeGreaterThan(0);
    // The global RIB shows them as paths of one prefix, one of them best.
    const rib = (await lab.gobgp('grx').routes('ipv4')).filter((r) => r.prefix === PREFIX);
    expect(rib).toHaveLength(3);
    expect(rib.filter((r) => r.best)).toHaveLength(1);
  });

  it('FRR with send: 2 holds the two best, with distinct addpathRxId', async () => {
    const paths = await eventually(
      async () => {
        const m = await atFrr();
        return m.size === 2 ? m : undefined;
      },
      `two paths of ${PREFIX} at FRR`,
      FLOW_MS,
    );
    const ids = [...paths.values()];
    expect(new Set(ids).size).toBe(2);
    for (const id of ids) expect(id).toBeGreaterThan(0);
    // Our best path among them (the speaker holds all three).
    const [entry] = await speaker.rib(PREFIX);
    expect(entry!.paths).toHaveLength(3);
    const best = entry!.paths.find((p) => p.best)!;
    expect([...paths.keys()]).toContain(`${SPEAKER.as} ${best.asPath}`);
  });

  it.each(BIRD_RX)('%s with send: all holds every path, one of them best', async (title, name) => {
    const at = await eventually(
      async () => {
        const m = await atBird(name);
        return m.paths.length === 3 ? m : undefined;
      },
      `three paths of ${PREFIX} at ${title}`,
      FLOW_MS,
    );
    expect(at).toEqual({ paths: ['65000 65002', '65000 65003', '65000 65006'], best: 1 });
  });

  it('a path that leaves is withdrawn by its id; the others keep theirs', async () => {
    const before = await atGobgp();
    await lab.gobgp('gsrc').gobgp(['global', 'rib', 'del', '-a', 'ipv4', PREFIX]);
    const after = await eventually(
      async () => {
        const m = await atGobgp();
        return m.size === 2 ? m : undefined;
      },
      `two paths of ${PREFIX} at GoBGP after GoBGP's source withdrew`,
      FLOW_MS,
    );
    expect([...after.keys()].sort()).toEqual(['65000 65003', '65000 65006']);
    for (const [path, id] of after) expect(id, path).toBe(before.get(path));
    const frr = await eventually(
      async () => {
        const m = await atFrr();
        return m.size === 2 && !m.has('65000 65002') ? m : undefined;
      },
      `the two remaining paths at FRR`,
      FLOW_MS,
    );
    expect(new Set(frr.values()).size).toBe(2);
    for (const [title, name] of BIRD_RX) {
      const bird = await eventually(
        async () => {
          const m = await atBird(name);
          return m.paths.length === 2 ? m : undefined;
        },
        `the two remaining paths at ${title}`,
        FLOW_MS,
      );
      expect(bird, title).toEqual({ paths: ['65000 65003', '65000 65006'], best: 1 });
    }
  });
});
