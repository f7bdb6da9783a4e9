import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Lab, type ProcessRecord } from '../../frr-interop/lab/index.js';
import type { RibEntryView } from '../../src/api/index.js';
import { eventually, LabSpeaker } from '../speaker/lab-speaker.js';

// BMP (RFC 7854) to a real collector: pmacct's pmbmpd in the speaker's namespace, logging
// every message it decodes as JSON lines. FRR and GoBGP peer with the speaker; pmbmpd must
// log our Initiation, each session's Peer Up with its addresses and ports, each peer's routes
// before import policy and after it (one FRR prefix rejected by policy shows only before),
// Statistics Reports with the rejected count, a Peer Down with its reason, the whole state
// again after pmbmpd restarted, and Termination when the speaker stops.

const IS_ROOT = process.getuid?.() === 0;
const HAS_PMBMPD = existsSync('/usr/sbin/pmbmpd');
const SPEAKER = { as: 65000, routerId: '198.18.0.1' } as const;
const BMP_PORT = 11019;
const UP_MS = 60_000;
const FLOW_MS = 30_000;
const FRR = { ipv4: ['198.19.1.0/24', '198.19.11.0/24'], ipv6: ['2001:db8:a1::/48'] };
const GOBGP = { ipv4: ['198.19.2.0/24'], ipv6: [] as string[] };
/** FRR's prefix our import policy rejects: pre-policy only. */
const DROPPED = '198.19.11.0/24';
const LIVE = '198.19.22.0/24';

type BmpLine = Record<string, unknown> & { bmp_msg_type?: string; event_type?: string };

function configDoc(lab: Lab, collector: string, drop = DROPPED): Record<string, unknown> {
  const frr = lab.peer('frr');
  const gobgp = lab.peer('gobgp');
  return {
    speaker: {
      name: 'interop-bmp',
      local_as: SPEAKER.as,
      router_id: SPEAKER.routerId,
      listen: { address: '::', port: 179 },
      hold_time: 9,
      connect_retry: 2,
      log: { level: 'info' },
    },
    peers: [
      { name: 'frr4', peer_ip: frr.address.ipv4, remote_as: frr.as, import: ['from-frr'], export: ['all'] },
      { name: 'frr6', peer_ip: frr.address.ipv6, remote_as: frr.as, import: ['all'], export: ['all'] },
      { name: 'gobgp4', peer_ip: gobgp.address.ipv4, remote_as: gobgp.as, import: ['all'], export: ['all'] },
    ],
    prefix_lists: { 'frr-drop': [{ action: 'permit', prefix: drop }] },
    policies: {
      all: { statements: [{ action: 'accept' }] },
      'from-frr': {
        statements: [
          { match: { prefix_list: 'frr-drop' }, action: 'reject' },
          { set: { local_pref: 222 }, action: 'accept' },
        ],
      },
    },
    bmp: {
      route_monitoring: 'both',
      statistics_interval: 2,
      collectors: [{ address: collector, port: BMP_PORT, min_retry_ms: 200, max_retry_ms: 2000 }],
    },
  };
}

/** pmbmpd in the speaker's namespace, its JSON log in the lab directory. */
class Pmbmpd {
  readonly #lab: Lab;
  readonly #address: string;
  readonly log: string;
  #record: ProcessRecord | undefined;
  #runs = 0;

  constructor(lab: Lab, address: string) {
    this.#lab = lab;
    this.#address = address;
    this.log = join(lab.dir, 'pmbmpd.json');
  }

  start(): void {
    const conf = join(this.#lab.dir, 'pmbmpd.conf');
    writeFileSync(
      conf,
      [
        'daemonize: false',
        `bmp_daemon_ip: ${this.#address}`,
        `bmp_daemon_port: ${BMP_PORT}`,
        `bmp_daemon_msglog_file: ${this.log}`,
        'bmp_daemon_msglog_output: json',
        `logfile: ${join(this.#lab.dir, 'pmbmpd.log')}`,
        '',
      ].join('\n'),
    );
    this.#runs++;
    const p = this.#lab.spawn(this.#lab.speakerNs, ['/usr/sbin/pmbmpd', '-f', conf], {
      name: `pmbmpd-${this.#runs}`,
    });
    this.#record = p.record;
  }

  async stop(): Promise<void> {
    if (this.#record) await this.#lab.stopProcess(this.#record);
    this.#record = undefined;
  }

  /** Moves the log aside, so what follows is the next run's alone. */
  rotate(): void {
    if (existsSync(this.log)) renameSync(this.log, `${this.log}.${this.#runs}`);
  }

  lines(): BmpLine[] {
    if (!existsSync(this.log)) return [];
    return readFileSync(this.log, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .flatMap((l) => {
        try {
          return [JSON.parse(l) as BmpLine];
        } catch {
          return [];
        }
      });
  }

  /** Waits until `find` picks something out of the log. */
  async until<T>(find: (lines: BmpLine[]) => T | undefined, what: string, ms = FLOW_MS): Promise<T> {
    return eventually(() => find(this.lines()), `pmbmpd logging ${what}`, ms);
  }
}

const routeOf = (lines: BmpLine[], peer: string, prefix: string, post: 0 | 1, type = 'update') =>
  lines.find(
    (l) =>
      l.bmp_msg_type === 'route_monitor' &&
      l.peer_ip === peer &&
      l.ip_prefix === prefix &&
      l.is_post === post &&
      l.log_type === type,
  );

describe.skipIf(!IS_ROOT || !HAS_PMBMPD)('BMP to pmbmpd', () => {
  let lab: Lab;
  let speaker: LabSpeaker;
  let pmbmpd: Pmbmpd;
  const peers = () => ({ frr: lab.peer('frr'), gobgp: lab.peer('gobgp') });

  beforeAll(async () => {
    lab = await Lab.create({
      id: 'bmp',
      speaker: SPEAKER,
      peers: [
        { name: 'frr', impl: 'frr', as: 65001, originate: FRR },
        { name: 'gobgp', impl: 'gobgp', as: 65002, originate: GOBGP },
      ],
    });
    // The collector listens on the speaker's own address on the FRR link, in its namespace.
    const collector = lab.peer('frr').speakerAddress.ipv4;
    pmbmpd = new Pmbmpd(lab, collector);
    pmbmpd.start();
    speaker = await LabSpeaker.start(lab, configDoc(lab, collector));
    await speaker.waitEstablished(['frr4', 'frr6', 'gobgp4'], UP_MS);
  });

  afterAll(async () => {
    await lab?.destroy();
  });

  it('logs our Initiation and a Peer Up per session with both ends’ addresses and ports', async () => {
    const { frr, gobgp } = peers();
    const init = await pmbmpd.until((ls) => ls.find((l) => l.bmp_msg_type === 'init'), 'init');
    expect(init.bmp_init_info_sysname).toBe('interop-bmp');
    expect(String(init.bmp_init_info_sysdescr)).toContain('AS 65000');
    for (const [peer, local, asn] of [
      [frr.address.ipv4, frr.speakerAddress.ipv4, frr.as],
      [frr.address.ipv6, frr.speakerAddress.ipv6, frr.as],
      [gobgp.address.ipv4, gobgp.speakerAddress.ipv4, gobgp.as],
    ] as const) {
      const up = await pmbmpd.until(
        (ls) => ls.find((l) => l.bmp_msg_type === 'peer_up' && l.peer_ip === peer),
        `peer up ${peer}`,
      );
      expect(up).toMatchObject({ peer_asn: asn, local_ip: local, is_post: 0 });
      // One end is the BGP port, the other the ephemeral one of whoever connected.
      expect([up.local_port, up.remote_port]).toContain(179);
    }
  });

  it('logs each peer’s routes before and after import policy: the rejected prefix before only', async () => {
    const { frr, gobgp } = peers();
    for (const prefix of FRR.ipv4) {
      const pre = await pmbmpd.until(
        (ls) => routeOf(ls, frr.address.ipv4, prefix, 0),
        `pre-policy ${prefix}`,
      );
      expect(pre).toMatchObject({ afi: 1, safi: 1, as_path: String(frr.as), bgp_nexthop: frr.address.ipv4 });
    }
    const post = await pmbmpd.until((ls) => routeOf(ls, frr.address.ipv4, FRR.ipv4[0]!, 1), 'post-policy');
    // Import policy set LOCAL_PREF: post-policy shows it, pre-policy does not.
    expect(post.local_pref).toBe(222);
    expect(routeOf(pmbmpd.lines(), frr.address.ipv4, FRR.ipv4[0]!, 0)?.local_pref).toBeUndefined();
    expect(routeOf(pmbmpd.lines(), frr.address.ipv4, DROPPED, 1)).toBeUndefined();
    const v6 = await pmbmpd.until((ls) => routeOf(ls, frr.address.ipv6, FRR.ipv6[0]!, 1), 'IPv6 post-policy');
    expect(v6).toMatchObject({ afi: 2, safi: 1 });
    await pmbmpd.until((ls) => routeOf(ls, gobgp.address.ipv4, GOBGP.ipv4[0]!, 0), 'GoBGP pre-policy');
    await pmbmpd.until((ls) => routeOf(ls, gobgp.address.ipv4, GOBGP.ipv4[0]!, 1), 'GoBGP post-policy');
  });

  it('follows changes: a route GoBGP announces and withdraws arrives and leaves, both views', async () => {
    const { gobgp } = peers();
    await lab.gobgp('gobgp').announce([LIVE]);
    await pmbmpd.until((ls) => routeOf(ls, gobgp.address.ipv4, LIVE, 0), 'the new route pre-policy');
    await pmbmpd.until((ls) => routeOf(ls, gobgp.address.ipv4, LIVE, 1), 'the new route post-policy');
    await lab.gobgp('gobgp').withdraw([LIVE]);
    await pmbmpd.until(
      (ls) => routeOf(ls, gobgp.address.ipv4, LIVE, 0, 'withdraw'),
      'its withdrawal pre-policy',
    );
    await pmbmpd.until(
      (ls) => routeOf(ls, gobgp.address.ipv4, LIVE, 1, 'withdraw'),
      'its withdrawal post-policy',
    );
  });

  it('sends Statistics Reports: FRR’s rejected prefix counted, its Adj-RIB-In routes', async () => {
    const { frr } = peers();
    const stat = (type: number) => (ls: BmpLine[]) =>
      [...ls]
        .reverse()
        .find((l) => l.bmp_msg_type === 'stats' && l.peer_ip === frr.address.ipv4 && l.counter_type === type);
    expect((await pmbmpd.until(stat(0), 'rejected prefixes')).counter_value).toBe(1);
    // Type 7, the Adj-RIB-In before policy: what `show received` lists (FRR also sends back
    // the routes it learned from us, which the AS_PATH loop check denies); type 8, the paths in
    // the decision process: the one FRR prefix policy accepts and no loop denies.
    const received = (await speaker.show<RibEntryView[]>(['received', 'frr4']))?.length;
    expect(received).toBeGreaterThanOrEqual(FRR.ipv4.length);
    await pmbmpd.until(
      (ls) => (stat(7)(ls)?.counter_value === received ? true : undefined),
      `Adj-RIB-In ${received}`,
    );
    expect((await pmbmpd.until(stat(8), 'Loc-RIB routes')).counter_value).toBe(FRR.ipv4.length - 1);
    const perAfi = await pmbmpd.until(stat(9), 'Adj-RIB-In per AFI/SAFI');
    expect(perAfi).toMatchObject({ afi: 1, safi: 1, counter_value: received });
  });

  it('a reload changes the import policy: the post-policy view follows (the newly rejected withdrawn, the newly accepted announced)', async () => {
    const { frr } = peers();
    const collector = frr.speakerAddress.ipv4;
    const kept = FRR.ipv4[0]!;
    const outcome = await speaker.reload(configDoc(lab, collector, kept));
    expect(outcome.msg).toBe('configuration reloaded');
    await pmbmpd.until(
      (ls) => routeOf(ls, frr.address.ipv4, kept, 1, 'withdraw'),
      `${kept} withdrawn post-policy`,
    );
    const now = await pmbmpd.until(
      (ls) => routeOf(ls, frr.address.ipv4, DROPPED, 1),
      `${DROPPED} post-policy`,
    );
    expect(now.local_pref).toBe(222);
    expect((await speaker.reload(configDoc(lab, collector))).msg).toBe('configuration reloaded');
    await pmbmpd.until(
      (ls) => (ls.filter((l) => routeOf([l], frr.address.ipv4, kept, 1)).length >= 2 ? true : undefined),
      `${kept} back post-policy`,
    );
  });

  it('logs a Peer Down with our NOTIFICATION when a neighbour is shut down, and its Peer Up again', async () => {
    const { gobgp } = peers();
    const ups = () =>
      pmbmpd.lines().filter((l) => l.bmp_msg_type === 'peer_up' && l.peer_ip === gobgp.address.ipv4);
    const before = ups().length;
    await speaker.neighborAction('gobgp4', 'shutdown');
    const down = await pmbmpd.until(
      (ls) => ls.find((l) => l.bmp_msg_type === 'peer_down' && l.peer_ip === gobgp.address.ipv4),
      'peer down',
    );
    // RFC 7854 4.9 reason 1: the local system closed the session with a NOTIFICATION.
    expect(down.reason_type).toBe(1);
    await speaker.neighborAction('gobgp4', 'enable');
    await speaker.waitEstablished(['gobgp4'], UP_MS);
    await eventually(() => (ups().length > before ? true : undefined), 'a new peer up', FLOW_MS);
  });

  it('pmbmpd restarted: the speaker connects again and sends the whole state again', async () => {
    const { frr, gobgp } = peers();
    await pmbmpd.stop();
    pmbmpd.rotate();
    pmbmpd.start();
    await pmbmpd.until((ls) => ls.find((l) => l.bmp_msg_type === 'init'), 'init again', UP_MS);
    for (const peer of [frr.address.ipv4, frr.address.ipv6, gobgp.address.ipv4]) {
      await pmbmpd.until(
        (ls) => ls.find((l) => l.bmp_msg_type === 'peer_up' && l.peer_ip === peer),
        `peer up ${peer} again`,
      );
    }
    await pmbmpd.until(
      (ls) => routeOf(ls, frr.address.ipv4, DROPPED, 0),
      'the rejected prefix pre-policy again',
    );
    await pmbmpd.until((ls) => routeOf(ls, frr.address.ipv4, FRR.ipv4[0]!, 1), 'the post-policy table again');
    const status = await speaker.show<{ collectors: { state: string; connects: number }[] }>(['bmp']);
    expect(status?.collectors[0]).toMatchObject({ state: 'up', connects: 2 });
  });

  it('the speaker stopped: pmbmpd logs the Peer Downs and our Termination', async () => {
    await speaker.stop();
    const term = await pmbmpd.until((ls) => ls.find((l) => l.bmp_msg_type === 'term'), 'termination');
    expect(String(term.bmp_term_info_reason)).toMatch(/administratively closed/i);
    const downs = pmbmpd.lines().filter((l) => l.bmp_msg_type === 'peer_down');
    expect(downs.length).toBeGreaterThanOrEqual(3);
  });
});
