/*
 * OVN unreachable when the speaker starts: the speaker still starts, runs its routes and
 * sessions, and says what it is waiting for; once the databases come up it publishes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTopology } from '../../frr-interop/capture/ovn-snapshot.js';
import type { Speaker } from '../../src/speaker/index.js';
import { speakerSection, startSpeaker, tempDir, until } from '../speaker/support.js';
import { NB_SCHEMA, nbctl, OvsdbLab, SB_SCHEMA, sbctl } from '../support/ovsdb-lab.js';

const STATIC = '198.18.64.250/32';
const FIP = '198.18.64.100/32';

let lab: OvsdbLab;
let speaker: Speaker;
const cleanups: (() => unknown)[] = [];

beforeAll(async () => {
  lab = OvsdbLab.create('speaker-ovn-absent-');
  cleanups.push(() => lab.close());
  const t = tempDir();
  cleanups.push(t.cleanup);
  // The sockets the servers will listen on later; nothing is there yet.
  speaker = await startSpeaker({
    speaker: speakerSection(t.dir),
    routes: [{ prefix: STATIC, next_hop: '198.18.0.99' }],
    ovn: { nb: `unix:${lab.path('nb.sock')}`, sb: `unix:${lab.path('sb.sock')}`, coalesce_ms: 10 },
  });
  cleanups.push(() => speaker.close());
}, 60_000);

afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

describe('the speaker when OVN is not there yet', () => {
  it('starts anyway: its own routes are in the RIB, and show ovn says it is connecting', async () => {
    speaker.flush();
    expect(speaker.rib({ prefix: STATIC })[0]?.paths[0]).toMatchObject({ from: 'static', best: true });
    const view = speaker.ovn()!;
    expect(view.nb).toMatch(/^(connecting|disconnected) /);
    expect(view.sb).toMatch(/^(connecting|disconnected) /);
    expect(view.routes).toEqual([]);
  });

  it('publishes once NB and SB come up', async () => {
    const nb = await lab.startServer('nb', await lab.createDb('nb', NB_SCHEMA));
    const sb = await lab.startServer('sb', await lab.createDb('sb', SB_SCHEMA));
    await nbctl(nb.unix, 'init');
    await sbctl(sb.unix, 'init');
    await lab.startNorthd(nb.unix, sb.unix);
    await buildTopology(nb.unix, sb.unix);
    await until(
      () => {
        speaker.flush();
        return speaker.rib({ prefix: FIP })[0]?.paths.some((p) => p.from === 'ovn') === true;
      },
      `${FIP} from the ovn origin`,
      30_000,
    );
    expect(speaker.ovn()!.nb).toMatch(/^synced /);
  });
});
