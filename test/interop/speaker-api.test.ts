import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { Lab, type ProcessRecord } from '../../frr-interop/lab/index.js';
import type { WatchEvent } from '../../src/api/index.js';
import { runApiCommand } from '../../src/cli/api-commands.js';
import { eventually, LabSpeaker } from '../speaker/lab-speaker.js';

// The control API's writes on the running speaker, driven with the CLI as a script would:
// `peer add` brings GoBGP in without touching the FRR session, `route announce` reaches both
// daemons, a reload of the unchanged file keeps the API's peer, `ovn-bgp-speaker watch` (a
// process of its own) sees all of it after its snapshot.

const IS_ROOT = process.getuid?.() === 0;
const SPEAKER = { as: 65000, routerId: '198.18.0.1' } as const;
const MAIN = join(resolve(import.meta.dirname, '../..'), 'src/cli/main.ts');
const UP_MS = 60_000;
const FLOW_MS = 30_000;
const ROUTE = '198.19.210.0/24';

describe.skipIf(!IS_ROOT)('control API writes with FRR and GoBGP', () => {
  let lab: Lab;
  let speaker: LabSpeaker;
  let doc: Record<string, unknown>;
  let watcher: ProcessRecord;
  let watchLog: string;

  const cli = async (command: 'route' | 'peer', args: string[]) => {
    let out = '';
    let err = '';
    const status = await runApiCommand(command, [...args, '--socket', speaker.socket], {
      out: (t) => {
        out += t;
      },
      err: (t) => {
        err += t;
      },
      env: {},
    });
    if (status !== 0) throw new Error(`${command} ${args.join(' ')}: ${err}`);
    return JSON.parse(out) as Record<string, unknown>;
  };
  const events = (): WatchEvent[] =>
    existsSync(watchLog)
      ? readFileSync(watchLog, 'utf8')
          .split('\n')
          .flatMap((l) => (l.startsWith('{') ? [JSON.parse(l) as WatchEvent] : []))
      : [];
  const transitions = async (name: string) =>
    (await speaker.show<{ establishedTransitions: number }[]>(['neighbors', name]))?.[0]
      ?.establishedTransitions;

  beforeAll(async () => {
    lab = await Lab.create({
      id: 'spkapi',
      speaker: SPEAKER,
      peers: [
        { name: 'frr', impl: 'frr', as: 65001, originate: { ipv4: ['198.19.71.0/24'], ipv6: [] } },
        { name: 'gobgp', impl: 'gobgp', as: 65002, originate: { ipv4: ['198.19.72.0/24'], ipv6: [] } },
      ],
    });
    doc = {
      speaker: {
        name: 'api',
        local_as: SPEAKER.as,
        router_id: SPEAKER.routerId,
        listen: { address: '::', port: 179 },
        hold_time: 9,
        connect_retry: 2,
        log: { level: 'info' },
      },
      peers: [
        {
          name: 'frr',
          peer_ip: lab.peer('frr').address.ipv4,
          remote_as: 65001,
          import: ['all'],
          export: ['all'],
        },
      ],
      policies: { all: { statements: [{ action: 'accept' }] } },
    };
    speaker = await LabSpeaker.start(lab, doc);
    await speaker.waitEstablished(['frr'], UP_MS);
    await eventually(
      async () => ((await speaker.rib('198.19.71.0/24')).length > 0 ? true : undefined),
      'FRR’s route',
      FLOW_MS,
    );
    watchLog = join(lab.dir, 'watch.log');
    watcher = lab.spawn(
      lab.speakerNs,
      [process.execPath, '--import', 'tsx', MAIN, 'watch', '--socket', speaker.socket],
      {
        name: 'watch',
        logFile: watchLog,
      },
    ).record;
    await eventually(
      () => (events().some((e) => e.type === 'synced') ? true : undefined),
      'the watch snapshot',
      FLOW_MS,
    );
  });

  afterAll(async () => {
    if (watcher) await lab?.stopProcess(watcher);
    await lab?.destroy();
  });

  it('the watch snapshot holds the FRR session and its route, then synced', () => {
    const list = events();
    const synced = list.findIndex((e) => e.type === 'synced');
    const snapshot = list.slice(0, synced);
    expect(snapshot).toContainEqual(
      expect.objectContaining({ type: 'session', peer: 'frr', state: 'Established' }),
    );
    expect(snapshot).toContainEqual(expect.objectContaining({ type: 'bestpath', prefix: '198.19.71.0/24' }));
  });

  it('peer add brings GoBGP up, with the file’s rules, and leaves the FRR session alone', async () => {
    const before = await transitions('frr');
    const file = join(lab.dir, 'gobgp-peer.yaml');
    writeFileSync(
      file,
      stringify({
        name: 'gobgp',
        peer_ip: lab.peer('gobgp').address.ipv4,
        remote_as: 65002,
        import: ['all'],
        export: ['all'],
      }),
    );
    const added = await cli('peer', ['add', file]);
    expect(added).toMatchObject({ peer: 'gobgp', action: 'added' });
    await speaker.waitEstablished(['gobgp'], UP_MS);
    await eventually(
      async () => ((await speaker.rib('198.19.72.0/24')).length > 0 ? true : undefined),
      'GoBGP’s route',
      FLOW_MS,
    );
    expect(await transitions('frr')).toBe(before);
    await eventually(
      () =>
        events().some((e) => e.type === 'session' && e.peer === 'gobgp' && e.state === 'Established')
          ? true
          : undefined,
      'gobgp Established in the watch',
      FLOW_MS,
    );
  });

  it('route announce reaches FRR and GoBGP with its attributes; withdraw takes it back', async () => {
    expect(await cli('route', ['announce', ROUTE, '--med', '33'])).toEqual({
      prefix: ROUTE,
      action: 'announced',
    });
    for (const name of ['frr', 'gobgp']) {
      const r = await eventually(
        async () => (await lab.peer(name).daemon.routes('ipv4')).find((x) => x.prefix === ROUTE),
        `${ROUTE} at ${name}`,
        FLOW_MS,
      );
      expect(r.asPath).toEqual([SPEAKER.as]);
      expect(r.med).toBe(33);
    }
    await eventually(
      () =>
        events().some((e) => e.type === 'bestpath' && e.prefix === ROUTE && e.path?.from === 'api')
          ? true
          : undefined,
      'the route in the watch',
      FLOW_MS,
    );
    await cli('route', ['withdraw', ROUTE]);
    for (const name of ['frr', 'gobgp']) {
      await eventually(
        async () =>
          (await lab.peer(name).daemon.routes('ipv4')).some((x) => x.prefix === ROUTE) ? undefined : true,
        `${ROUTE} gone from ${name}`,
        FLOW_MS,
      );
    }
    await eventually(
      () =>
        events().some((e) => e.type === 'bestpath' && e.prefix === ROUTE && e.path === null)
          ? true
          : undefined,
      'the withdrawal in the watch',
      FLOW_MS,
    );
  });

  it('a reload of the unchanged file keeps the API’s peer; peer remove ends it', async () => {
    const line = await speaker.reload(doc);
    expect(line.msg).toMatch(/^configuration reloaded/);
    expect((await speaker.neighbor('gobgp'))?.state).toBe('Established');
    expect(await cli('peer', ['remove', 'gobgp'])).toMatchObject({ peer: 'gobgp', action: 'removed' });
    await eventually(
      async () => ((await speaker.neighbor('gobgp')) ? undefined : true),
      'gobgp gone',
      FLOW_MS,
    );
    await eventually(
      async () => ((await speaker.rib('198.19.72.0/24')).length === 0 ? true : undefined),
      'its route gone',
      FLOW_MS,
    );
    expect((await speaker.neighbor('frr'))?.state).toBe('Established');
  });
});
