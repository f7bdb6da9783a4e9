import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { addressBytes, parseIpv4 } from '../../src/address/index.js';
import {
  type EstablishedInfo,
  type Family,
  type NotificationEvent,
  type Peer,
  Sessions,
  type SessionsComponents,
  type SessionsPeerInit,
  type StateChange,
} from '../../src/bgp/session/index.js';
import type { PathAttributes } from '../../src/bgp/wire/attributes/types.js';
import { Afi, AsPathSegmentType, Origin, Safi } from '../../src/bgp/wire/constants.js';
import { PrefixList } from '../../src/bgp/wire/prefix-list.js';
import type { RouteRefreshMessage } from '../../src/bgp/wire/route-refresh.js';
import type { UpdateInput, UpdateMessage } from '../../src/bgp/wire/update.js';
import { type Config, parseConfig } from '../../src/config/index.js';
import { Speaker, type SpeakerComponents } from '../../src/speaker/index.js';

/** Our speaker's address on loopback; probes each get their own 127.0.0.N so peers tell apart. */
export const SPEAKER_IP = '127.0.0.1';
export const SPEAKER_AS = 65000;
export const SPEAKER_ID = '198.18.0.1';

const WAIT_MS = 10_000;
const POLL_MS = 5;

/** Polls `ok` until it holds, bounded; throws naming `what`. */
export async function until(ok: () => boolean, what: string, timeoutMs = WAIT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** A private directory for control sockets, removed by `cleanup`. */
export function tempDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'obs-speaker-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A port nobody listens on right now (the kernel's choice, released at once). */
export async function freePort(host: string): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A configuration as the file spells it (snake_case), through the real loader. */
export function configFrom(doc: Record<string, unknown>): Config {
  return parseConfig(stringify(doc)).config;
}

/** The file's text for a configuration document (for reload tests through ConfigStore). */
export function yamlOf(doc: Record<string, unknown>): string {
  return stringify(doc);
}

/** Speaker settings for tests: loopback, a free port, short timers, a private control socket. */
export function speakerSection(dir: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'test-speaker',
    local_as: SPEAKER_AS,
    router_id: SPEAKER_ID,
    listen: { address: SPEAKER_IP, port: 0 },
    hold_time: 30,
    connect_retry: 1,
    control_socket: join(dir, 'control.sock'),
    log: { level: 'silent' },
    ...extra,
  };
}

/** Everything a probe's session reported, in order. */
export interface ProbeRecord {
  readonly states: StateChange[];
  readonly established: EstablishedInfo[];
  readonly updates: UpdateMessage[];
  readonly endOfRib: Family[];
  readonly refreshes: RouteRefreshMessage[];
  readonly notifications: NotificationEvent[];
  /** Index into `updates` at which each End-of-RIB arrived. */
  readonly endOfRibAt: number[];
}

/** Prefixes as text: "198.18.10.0/24". */
const texts = (list: PrefixList | null | undefined): string[] =>
  list ? list.toArray().map((p) => `${p.addr}/${p.len}`) : [];

/**
 * A bare BGP speaker built on our session layer alone (no RIB): it peers with the speaker
 * under test from its own loopback address, records exactly what it is sent, and sends what
 * a test tells it to. Passive, so the speaker under test makes the connection.
 */
export class Probe {
  readonly sessions: Sessions;
  readonly peer: Peer;
  readonly address: string;
  readonly as: number;
  readonly routerId: string;
  readonly port: number;
  readonly rec: ProbeRecord;

  private constructor(sessions: Sessions, peer: Peer, address: string, as: number, routerId: string) {
    this.sessions = sessions;
    this.peer = peer;
    this.address = address;
    this.as = as;
    this.routerId = routerId;
    this.port = sessions.address!.port;
    const rec: ProbeRecord = {
      states: [],
      established: [],
      updates: [],
      endOfRib: [],
      refreshes: [],
      notifications: [],
      endOfRibAt: [],
    };
    peer.on('state', (c) => rec.states.push(c));
    peer.on('established', (i) => rec.established.push(i));
    peer.on('update', (u) => {
      rec.updates.push(u);
    });
    peer.on('end-of-rib', (f) => {
      rec.endOfRib.push(f);
      rec.endOfRibAt.push(rec.updates.length);
    });
    peer.on('route-refresh', (m) => rec.refreshes.push(m));
    peer.on('notification', (n) => rec.notifications.push(n));
    this.rec = rec;
  }

  /** A probe at `address` (127.0.0.N) with AS `as`, peering with the speaker at SPEAKER_IP. */
  static async start(
    address: string,
    as: number,
    routerId: string,
    init: Partial<SessionsPeerInit> = {},
    components: SessionsComponents = {},
  ): Promise<Probe> {
    const sessions = await Sessions.create(
      { localAs: as, routerId, listen: { host: address, port: 0 } },
      components,
    );
    const peer = sessions.addPeer({
      address: SPEAKER_IP,
      remoteAs: SPEAKER_AS,
      localAddress: address,
      passive: true,
      holdTime: 30,
      idleHoldTime: 1,
      families: ['ipv4-unicast', 'ipv6-unicast'],
      ...init,
    });
    return new Probe(sessions, peer, address, as, routerId);
  }

  /** Decoded UPDATEs as per-prefix events, in arrival order. */
  events(): { kind: 'announce' | 'withdraw'; prefix: string; attrs: PathAttributes | null }[] {
    const out: { kind: 'announce' | 'withdraw'; prefix: string; attrs: PathAttributes | null }[] = [];
    for (const u of this.rec.updates) {
      for (const p of [...texts(u.withdrawn), ...texts(u.mpUnreach?.withdrawn)])
        out.push({ kind: 'withdraw', prefix: p, attrs: null });
      for (const p of [...texts(u.nlri), ...texts(u.mpNlri)])
        out.push({ kind: 'announce', prefix: p, attrs: u.attrs });
    }
    return out;
  }

  /** What the probe currently has from the speaker: prefix → attributes of the last announcement. */
  table(): Map<string, PathAttributes> {
    const t = new Map<string, PathAttributes>();
    for (const e of this.events()) {
      if (e.kind === 'withdraw') t.delete(e.prefix);
      else t.set(e.prefix, e.attrs!);
    }
    return t;
  }

  get established(): boolean {
    return this.peer.state === 'Established';
  }

  /** Announces prefixes of one family with the probe as next hop and `asPath` (default: its AS). */
  announce(
    prefixes: readonly string[],
    opts: Omit<Partial<PathAttributes>, 'asPath'> & { asPath?: number[] } = {},
  ): void {
    this.peer.send(this.update(prefixes, opts));
  }

  update(
    prefixes: readonly string[],
    opts: Omit<Partial<PathAttributes>, 'asPath'> & { asPath?: number[] } = {},
  ): UpdateInput {
    const { asPath, ...rest } = opts;
    const ebgp = this.as !== SPEAKER_AS;
    const attrs: PathAttributes = {
      origin: Origin.IGP,
      asPath: [{ type: AsPathSegmentType.AS_SEQUENCE, asns: asPath ?? (ebgp ? [this.as] : []) }],
      ...(ebgp ? {} : { localPref: 100 }),
      ...rest,
    };
    const v6 = prefixes[0]?.includes(':') ?? false;
    const list = prefixList(prefixes);
    if (!v6) return { attrs: { nextHop: parseIpv4(this.address), ...attrs }, nlri: list };
    return {
      attrs: {
        ...attrs,
        mpReach: {
          afi: Afi.IPV6,
          safi: Safi.UNICAST,
          nextHop: addressBytes('2001:db8:ffff::1'),
          reserved: 0,
        },
      },
      mpNlri: list,
    };
  }

  withdraw(prefixes: readonly string[]): void {
    const list = prefixList(prefixes);
    if (list.afi === Afi.IPV4) this.peer.send({ withdrawn: list });
    else this.peer.send({ mpUnreach: { afi: Afi.IPV6, safi: Safi.UNICAST, withdrawn: list } });
  }

  close(): Promise<void> {
    return this.sessions.close('probe done');
  }
}

export function prefixList(prefixes: readonly string[]): PrefixList {
  const v6 = prefixes[0]?.includes(':') ?? false;
  const list = new PrefixList(v6 ? Afi.IPV6 : Afi.IPV4);
  for (const p of prefixes) {
    const [addr, len] = p.split('/');
    list.add(addr!, Number(len));
  }
  return list;
}

/** A speaker's peer entry for a probe (eBGP unless the probe's AS is ours). */
export function probePeer(p: Probe, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: `p${p.address.split('.').at(-1)}`,
    peer_ip: p.address,
    port: p.port,
    remote_as: p.as,
    local_address: SPEAKER_IP,
    families: ['ipv4-unicast', 'ipv6-unicast'],
    ...extra,
  };
}

/** Starts a speaker on a configuration document; `close` in afterEach. */
export async function startSpeaker(
  doc: Record<string, unknown>,
  components: SpeakerComponents = {},
): Promise<Speaker> {
  return Speaker.start(configFrom(doc), components);
}

/** Policy sections that accept everything (to satisfy RFC 8212 on eBGP peers). */
export const ACCEPT_ALL = { statements: [{ action: 'accept' }] };

/** A configuration with one of each kind of peer and route, for the tests of what the speaker and routing make of them. */
export function sampleConfig(): Config {
  return configFrom({
    speaker: { name: 's', local_as: 65000, router_id: '198.18.0.1' },
    peers: [
      {
        name: 'tor',
        peer_ip: '198.18.1.2',
        remote_as: 65001,
        auth_type: 'md5',
        password: 'secret',
        ttl_security: 1,
        hold_time: 9,
        passive: true,
        add_path: { receive: true },
        families: ['ipv4-unicast', 'ipv6-unicast'],
        max_prefixes: { limit: 10, warning_threshold: 50, restart_after: 30 },
      },
      { name: 'multi', peer_ip: '2001:db8::2', remote_as: 65002, ebgp_multihop: 3, shutdown: true },
    ],
    routes: [
      {
        prefix: '198.18.100.0/24',
        communities: ['65000:100', 'no-export'],
        large_communities: ['65000:1:2'],
        extended_communities: ['rt:65000:1', 'soo 198.18.0.1:7'],
        med: 10,
      },
      { prefix: '2001:db8:100::/48', next_hop: '2001:db8:1::1', origin: 'incomplete', local_pref: 200 },
      { prefix: '198.18.101.0/24', next_hop: '198.18.1.9' },
    ],
    networks: ['2001:db8:10::/48'],
  });
}
