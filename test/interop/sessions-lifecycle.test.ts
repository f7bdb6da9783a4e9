import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  birdProtocolName,
  type DaemonImpl,
  type Family,
  Lab,
  type LabPeer,
  type NeighborSpec,
} from '../../frr-interop/lab/index.js';
import { bgpConnections, SpeakerAgent, tcpCounters } from './support/speaker.js';
import type { AgentPeer } from './support/speaker-agent.js';

// Our sessions against FRR 8.4, GoBGP 3.10 and BIRD 2 through a session's life: up over IPv4
// and IPv6, route refresh both ways, administrative shutdown with a message the peer shows,
// the peer restarting, the peer freezing (hold timer), a wrong TCP-MD5 password, and both
// sides connecting at once. One lab for the whole file; daemons are reconfigured live.

const IS_ROOT = process.getuid?.() === 0;
const SPEAKER = { as: 65000, routerId: '198.18.0.1' } as const;
const TRANSPORTS: readonly Family[] = ['ipv4', 'ipv6'];
const UP_MS = 45_000;
/** gobgpd stays idle 6-13 s after a NOTIFICATION (frr-lab.md), so coming back takes a while. */
const BACK_UP_MS = 60_000;
/** Per test: above the sum of its own bounded waits, so those fail first and say what they waited for. */
const TEST_MS = 240_000;

const PEERS: readonly { name: string; impl: DaemonImpl; as: number; index: number }[] = [
  { name: 'frr', impl: 'frr', as: 65001, index: 1 },
  { name: 'gobgp', impl: 'gobgp', as: 65002, index: 2 },
  { name: 'bird', impl: 'bird', as: 65003, index: 3 },
];
const theirs = (i: number): Record<Family, string> => ({
  ipv4: `198.19.1${i}.0/24`,
  ipv6: `2001:db8:a${i}::/48`,
});
const ours = (i: number): Record<Family, string> => ({
  ipv4: `198.19.2${i}.0/24`,
  ipv6: `2001:db8:b${i}::/48`,
});
const familyName = (f: Family) => (f === 'ipv4' ? 'ipv4-unicast' : 'ipv6-unicast');
/** Hold time of the peers' neighbors in the collision case (it must outlast our freeze). */
const COLLISION_HOLD_TIME = 30;
const FREEZE_MARGIN_MS = 5_000;
/** How long a wrong password is watched not to establish: several connect retries of each side. */
const WRONG_PASSWORD_WATCH_MS = 8_000;

/** Segments the kernel dropped for a missing or wrong TCP-MD5 signature (RFC 2385). */
const md5Drops = (c: Record<string, number>) =>
  (c.TcpExtTCPMD5NotFound ?? 0) + (c.TcpExtTCPMD5Unexpected ?? 0) + (c.TcpExtTCPMD5Failure ?? 0);

interface Session {
  readonly peer: LabPeer;
  readonly transport: Family;
  /** The peer's address: how our agent names the session. */
  readonly address: string;
  /** Our address: how the peer's daemon names it. */
  readonly ours: string;
  readonly index: number;
}

describe.skipIf(!IS_ROOT)('sessions through their life, against FRR, GoBGP and BIRD', () => {
  // A fixed id: a run that was killed outright leaves a lab the next run removes first.
  const id = 'sesslife';
  let lab: Lab;
  let agent: SpeakerAgent;
  let sessions: Session[] = [];

  const v4 = (name: string): Session => sessions.find((s) => s.peer.name === name && s.transport === 'ipv4')!;

  /** The peer daemon's neighbor for our end of session `s`, as the lab first configured it. */
  const neighborSpec = (s: Session): NeighborSpec => ({
    address: s.ours,
    remoteAs: SPEAKER.as,
    families: [s.transport],
  });

  const agentPeer = (s: Session, patch: Partial<AgentPeer> = {}): AgentPeer => ({
    address: s.address,
    remoteAs: s.peer.as,
    families: [familyName(s.transport)],
    connectRetryTime: 2,
    idleHoldTime: 1,
    maxIdleHoldTime: 4,
    announce: [ours(s.index)[s.transport]],
    ...patch,
  });

  /** Waits until every session in `list` is up on both sides (after `since` on ours). */
  async function allUp(list: readonly Session[], since: number, timeoutMs = UP_MS): Promise<void> {
    await Promise.all(
      list.map(async (s) => {
        await agent.waitFor(
          (e) => e.ev === 'established' && e.peer === s.address,
          `our session with ${s.peer.name} over ${s.transport}`,
          timeoutMs,
          since,
        );
        await s.peer.daemon.waitForNeighborState(s.ours, 'Established', timeoutMs);
      }),
    );
  }

  beforeAll(async () => {
    lab = await Lab.create({
      id,
      speaker: SPEAKER,
      peers: PEERS.map((p) => ({
        name: p.name,
        impl: p.impl,
        as: p.as,
        originate: { ipv4: [theirs(p.index).ipv4], ipv6: [theirs(p.index).ipv6] },
      })),
    });
    sessions = lab.peers.flatMap((peer, i) =>
      TRANSPORTS.map((transport) => ({
        peer,
        transport,
        address: peer.address[transport],
        ours: peer.speakerAddress[transport],
        index: PEERS[i]!.index,
      })),
    );
    agent = await SpeakerAgent.start(lab.speakerNs, {
      localAs: SPEAKER.as,
      routerId: SPEAKER.routerId,
      peers: sessions.map((s) => agentPeer(s)),
      logFile: join(lab.dir, 'speaker-sessions.log'),
    });
  });

  afterAll(async () => {
    await agent?.stop();
    await lab?.destroy();
  });

  it(
    'reaches Established with each peer over IPv4 and IPv6, and routes flow both ways',
    async () => {
      await allUp(sessions, 0);
      for (const s of sessions) {
        const up = agent.find((e) => e.ev === 'established' && e.peer === s.address)!;
        expect(up, `${s.peer.name} ${s.transport}`).toMatchObject({
          remoteAs: s.peer.as,
          families: [familyName(s.transport)],
          as4: true,
          holdTime: 9,
          keepaliveTime: 3,
          routeRefresh: true,
        });
        const theirPrefix = theirs(s.index)[s.transport];
        await agent.waitFor(
          (e) => e.ev === 'update' && e.peer === s.address && (e.announce as string[]).includes(theirPrefix),
          `${theirPrefix} from ${s.peer.name}`,
          UP_MS,
        );
        const mine = ours(s.index)[s.transport];
        const route = await until(
          async () =>
            (await s.peer.daemon.routes(s.transport, { from: s.ours })).find((r) => r.prefix === mine),
          `${mine} at ${s.peer.name}`,
        );
        expect(route.asPath).toEqual([SPEAKER.as]);
      }
    },
    TEST_MS,
  );

  it(
    'answers a ROUTE-REFRESH from FRR and BIRD, and every peer answers ours',
    async () => {
      // GoBGP's `softresetin` re-runs policy over its Adj-RIB-In and never sends ROUTE-REFRESH.
      const since = agent.mark();
      const [frr, , bird] = [v4('frr'), v4('gobgp'), v4('bird')];
      await lab.frr('frr').vtysh([`clear bgp ipv4 unicast ${frr.ours} soft in`]);
      await lab.bird('bird').birdc(['reload', 'in', birdProtocolName(bird.ours)]);
      for (const s of [frr, bird]) {
        await agent.waitFor(
          (e) => e.ev === 'route-refresh' && e.peer === s.address && e.afi === 1 && e.subtype === 0,
          `a ROUTE-REFRESH from ${s.peer.name}`,
          UP_MS,
          since,
        );
      }
      for (const s of sessions) {
        const before = agent.mark();
        await agent.command({ cmd: 'refresh', peer: s.address, family: familyName(s.transport) });
        await agent.waitFor(
          (e) =>
            e.ev === 'update' &&
            e.peer === s.address &&
            (e.announce as string[]).includes(theirs(s.index)[s.transport]),
          `${s.peer.name} over ${s.transport} to send its routes again`,
          UP_MS,
          before,
        );
      }
    },
    TEST_MS,
  );

  it(
    'administrative shutdown sends Cease/2 with a message each peer shows; start brings it back',
    async () => {
      const list = ['frr', 'gobgp', 'bird'].map(v4);
      const shutdownAt = agent.mark();
      for (const s of list) {
        await agent.command({
          cmd: 'shutdown',
          peer: s.address,
          message: `maintenance of ${s.peer.name} link`,
        });
      }
      for (const s of list) {
        const sent = await agent.waitFor(
          (e) => e.ev === 'notification' && e.peer === s.address && e.direction === 'sent',
          `our NOTIFICATION to ${s.peer.name}`,
          UP_MS,
          shutdownAt,
        );
        expect(sent).toMatchObject({ code: 6, subcode: 2, message: `maintenance of ${s.peer.name} link` });
        // The peer's own status output shows the RFC 9003 message it received.
        const seen = await until(async () => {
          const n = await s.peer.daemon.neighbor(s.ours);
          return n?.lastNotification?.message === `maintenance of ${s.peer.name} link` ? n : undefined;
        }, `${s.peer.name} to show the shutdown message`);
        expect(seen.state).not.toBe('Established');
        expect(seen.lastNotification).toMatchObject({ message: `maintenance of ${s.peer.name} link` });
        if (seen.lastNotification?.code !== undefined)
          expect(seen.lastNotification).toMatchObject({ code: 6, subcode: 2 });
      }
      const since = agent.mark();
      for (const s of list) await agent.command({ cmd: 'start', peer: s.address });
      await allUp(list, since, BACK_UP_MS);
    },
    TEST_MS,
  );

  it(
    'reconnects after each peer restarts',
    async () => {
      const since = agent.mark();
      await Promise.all(lab.peers.map((p) => p.daemon.restart()));
      for (const s of sessions) {
        await agent.waitFor(
          (e) => e.ev === 'down' && e.peer === s.address,
          `${s.peer.name} ${s.transport} down`,
          UP_MS,
          since,
        );
      }
      await allUp(sessions, since, BACK_UP_MS);
    },
    TEST_MS,
  );

  it(
    'a peer frozen with SIGSTOP gets Hold Timer Expired from us on both transports',
    async () => {
      const since = agent.mark();
      for (const p of lab.peers) p.daemon.pause();
      try {
        for (const s of sessions) {
          const n = await agent.waitFor(
            (e) => e.ev === 'notification' && e.peer === s.address && e.direction === 'sent',
            `Hold Timer Expired to ${s.peer.name} over ${s.transport}`,
            // negotiated hold time 9 s, plus the time the freeze took to reach every daemon
            UP_MS,
            since,
          );
          expect(n).toMatchObject({ code: 4, subcode: 0 });
          const down = await agent.waitFor(
            (e) => e.ev === 'down' && e.peer === s.address,
            `${s.peer.name} ${s.transport} down`,
            UP_MS,
            since,
          );
          expect(down.reason).toBe('hold timer expired');
        }
      } finally {
        for (const p of lab.peers) p.daemon.resume();
      }
      await allUp(sessions, since, BACK_UP_MS);
    },
    TEST_MS,
  );

  it(
    'a wrong TCP-MD5 password never establishes; both ends drop the signed segments',
    async () => {
      const list = ['frr', 'gobgp', 'bird'].map(v4);
      const since = agent.mark();
      for (const s of list) await agent.command({ cmd: 'remove-peer', peer: s.address });
      for (const s of list) {
        await s.peer.daemon.removeNeighbor(s.ours);
        await s.peer.daemon.addNeighbor({ ...neighborSpec(s), password: 'their-secret' });
      }
      const speakerBefore = tcpCounters(lab.speakerNs);
      const peersBefore = list.map((s) => tcpCounters(s.peer.ns));
      for (const s of list)
        await agent.command({ cmd: 'add-peer', config: agentPeer(s, { password: 'our-secret' }) });
      // Several connection attempts each way: the peers retry every 2 s, we every 1-2 s.
      const deadline = Date.now() + WRONG_PASSWORD_WATCH_MS;
      while (Date.now() < deadline) {
        for (const s of list) {
          const n = await s.peer.daemon.neighbor(s.ours);
          expect(n?.state, `${s.peer.name}`).not.toBe('Established');
        }
        await new Promise((r) => setTimeout(r, 500));
      }
      for (const s of list) {
        expect(agent.find((e) => e.ev === 'established' && e.peer === s.address, since)).toBeUndefined();
      }
      // RFC 2385: a segment with a wrong signature is dropped by the kernel, silently; only the
      // counters tell. Ours counts the peers' SYNs, theirs count ours.
      const speakerAfter = tcpCounters(lab.speakerNs);
      expect(md5Drops(speakerAfter) - md5Drops(speakerBefore)).toBeGreaterThan(0);
      list.forEach((s, i) => {
        expect(md5Drops(tcpCounters(s.peer.ns)) - md5Drops(peersBefore[i]!), s.peer.name).toBeGreaterThan(0);
      });

      // The same password on both ends: up again.
      const again = agent.mark();
      for (const s of list) {
        await agent.command({ cmd: 'replace-peer', config: agentPeer(s, { password: 'their-secret' }) });
      }
      await allUp(list, again, BACK_UP_MS);
    },
    TEST_MS,
  );

  it(
    'both sides connecting at once leaves exactly one session (RFC 4271 6.8)',
    async () => {
      // The peer connects to us while we are frozen (SIGSTOP): its connection waits in our
      // kernel's accept queue with its OPEN. Then we start our end, which dials the peer at once:
      // two TCP connections exist before either OPEN exchange is done, and the collision has
      // to be resolved on both ends. Each daemon's router id (198.18.<i>.2) is above ours
      // (198.18.0.1), so RFC 4271 6.8 keeps the connection the peer opened; a connection that
      // reaches Established first is kept for the same reason, so every order agrees.
      const list = ['frr', 'gobgp', 'bird'].map(v4);
      // Fresh neighbors (GoBGP idles after a NOTIFICATION), with a hold time that outlasts the
      // freeze: FRR and GoBGP run their OpenSent hold timer at the configured hold time.
      for (const s of list) await s.peer.daemon.removeNeighbor(s.ours);
      for (const s of list)
        await agent.command({ cmd: 'replace-peer', config: agentPeer(s, { enabled: false }) });
      const since = agent.mark();
      agent.freeze();
      try {
        // Written while frozen: read first when the agent wakes, before the accept queue.
        for (const s of list) agent.send({ cmd: 'start', peer: s.address });
        for (const s of list) {
          await s.peer.daemon.addNeighbor({
            ...neighborSpec(s),
            holdTime: COLLISION_HOLD_TIME,
            keepalive: 10,
          });
        }
        await until(
          async () =>
            list.every((s) => bgpConnections(lab.speakerNs, s.address).length === 1) ? true : undefined,
          'each peer to connect to the frozen speaker',
          COLLISION_HOLD_TIME * 1000 - FREEZE_MARGIN_MS,
        );
      } finally {
        agent.thaw();
      }
      for (const s of list) {
        await agent.waitFor(
          (e) => e.ev === 'established' && e.peer === s.address,
          `the session with ${s.peer.name}`,
          BACK_UP_MS,
          since,
        );
        await s.peer.daemon.waitForNeighborState(s.ours, 'Established', UP_MS);
        // Both connections existed: the peer's, and ours made while its was waiting. GoBGP
        // never keeps two: it closes a connection it accepts outside Active, often before our
        // connect completes, so only FRR and BIRD are held to seeing both.
        const events = agent.filter((e) => e.peer === s.address, since);
        const directions = events.filter((e) => e.ev === 'connection').map((e) => e.direction);
        if (s.peer.impl === 'gobgp') expect(directions, JSON.stringify(events)).toContain('incoming');
        else
          expect(directions.sort(), `${s.peer.name}: ${JSON.stringify(events)}`).toEqual([
            'incoming',
            'outgoing',
          ]);
      }
      for (const s of list) {
        const left = await until(async () => {
          const c = bgpConnections(lab.speakerNs, s.address);
          return c.length === 1 ? c : undefined;
        }, `one connection left with ${s.peer.name}`);
        // The survivor is the peer's connection to our port 179.
        expect(left[0]!.local.endsWith(':179'), `${s.peer.name}: ${JSON.stringify(left)}`).toBe(true);
        // The session that stays is the one on the peer's connection: the last Established, with
        // nothing after it. (When the peer sends its KEEPALIVE on the losing connection before it
        // resolves the collision, that one may have been Established for a moment.)
        const events = agent.filter((e) => e.peer === s.address, since);
        const last = events.map((e) => e.ev).lastIndexOf('established');
        expect(events[last], `${s.peer.name}: ${JSON.stringify(events)}`).toMatchObject({
          direction: 'incoming',
        });
        expect(events.slice(last).filter((e) => e.ev === 'down' || e.ev === 'state')).toEqual([]);
      }
    },
    TEST_MS,
  );
});

async function until<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = UP_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
