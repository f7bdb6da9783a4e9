import { parseIp, unmapV4 } from '../address/index.js';
import type { ConnectionInfo, MessageTap, Peer } from '../bgp/session/index.js';
import { type AttrInterner, HEADER_LENGTH, MessageType } from '../bgp/wire/index.js';
import type { Clock, Logger, TimerHandle } from '../components/index.js';
import type { MrtConfig } from '../config/index.js';
import { type Bgp4mpPeering, type DumpFileResult, dumpTableToFile, RecordingFile } from '../mrt/index.js';
import type { Rib } from '../rib/index.js';
import { MrtInjections, type MrtInjectionView, type RouteFlow } from '../routing/index.js';

const MS_PER_SECOND = 1000;

function addressBytes(text: string): Uint8Array {
  return unmapV4(parseIp(text)).bytes;
}

/**
 * The peer's AS for a record: its OPEN's once Established, the configured number before; a
 * dynamic neighbour's `external`/`internal` before its OPEN is known is written as 0.
 */
function peerAsOf(peer: Peer): number {
  const configured = peer.config.remoteAs;
  return peer.established?.negotiated.remoteAs ?? (typeof configured === 'number' ? configured : 0);
}

/** How a BGP4MP record names one connection of a peer (both addresses of one family). */
function peeringOf(peer: Peer, c: ConnectionInfo | undefined): Bgp4mpPeering {
  const peerAddress = addressBytes(c?.remote.address ?? peer.address);
  let localAddress = c ? addressBytes(c.local.address) : new Uint8Array(peerAddress.length);
  if (localAddress.length !== peerAddress.length) localAddress = new Uint8Array(peerAddress.length);
  return {
    peerAs: peerAsOf(peer),
    localAs: peer.config.localAs,
    interfaceIndex: 0,
    peerAddress,
    localAddress,
  };
}

export interface SpeakerMrtComponents {
  readonly rib: Rib;
  readonly flow: RouteFlow;
  readonly interner?: AttrInterner;
  /** Wall-clock milliseconds: file names and record times. */
  readonly clock: Clock;
  readonly log: Logger;
}

/**
 * The speaker's MRT parts: the Loc-RIB dumped on request and on the configured interval, every
 * peer's messages recorded while `mrt.updates` is set (a tap on each peer, none otherwise),
 * and the `mrt` origin's injected files.
 */
export class SpeakerMrt {
  readonly #c: SpeakerMrtComponents;
  readonly injections: MrtInjections;
  /** By name: a peer rebuilt with new session settings replaces its old object. */
  readonly #peers = new Map<string, Peer>();
  readonly #peerings = new WeakMap<ConnectionInfo, Bgp4mpPeering>();
  #config: MrtConfig | undefined;
  #recording: RecordingFile | null = null;
  #dumpTimer: TimerHandle | null = null;
  #dumping: Promise<DumpFileResult> | null = null;

  constructor(components: SpeakerMrtComponents) {
    this.#c = components;
    this.injections = new MrtInjections({
      rib: components.rib,
      flow: components.flow,
      interner: components.interner,
      now: () => components.clock.now(),
    });
  }

  /** Dumps the Loc-RIB to `path` (a template, see expandPath); one dump at a time. */
  async dump(path: string): Promise<DumpFileResult> {
    while (this.#dumping) await this.#dumping.catch(() => {});
    const run = dumpTableToFile(this.#c.rib, path, this.#c.clock);
    this.#dumping = run;
    try {
      const result = await run;
      this.#c.log.info(
        { path: result.path, prefixes: result.prefixes, bytes: result.bytes },
        'Loc-RIB dumped as MRT',
      );
      return result;
    } finally {
      this.#dumping = null;
    }
  }

  inject(name: string, path: string): Promise<MrtInjectionView> {
    return this.injections.inject(name, path).then((view) => {
      this.#c.log.info({ ...view }, 'MRT file injected');
      return view;
    });
  }

  /** A peer to record while a recording is configured. */
  attach(peer: Peer): void {
    const old = this.#peers.get(peer.config.name);
    if (old && old !== peer) old.messageTap = null;
    this.#peers.set(peer.config.name, peer);
    peer.on('state', (change) => {
      const rec = this.#recording;
      if (rec && this.#peers.get(peer.config.name) === peer && this.#config?.updates?.messages === 'all') {
        rec.stateChange(peeringOf(peer, peer.connections[0]), change.from, change.to);
      }
    });
    this.#tap(peer);
  }

  detach(name: string): void {
    const peer = this.#peers.get(name);
    this.#peers.delete(name);
    if (peer) peer.messageTap = null;
  }

  /** Starts, changes or stops the dump timer and the recording as `config` says. */
  async configure(config: MrtConfig | undefined): Promise<void> {
    const before = this.#config;
    this.#config = config;
    if (JSON.stringify(before?.updates) !== JSON.stringify(config?.updates)) {
      await this.#recording?.close();
      const u = config?.updates;
      this.#recording = u
        ? new RecordingFile({ path: u.path, rotate: u.rotate }, this.#c.clock, this.#c.log)
        : null;
      for (const p of this.#peers.values()) this.#tap(p);
    }
    if (this.#dumpTimer !== null) this.#c.clock.clearTimeout(this.#dumpTimer);
    this.#dumpTimer = null;
    this.#scheduleDump();
  }

  async close(): Promise<void> {
    if (this.#dumpTimer !== null) this.#c.clock.clearTimeout(this.#dumpTimer);
    this.#dumpTimer = null;
    for (const p of this.#peers.values()) p.messageTap = null;
    await this.#recording?.close();
    this.#recording = null;
  }

  #scheduleDump(): void {
    const d = this.#config?.dump;
    if (!d || d.interval <= 0) return;
    this.#dumpTimer = this.#c.clock.setTimeout(() => {
      this.dump(d.path)
        .catch((error: unknown) =>
          this.#c.log.warn({ path: d.path, error: String(error) }, 'MRT dump failed'),
        )
        .finally(() => {
          if (this.#config?.dump === d) this.#scheduleDump();
        });
    }, d.interval * MS_PER_SECOND);
  }

  #tap(peer: Peer): void {
    const rec = this.#recording;
    const updatesOnly = this.#config?.updates?.messages === 'updates';
    if (!rec) {
      peer.messageTap = null;
      return;
    }
    const tap: MessageTap = {
      message: (direction, bytes, connection) => {
        if (updatesOnly && bytes[HEADER_LENGTH - 1] !== MessageType.UPDATE) return;
        let peering = this.#peerings.get(connection);
        if (!peering) {
          peering = peeringOf(peer, connection);
          // Cached once the AS is known for good (a dynamic neighbour's comes with its OPEN).
          if (peering.peerAs !== 0) this.#peerings.set(connection, peering);
        }
        rec.messages(direction, peering, bytes);
      },
    };
    peer.messageTap = tap;
  }
}
