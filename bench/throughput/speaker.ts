/**
 * The 'core' target: our receive path (Sessions → UPDATE decode → Rib.applyUpdate → flush per
 * UPDATE) and send path (Loc-RIB → UpdateGroups / Adj-RIB-Out → UpdatePacker → Peer.sendRaw)
 * with nothing around them: no policy, no control socket, no logging. Set beside
 * `ovn-bgp-speaker run` it shows what the speaker's own layers cost; it also stands in for the
 * speaker where the `run` command does not exist. Routes are installed nowhere (as FRR without
 * FIB install and BIRD without a kernel protocol).
 *
 * Every peer is passive: the replayer connects to hand us the table, the counter connects to
 * take it from us. Answers `status` on stdin with what each peer has sent us.
 */

import { addressBytes, parseIpv4 } from '../../src/address/index.js';
import {
  type EstablishedInfo,
  FAMILY,
  type FamilyName,
  type Peer,
  Sessions,
} from '../../src/bgp/session/index.js';
import { AttrInterner } from '../../src/bgp/wire/attributes/interner.js';
import type { PathAttributes } from '../../src/bgp/wire/attributes/types.js';
import { Afi, type AfiCode } from '../../src/bgp/wire/constants.js';
import { type PreparedAttributes, UpdatePacker } from '../../src/bgp/wire/update-packer.js';
import { Writer } from '../../src/bgp/wire/writer.js';
import { ChangeBatch, Rib, type RibPeer, UpdateGroups } from '../../src/rib/index.js';
import { configArgument, emit, reportFatal, serveCommands } from './child-io.js';
import { wallClock } from './clock.js';
import { EXPORT_TAKE } from './constants.js';

export interface SpeakerPeer {
  readonly address: string;
  readonly remoteAs: number;
  /** 'source' peers send us the table; 'export' peers get it from us once they are up. */
  readonly role: 'source' | 'export';
}

export interface SpeakerConfig {
  readonly localAs: number;
  readonly routerId: string;
  readonly holdTimeSeconds: number;
  readonly keepaliveSeconds: number;
  readonly families: readonly FamilyName[];
  readonly peers: readonly SpeakerPeer[];
  /** Our addresses on the link: the next hop of what we export (eBGP next-hop-self). */
  readonly localIpv4: string;
  readonly localIpv6: string;
}

reportFatal();
const config = configArgument<SpeakerConfig>();
const afis = config.families.map((f) => FAMILY[f].afi as AfiCode);
const rib = new Rib({ localAs: config.localAs, routerId: parseIpv4(config.routerId) });
const groups = new UpdateGroups({
  localAs: config.localAs,
  clusterId: rib.clusterId,
  defaultLocalPref: 100,
});
const ribPeers = new Map<string, RibPeer>();
/** The speaker's path: changes as columns, one batch reused from flush to flush. */
const batch = new ChangeBatch();

function onEstablished(peer: Peer, role: SpeakerPeer['role'], info: EstablishedInfo): void {
  emit({ ev: 'established', t: wallClock(), peer: peer.address });
  const rp = rib.addPeer({
    id: peer.address,
    kind: 'ebgp',
    asn: info.negotiated.remoteAs,
    routerId: info.remoteOpen.bgpId,
    address: peer.address,
  });
  ribPeers.set(peer.address, rp);
  if (role === 'export') {
    exportTo(peer, info).catch((e) =>
      emit({ ev: 'export-failed', t: wallClock(), peer: peer.address, message: String(e) }),
    );
  }
}

function onDown(peer: Peer, reason: string): void {
  emit({ ev: 'down', t: wallClock(), peer: peer.address, reason });
  const rp = ribPeers.get(peer.address);
  if (!rp) return;
  ribPeers.delete(peer.address);
  groups.leave(peer.address);
  rib.removePeer(rp);
  groups.apply(rib.flush());
}

/** The initial table to a peer that just came up, in rounds that each yield to the event loop. */
async function exportTo(peer: Peer, info: EstablishedInfo): Promise<void> {
  const out = groups.join(
    {
      id: peer.address,
      routerId: info.remoteOpen.bgpId,
      target: {
        kind: 'ebgp',
        localIpv4: parseIpv4(config.localIpv4),
        localIpv6: addressBytes(config.localIpv6),
      },
    },
    rib,
  );
  const packer = new UpdatePacker(info.context.update, info.context.maxLength);
  // Every member of an update group shares the exported attribute objects: encode each once.
  const prepared = new WeakMap<PathAttributes, PreparedAttributes>();
  let sent = 0;
  for (;;) {
    const work = out.take(EXPORT_TAKE);
    if (work.count === 0) break;
    const w = new Writer(1 << 18);
    for (const list of work.withdraw) packer.withdraw(w, list);
    for (const a of work.announce) {
      let p = prepared.get(a.attrs);
      if (!p) {
        p = packer.prepare(a.attrs);
        prepared.set(a.attrs, p);
      }
      packer.announce(w, p, a.prefixes);
    }
    sent += work.count;
    // sendRaw keeps the buffer until it is written, so each round has its own Writer.
    if (!peer.sendRaw(w.finish())) await peer.drain();
    else await new Promise<void>((resolve) => setImmediate(resolve));
  }
  for (const afi of afis) peer.sendEndOfRib(afi);
  emit({ ev: 'exported', t: wallClock(), peer: peer.address, prefixes: sent });
}

function status(): Record<string, unknown> {
  const peers = (sessions?.peers() ?? []).map((p) => {
    const rp = ribPeers.get(p.address);
    let received = 0;
    let accepted = 0;
    if (rp) {
      for (const afi of [Afi.IPV4, Afi.IPV6] as const) {
        const c = rib.counts(rp, afi);
        received += c.received;
        accepted += c.accepted;
      }
    }
    return { address: p.address, state: p.state, received, accepted };
  });
  return { t: wallClock(), peers, pending: rib.pending };
}

let sessions: Sessions | null = null;

async function main(): Promise<void> {
  sessions = await Sessions.create(
    {
      localAs: config.localAs,
      routerId: config.routerId,
      listen: { host: '::' },
      peers: config.peers.map((p) => ({
        address: p.address,
        remoteAs: p.remoteAs,
        families: config.families,
        holdTime: config.holdTimeSeconds,
        keepaliveTime: config.keepaliveSeconds,
        passive: true,
        name: p.role,
      })),
    },
    {
      // Attribute sets are shared across UPDATEs by their bytes, as in the speaker.
      interner: new AttrInterner(),
      onPeer: (peer) => {
        // Each peer is named after its role (see below).
        const role = peer.config.name as SpeakerPeer['role'];
        peer.on('established', (info) => onEstablished(peer, role, info));
        peer.on('down', (reason) => onDown(peer, reason));
        peer.on('notification', (n) =>
          emit({ ev: 'notification', t: wallClock(), peer: peer.address, ...n, data: undefined }),
        );
        peer.on('update', (u) => {
          const rp = ribPeers.get(peer.address);
          if (!rp) return;
          rib.applyUpdate(rp, u);
          batch.reset();
          rib.flushInto(batch);
          if (groups.groupCount > 0) groups.applyBatch(batch);
        });
      },
    },
  );
  emit({ ev: 'ready', t: wallClock() });
}

serveCommands(
  (c) => {
    if (c.cmd === 'status') emit({ ev: 'status', id: c.id, ...status() });
  },
  async () => {
    await sessions?.close('benchmark finished');
  },
);

main().catch((e) => {
  emit({ ev: 'fatal', message: e instanceof Error ? (e.stack ?? e.message) : String(e) });
  process.exit(1);
});
