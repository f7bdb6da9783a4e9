import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type DaemonImpl,
  type DaemonRelease,
  type Family,
  Lab,
  type LabPeer,
  type NeighborSpec,
} from '../../frr-interop/lab/index.js';
import { md5Keyed, SpeakerAgent } from './support/speaker.js';
import type { AgentPeer } from './support/speaker-agent.js';

// The interop matrix: our sessions reach Established, and carry routes both ways, with the
// versions Debian 12 ships (FRR 8.4, GoBGP 3.10, BIRD 2.0, from the host) and today's (FRR
// 10.3, GoBGP 3.36, BIRD 3.1, from the trixie root); over IPv4 and IPv6 transport; eBGP and
// iBGP; 2-octet and 4-octet ASNs; with and without TCP-MD5. One lab of twelve daemons (each
// implementation and release once with a 2-octet and once with a 4-octet AS), 24 sessions,
// reconfigured live (on the daemons and on our side) for each of four phases: every test below
// is one cell of the matrix. The bookworm cells keep the names README's matrix gives them; the
// trixie cells carry the version in theirs.
//
// What differs between the releases is handled in the lab, never by an expectation here: BIRD 3
// made `peer` a keyword (the lab names its protocols nb_<address>) and prints route attributes
// under new names (bird-parse.ts reads both). What each version offers in its OPEN is asserted
// per cell (capabilities below), so a change in a new version shows as a failing cell.

const IS_ROOT = process.getuid?.() === 0;
const SPEAKER_ID = '198.18.0.1';
/** Our AS towards external peers, by the size of theirs (RFC 6793: both 4-octet, AS_TRANS in OPEN). */
const OUR_EBGP_AS = { 2: 65000, 4: 4_200_000_000 } as const;
const TRANSPORTS: readonly Family[] = ['ipv4', 'ipv6'];
const UP_MS = 45_000;
/** Per cell: above the sum of its bounded waits, so those fail first and say what they waited for. */
const CELL_MS = 4 * UP_MS + 20_000;

type AsSize = 2 | 4;
interface PeerDef {
  readonly name: string;
  readonly impl: DaemonImpl;
  readonly release: DaemonRelease;
  readonly as: number;
  readonly size: AsSize;
  readonly index: number;
}
const PEERS: readonly PeerDef[] = [
  { name: 'frr2', impl: 'frr', release: 'bookworm', as: 65001, size: 2, index: 1 },
  { name: 'frr4', impl: 'frr', release: 'bookworm', as: 4_200_000_001, size: 4, index: 2 },
  { name: 'gobgp2', impl: 'gobgp', release: 'bookworm', as: 65002, size: 2, index: 3 },
  { name: 'gobgp4', impl: 'gobgp', release: 'bookworm', as: 4_200_000_002, size: 4, index: 4 },
  { name: 'bird2', impl: 'bird', release: 'bookworm', as: 65003, size: 2, index: 5 },
  { name: 'bird4', impl: 'bird', release: 'bookworm', as: 4_200_000_003, size: 4, index: 6 },
  { name: 'tfrr2', impl: 'frr', release: 'trixie', as: 65004, size: 2, index: 7 },
  { name: 'tfrr4', impl: 'frr', release: 'trixie', as: 4_200_000_004, size: 4, index: 8 },
  { name: 'tgobgp2', impl: 'gobgp', release: 'trixie', as: 65005, size: 2, index: 9 },
  { name: 'tgobgp4', impl: 'gobgp', release: 'trixie', as: 4_200_000_005, size: 4, index: 10 },
  { name: 'tbird2', impl: 'bird', release: 'trixie', as: 65006, size: 2, index: 11 },
  { name: 'tbird4', impl: 'bird', release: 'trixie', as: 4_200_000_006, size: 4, index: 12 },
];
/** The versions each release's cells name, checked against what the daemons report. */
const VERSION: Record<DaemonRelease, Record<DaemonImpl, string>> = {
  bookworm: { frr: '8.4', gobgp: '3.10', bird: '2.0' },
  trixie: { frr: '10.3', gobgp: '3.36', bird: '3.1' },
};
const IMPL_NAME: Record<DaemonImpl, string> = { frr: 'FRR', gobgp: 'GoBGP', bird: 'BIRD' };
/** "FRR" for the bookworm cells (README's names), "FRR 10.3" for today's. */
const peerName = (def: PeerDef) =>
  def.release === 'bookworm' ? IMPL_NAME[def.impl] : `${IMPL_NAME[def.impl]} ${VERSION.trixie[def.impl]}`;
const TRANSPORT_NAME: Record<Family, string> = { ipv4: 'IPv4', ipv6: 'IPv6' };

interface Phase {
  readonly name: string;
  readonly ibgp: boolean;
  readonly md5: boolean;
}
/** Each phase changes one setting, so every reconfiguration is a small step. */
const PHASES: readonly Phase[] = [
  { name: 'eBGP without TCP-MD5', ibgp: false, md5: false },
  { name: 'eBGP with TCP-MD5', ibgp: false, md5: true },
  { name: 'iBGP with TCP-MD5', ibgp: true, md5: true },
  { name: 'iBGP without TCP-MD5', ibgp: true, md5: false },
];

/**
 * The capabilities each version's OPEN offers us, by our codec's names. FRR 10 dropped the
 * pre-standard route refresh (code 128) and offers Paths-Limit (code 76) with its add-path
 * receive; FRR 10.3 and GoBGP 3.36 offer the Software Version capability (code 75) to
 * internal peers only; GoBGP adds extended next hop for IPv4 unicast when the transport is
 * IPv4; BIRD 3 offers what BIRD 2 does.
 */
const FRR_COMMON = [
  'add-path',
  'enhanced-route-refresh',
  'extended-message',
  'four-octet-as',
  'fqdn',
  'graceful-restart',
  'long-lived-graceful-restart',
  'multiprotocol',
  'route-refresh',
];
const BIRD_CAPABILITIES = [
  'enhanced-route-refresh',
  'four-octet-as',
  'graceful-restart',
  'long-lived-graceful-restart',
  'multiprotocol',
  'route-refresh',
];
const GOBGP_CAPABILITIES = ['four-octet-as', 'fqdn', 'multiprotocol', 'route-refresh'];
const capabilities = (def: PeerDef, transport: Family, phase: Phase): string[] => {
  const version = def.release === 'trixie' && phase.ibgp ? ['code 75'] : [];
  const offered: Record<DaemonImpl, string[]> = {
    frr: [...FRR_COMMON, ...version, def.release === 'bookworm' ? 'code 128' : 'code 76'],
    gobgp: [...GOBGP_CAPABILITIES, ...version, ...(transport === 'ipv4' ? ['extended-next-hop'] : [])],
    bird: BIRD_CAPABILITIES,
  };
  return offered[def.impl].sort();
};
const theirs = (i: number): Record<Family, string> => ({
  ipv4: `198.19.1${i}.0/24`,
  ipv6: `2001:db8:a${i}::/48`,
});
const ours = (i: number): Record<Family, string> => ({
  ipv4: `198.19.2${i}.0/24`,
  ipv6: `2001:db8:b${i}::/48`,
});
const familyName = (f: Family) => (f === 'ipv4' ? 'ipv4-unicast' : 'ipv6-unicast');

interface Session {
  readonly def: PeerDef;
  readonly peer: LabPeer;
  readonly transport: Family;
  readonly address: string;
  readonly ours: string;
}

const ourAs = (def: PeerDef, phase: Phase) => (phase.ibgp ? def.as : OUR_EBGP_AS[def.size]);
const password = (s: Session) => `md5-${s.def.name}-${s.transport}`;

describe.skipIf(!IS_ROOT)('the interop matrix: peer x transport x eBGP/iBGP x AS size x TCP-MD5', () => {
  // A fixed id: a run that was killed outright leaves a lab the next run removes first.
  const id = 'sessmatrix';
  let lab: Lab;
  let agent: SpeakerAgent;
  let sessions: Session[] = [];

  const neighborSpec = (s: Session, phase: Phase): NeighborSpec => ({
    address: s.ours,
    remoteAs: ourAs(s.def, phase),
    families: [s.transport],
    ...(phase.md5 ? { password: password(s) } : {}),
  });

  const agentPeer = (s: Session, phase: Phase): AgentPeer => ({
    address: s.address,
    remoteAs: s.def.as,
    localAs: ourAs(s.def, phase),
    families: [familyName(s.transport)],
    connectRetryTime: 2,
    idleHoldTime: 1,
    maxIdleHoldTime: 4,
    announce: [ours(s.def.index)[s.transport]],
    ...(phase.md5 ? { password: password(s) } : {}),
  });

  /** Moves both ends of every session to `phase`: ours down first, the daemons, ours up again. */
  async function enter(phase: Phase): Promise<number> {
    for (const s of sessions) await agent.command({ cmd: 'remove-peer', peer: s.address });
    await Promise.all(
      lab.peers.map(async (peer) => {
        for (const s of sessions.filter((x) => x.peer === peer)) {
          await peer.daemon.removeNeighbor(s.ours);
          await peer.daemon.addNeighbor(neighborSpec(s, phase));
        }
      }),
    );
    const since = agent.mark();
    for (const s of sessions) await agent.command({ cmd: 'add-peer', config: agentPeer(s, phase) });
    return since;
  }

  beforeAll(async () => {
    const first = PHASES[0]!;
    lab = await Lab.create({
      id,
      speaker: { as: OUR_EBGP_AS[2], routerId: SPEAKER_ID },
      peers: PEERS.map((p) => ({
        name: p.name,
        impl: p.impl,
        release: p.release,
        as: p.as,
        originate: { ipv4: [theirs(p.index).ipv4], ipv6: [theirs(p.index).ipv6] },
        speakerSessions: { remoteAs: ourAs(p, first) },
      })),
    });
    sessions = lab.peers.flatMap((peer, i) =>
      TRANSPORTS.map((transport) => ({
        def: PEERS[i]!,
        peer,
        transport,
        address: peer.address[transport],
        ours: peer.speakerAddress[transport],
      })),
    );
    agent = await SpeakerAgent.start(lab.speakerNs, {
      localAs: OUR_EBGP_AS[2],
      routerId: SPEAKER_ID,
      peers: sessions.map((s) => agentPeer(s, first)),
      logFile: join(lab.dir, 'speaker-sessions.log'),
    });
  });

  afterAll(async () => {
    await agent?.stop();
    await lab?.destroy();
  });

  it('runs FRR 8.4, GoBGP 3.10 and BIRD 2.0 from the host, FRR 10.3, GoBGP 3.36 and BIRD 3.1 from the trixie root', async () => {
    for (const [i, def] of PEERS.entries()) {
      const version = await lab.peers[i]!.daemon.version();
      expect(version.split('.').slice(0, 2).join('.'), `${def.name} (${def.release})`).toBe(
        VERSION[def.release][def.impl],
      );
    }
  });

  PHASES.forEach((phase, n) => {
    describe(phase.name, () => {
      let since = 0;
      beforeAll(async () => {
        if (n > 0) since = await enter(phase);
      });

      for (const def of PEERS) {
        for (const transport of TRANSPORTS) {
          it(
            `${peerName(def)}, ${def.size}-octet AS, ${TRANSPORT_NAME[transport]} transport`,
            async () => {
              const s = sessions.find((x) => x.def === def && x.transport === transport)!;
              const label = `${peerName(def)} ${def.size}-octet AS over ${transport}, ${phase.name}`;
              const up = await agent.waitFor(
                (e) => e.ev === 'established' && e.peer === s.address,
                `our session with ${label}`,
                UP_MS,
                since,
              );
              expect(up, label).toMatchObject({
                remoteAs: def.as,
                as4: true,
                families: [familyName(transport)],
                holdTime: 9,
                remoteCapabilities: capabilities(def, transport, phase),
              });
              const status = await s.peer.daemon.waitForNeighborState(s.ours, 'Established', UP_MS);
              expect(status.remoteAs, label).toBe(ourAs(def, phase));

              // Routes both ways: the daemon's prefix reaches us, ours reaches the daemon with our
              // AS prepended towards an external peer and an empty AS_PATH towards an internal one.
              const theirPrefix = theirs(def.index)[transport];
              const got = await agent.waitFor(
                (e) =>
                  e.ev === 'update' && e.peer === s.address && (e.announce as string[]).includes(theirPrefix),
                `${theirPrefix} from ${label}`,
                UP_MS,
                since,
              );
              expect(got.asPath, label).toEqual(phase.ibgp ? [] : [def.as]);
              const mine = ours(def.index)[transport];
              const route = await until(
                async () =>
                  (await s.peer.daemon.routes(transport, { from: s.ours })).find((r) => r.prefix === mine),
                `${mine} at ${label}`,
              );
              expect(route.asPath, label).toEqual(phase.ibgp ? [] : [ourAs(def, phase)]);
              // TCP-MD5 on the wire: the kernel signs this session's segments exactly when the phase says so.
              const keyed = md5Keyed(lab.speakerNs, s.address);
              expect(keyed.length, label).toBeGreaterThan(0);
              expect(keyed, label).toEqual(keyed.map(() => phase.md5));
            },
            CELL_MS,
          );
        }
      }
    });
  });
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
