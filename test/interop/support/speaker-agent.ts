/**
 * Runs our BGP sessions inside the lab's speaker namespace for the interop tests
 * (`ip netns exec NS node --import tsx speaker-agent.ts '<config JSON>'`; without an argument
 * the first line of stdin is the config). Reports what happens as JSON lines on stdout and
 * takes commands as JSON lines on stdin, e.g. {"id":1,"cmd":"shutdown","peer":"198.18.1.2",
 * "message":"maintenance"}. It exits when stdin closes, so a test that dies never leaves it
 * behind.
 */
import { createInterface } from 'node:readline';
import pino from 'pino';
import { addressBytes, parseIpv4 } from '../../../src/address/index.js';
import {
  type EstablishedInfo,
  FAMILY,
  type FamilyName,
  type Peer,
  SessionError,
  Sessions,
  type SessionsPeerInit,
} from '../../../src/bgp/session/index.js';
import { Afi, type AfiCode } from '../../../src/bgp/wire/constants.js';
import { capabilitiesOf } from '../../../src/bgp/wire/open.js';
import { PrefixList } from '../../../src/bgp/wire/prefix-list.js';
import type { UpdateInput, UpdateMessage } from '../../../src/bgp/wire/update.js';
import { type Logger, silentLogger } from '../../../src/components/index.js';

export interface AgentPeer extends SessionsPeerInit {
  /** Prefixes to announce once the session is up (those of the transport's family), then End-of-RIB. */
  readonly announce?: readonly string[];
}

export interface AgentConfig {
  readonly localAs: number;
  readonly routerId: string;
  readonly listen?: { readonly host?: string; readonly port?: number };
  readonly peers: readonly AgentPeer[];
  /** pino log (debug level) of the sessions, for post-mortems. */
  readonly logFile?: string;
}

export type AgentCommand = { readonly id?: number } & (
  | { readonly cmd: 'start' | 'stop' | 'status'; readonly peer?: string }
  | { readonly cmd: 'shutdown' | 'reset'; readonly peer: string; readonly message?: string }
  | { readonly cmd: 'refresh'; readonly peer: string; readonly family: FamilyName }
  | { readonly cmd: 'announce'; readonly peer: string; readonly prefixes: readonly string[] }
  | { readonly cmd: 'add-peer' | 'replace-peer'; readonly config: AgentPeer }
  | { readonly cmd: 'remove-peer'; readonly peer: string }
);

const EXIT_WAIT_MS = 3_000;
const ORIGIN_IGP = 0;
const AS_SEQUENCE = 2;
const DEFAULT_LOCAL_PREF = 100;

const emit = (event: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(event)}\n`);

const prefixText = (list: PrefixList | null | undefined) =>
  list ? list.toArray().map((p) => `${p.addr}/${p.len}`) : [];

function familyOfPrefix(prefix: string): FamilyName {
  return prefix.includes(':') ? 'ipv6-unicast' : 'ipv4-unicast';
}

function prefixList(afi: AfiCode, prefixes: readonly string[]): PrefixList {
  const list = new PrefixList(afi);
  for (const p of prefixes) {
    const [addr, len] = p.split('/');
    list.add(addr ?? '', Number(len));
  }
  return list;
}

/**
 * An UPDATE announcing `prefixes` of one family with our address on the session as next hop:
 * our AS prepended towards external peers, LOCAL_PREF towards internal ones (RFC 4271 5.1).
 */
function announcement(peer: Peer, info: EstablishedInfo, prefixes: readonly string[]): UpdateInput {
  const ebgp = peer.config.ebgp;
  const base = {
    origin: ORIGIN_IGP,
    asPath: ebgp ? [{ type: AS_SEQUENCE, asns: [peer.config.localAs] }] : [],
    ...(ebgp ? {} : { localPref: DEFAULT_LOCAL_PREF }),
  };
  const local = info.connection.local.address;
  if (familyOfPrefix(prefixes[0] ?? '') === 'ipv4-unicast') {
    return { attrs: { ...base, nextHop: parseIpv4(local) }, nlri: prefixList(Afi.IPV4, prefixes) };
  }
  return {
    attrs: { ...base, mpReach: { afi: Afi.IPV6, safi: 1, nextHop: addressBytes(local), reserved: 0 } },
    mpNlri: prefixList(Afi.IPV6, prefixes),
  };
}

function familyNames(info: EstablishedInfo): string[] {
  return info.negotiated.families.map(
    (f) =>
      (Object.keys(FAMILY) as FamilyName[]).find(
        (n) => FAMILY[n].afi === f.afi && FAMILY[n].safi === f.safi,
      ) ?? `${f.afi}/${f.safi}`,
  );
}

function describeUpdate(address: string, u: UpdateMessage): Record<string, unknown> {
  return {
    ev: 'update',
    peer: address,
    announce: [...prefixText(u.nlri), ...prefixText(u.mpNlri)],
    withdraw: [...prefixText(u.withdrawn), ...prefixText(u.mpUnreach?.withdrawn)],
    asPath: u.attrs?.asPath?.flatMap((s) => s.asns) ?? [],
    action: u.action,
  };
}

async function readConfig(): Promise<AgentConfig> {
  if (process.argv[2]) return JSON.parse(process.argv[2]) as AgentConfig;
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) {
    lines.close();
    return JSON.parse(line) as AgentConfig;
  }
  throw new Error('no config on argv or stdin');
}

async function main(): Promise<void> {
  const config = await readConfig();
  const logger: Logger = config.logFile
    ? pino({ level: 'debug' }, pino.destination({ dest: config.logFile, sync: true }))
    : silentLogger;
  const announcements = new Map<string, readonly string[]>();

  const wire = (peer: Peer) => {
    const peerAddress = peer.address;
    peer.on('state', (c) => emit({ ev: 'state', peer: peerAddress, ...c }));
    peer.on('connection', (c) => emit({ ev: 'connection', peer: peerAddress, ...c }));
    peer.on('collision', (c) => emit({ ev: 'collision', peer: peerAddress, ...c }));
    peer.on('down', (reason) => emit({ ev: 'down', peer: peerAddress, reason }));
    peer.on('update', (u) => emit(describeUpdate(peerAddress, u)));
    peer.on('end-of-rib', (f) => emit({ ev: 'end-of-rib', peer: peerAddress, ...f }));
    peer.on('route-refresh', (m) =>
      emit({ ev: 'route-refresh', peer: peerAddress, afi: m.afi, safi: m.safi, subtype: m.subtype }),
    );
    peer.on('notification', (n) =>
      emit({
        ev: 'notification',
        peer: peerAddress,
        direction: n.direction,
        code: n.code,
        subcode: n.subcode,
        message: n.message,
        text: n.text,
      }),
    );
    peer.on('established', (info) => {
      const n = info.negotiated;
      emit({
        ev: 'established',
        peer: peerAddress,
        holdTime: info.holdTime,
        keepaliveTime: info.keepaliveTime,
        remoteAs: n.remoteAs,
        remoteId: n.remoteBgpId,
        as4: n.as4,
        families: familyNames(info),
        routeRefresh: n.routeRefresh,
        enhancedRouteRefresh: n.enhancedRouteRefresh,
        extendedMessage: n.extendedMessage,
        // What the peer's OPEN offered, by name, once each (one we do not know: "code N").
        remoteCapabilities: [
          ...new Set(
            capabilitiesOf(info.remoteOpen).map((c) => (c.name === 'raw' ? `code ${c.code}` : c.name)),
          ),
        ].sort(),
        direction: info.connection.direction,
        local: info.connection.local,
        remote: info.connection.remote,
      });
      // What a RIB would do at this point: the initial routes, then End-of-RIB per family.
      const transport = info.connection.local.address.includes(':') ? 'ipv6-unicast' : 'ipv4-unicast';
      const mine = (announcements.get(peerAddress) ?? []).filter((p) => familyOfPrefix(p) === transport);
      try {
        if (mine.length > 0 && familyNames(info).includes(transport))
          peer.send(announcement(peer, info, mine));
        for (const f of info.negotiated.families) peer.sendEndOfRib(f.afi as AfiCode, f.safi);
      } catch (error) {
        emit({ ev: 'error', cmd: 'announce', peer: peerAddress, message: String(error) });
      }
    });
  };

  const sessions = await Sessions.create(
    { localAs: config.localAs, routerId: config.routerId, listen: config.listen ?? {} },
    {
      logger,
      onPeer: wire,
      onRefused: (remote) => emit({ ev: 'refused', address: remote.address }),
    },
  );

  const add = (p: AgentPeer) => {
    const { announce, ...init } = p;
    const peer = sessions.addPeer(init);
    announcements.set(peer.address, announce ?? []);
    return peer;
  };
  for (const p of config.peers) add(p);

  const peerOf = (address: string | undefined): Peer => {
    const peer = address === undefined ? undefined : sessions.peer(address);
    if (!peer) throw new SessionError('unknown-peer', `no peer ${address}`);
    return peer;
  };

  const run = async (c: AgentCommand): Promise<Record<string, unknown>> => {
    switch (c.cmd) {
      case 'start':
        peerOf(c.peer).start();
        return {};
      case 'stop':
        peerOf(c.peer).stop();
        return {};
      case 'shutdown':
        peerOf(c.peer).shutdown(c.message);
        return {};
      case 'reset':
        peerOf(c.peer).reset(c.message);
        return {};
      case 'refresh':
        peerOf(c.peer).refresh(FAMILY[c.family].afi, FAMILY[c.family].safi);
        return {};
      case 'announce': {
        const peer = peerOf(c.peer);
        const info = peer.established;
        if (!info) throw new SessionError('not-established', `${c.peer} is ${peer.state}`);
        return { more: peer.send(announcement(peer, info, c.prefixes)) };
      }
      case 'add-peer':
        return { address: add(c.config).address };
      case 'replace-peer': {
        const key = c.config.address ?? c.config.interface ?? '';
        if (sessions.peer(key)) await sessions.removePeer(key);
        return { address: add(c.config).address };
      }
      case 'remove-peer':
        await sessions.removePeer(c.peer);
        return {};
      case 'status':
        return {
          peers: sessions.peers().map((p) => ({
            address: p.address,
            state: p.state,
            enabled: p.enabled,
            connections: p.connections,
            stats: p.stats,
          })),
        };
    }
  };

  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    if (line.trim() === '') return;
    let c: AgentCommand;
    try {
      c = JSON.parse(line) as AgentCommand;
    } catch (error) {
      emit({ ev: 'error', message: `not JSON: ${String(error)}` });
      return;
    }
    run(c).then(
      (result) => emit({ ev: 'ok', id: c.id, cmd: c.cmd, ...result }),
      (error: unknown) =>
        emit({
          ev: 'error',
          id: c.id,
          cmd: c.cmd,
          kind: (error as { kind?: string }).kind,
          message: error instanceof Error ? error.message : String(error),
        }),
    );
  });
  lines.on('close', () => {
    const bye = setTimeout(() => process.exit(0), EXIT_WAIT_MS);
    void sessions.close('speaker agent exiting').finally(() => {
      clearTimeout(bye);
      process.exit(0);
    });
  });
  emit({ ev: 'ready', pid: process.pid, listen: sessions.address });
}

main().catch((error: unknown) => {
  emit({ ev: 'fatal', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  process.exit(1);
});
