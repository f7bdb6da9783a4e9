import type { EstablishedInfo, Peer } from '../bgp/session/index.js';
import { Afi, type AfiCode, RouteRefreshSubtype, Safi, UpdatePacker, Writer } from '../bgp/wire/index.js';
import type { Logger } from '../components/index.js';
import type { RouteFilter } from '../policy/index.js';
import {
  type AddPathExport,
  type AddPathSelect,
  type BestCursor,
  type BestPathSource,
  type ExportTarget,
  FIRST_BEST,
  type RankedPathSource,
  type RibOut,
  type UpdateGroups,
} from '../rib/index.js';
import { RoutingDefaults } from './constants.js';
import { Exporter, nextHopPlan } from './exporter.js';
import { initialTableEnded, initialTableStarted } from './initial-tables.js';
import type { SessionAddresses } from './session-addresses.js';

/** What sending to one session needs from the speaker. */
export interface SessionExportComponents {
  readonly groups: UpdateGroups;
  readonly rib: BestPathSource & Partial<RankedPathSource>;
  readonly log: Logger;
  /** Where long work yields to the event loop (setImmediate). */
  readonly defer: (fn: () => void) => void;
}

/**
 * The sending half of one Established session: its Adj-RIB-Out in an update group, the
 * export policy, and a loop that packs the Adj-RIB-Out's work a slice per turn into UPDATEs
 * and hands them to the session, waiting for it to drain. End-of-RIB (RFC 4724) goes out per
 * family once the initial table is out. Held, it sends nothing until released: after our own
 * restart the routes wait for the peers' End-of-RIBs (RFC 4724 section 4.1).
 */
export class SessionExport {
  readonly exporter: Exporter;
  readonly #id: string;
  readonly #peer: Peer;
  readonly #info: EstablishedInfo;
  readonly #c: SessionExportComponents;
  readonly #writer = new Writer(RoutingDefaults.SEND_BATCH_BYTES);
  /** The peer's target as configured; the update group gets `#groupTarget()`. */
  #target: ExportTarget;
  #adjOut: RibOut | null = null;
  /** Several paths per prefix (RFC 7911), when configured and negotiated. */
  readonly #addPath: AddPathExport | undefined;
  /** Where offering the initial table (or a resync) goes on; null once all of it was offered. */
  #fill: BestCursor | null = null;
  /** Prefixes of the initial table offered and not yet taken from the Adj-RIB-Out. */
  #initialLeft = 0;
  #endOfRibSent = false;
  /** RFC 7313: families whose refresh began with a BoRR and ends with an EoRR after the resync. */
  readonly #eorrDue = new Set<AfiCode>();
  #pumping = false;
  /** Counted among the sessions sending an initial table (initial-tables.ts). */
  #sendingInitial = false;
  #closed = false;
  #held: boolean;

  constructor(
    id: string,
    peer: Peer,
    info: EstablishedInfo,
    target: ExportTarget,
    local: SessionAddresses,
    filter: RouteFilter,
    components: SessionExportComponents,
    held = false,
    sendPaths?: AddPathSelect,
  ) {
    this.#id = id;
    this.#peer = peer;
    this.#info = info;
    this.#target = target;
    this.#c = components;
    const n = info.negotiated;
    const sends = (afi: AfiCode) => n.addPath.some((f) => f.afi === afi && f.safi === Safi.UNICAST && f.send);
    this.exporter = new Exporter(filter, {
      packer: new UpdatePacker({ as4: info.context.update.as4 }, info.context.maxLength),
      families: new Set(n.families.filter((f) => f.safi === Safi.UNICAST).map((f) => f.afi as AfiCode)),
      addPathSend: [sends(Afi.IPV4), sends(Afi.IPV6)],
      localIpv4: local.ipv4,
      localIpv6: local.ipv6,
      extendedNextHop: target.extendedNextHop === true,
      ebgp: target.kind === 'ebgp',
      prepared: (attrs) => components.groups.interner.prepared(attrs),
    });
    const families: [boolean, boolean] = [sends(Afi.IPV4), sends(Afi.IPV6)];
    // Configured but not accepted by the peer in any family: the single-path export as before.
    this.#addPath =
      sendPaths !== undefined && (families[0] || families[1]) ? { select: sendPaths, families } : undefined;
    this.#held = held;
    if (held) return;
    this.#join();
    this.kick();
  }

  /** Whether the routes still wait for `release`. */
  get held(): boolean {
    return this.#held;
  }

  /** Starts sending: the initial table from the RIB as it is now, then End-of-RIB. */
  release(): void {
    if (!this.#held || this.#closed) return;
    this.#held = false;
    this.#join();
    this.kick();
  }

  /** The RIB changed (or the session drained): send what the Adj-RIB-Out holds. */
  kick(): void {
    if (this.#closed || !this.#adjOut || this.#pumping) return;
    void this.#pump();
  }

  /**
   * Everything goes out again through a fresh Adj-RIB-Out (export policy, next_hop_self or
   * next_hop_unchanged changed, or the peer asked for a refresh): the current best paths are
   * offered anew and what the peer has from us that is not sent again is withdrawn at the end.
   * Safer than marking the old Adj-RIB-Out for resending, which loses a withdrawal that
   * arrives between the marking and the sending.
   */
  resync(
    changes: {
      readonly filter?: RouteFilter;
      readonly nextHopSelf?: boolean;
      readonly nextHopUnchanged?: boolean;
      readonly refresh?: AfiCode;
      /** Our addresses on the session, read again: the target they make. */
      readonly local?: { readonly target: ExportTarget; readonly addresses: SessionAddresses };
    } = {},
  ): void {
    if (this.#closed) return;
    const afi = changes.refresh;
    if (
      afi !== undefined &&
      this.#info.negotiated.enhancedRouteRefresh &&
      this.exporter.session.families.has(afi)
    ) {
      // RFC 7313 section 4: the answer to a refresh is framed by BoRR ... EoRR.
      this.#peer.sendRefreshMarker(afi, Safi.UNICAST, RouteRefreshSubtype.BORR);
      this.#eorrDue.add(afi);
    }
    if (changes.filter) this.exporter.filter = changes.filter;
    if (changes.nextHopSelf !== undefined)
      this.#target = { ...this.#target, nextHopSelf: changes.nextHopSelf };
    if (changes.nextHopUnchanged !== undefined)
      this.#target = { ...this.#target, nextHopUnchanged: changes.nextHopUnchanged };
    if (changes.local) {
      // Keeps nextHopSelf and nextHopUnchanged as a reload may have set them.
      this.#target = {
        ...changes.local.target,
        nextHopSelf: this.#target.nextHopSelf,
        nextHopUnchanged: this.#target.nextHopUnchanged,
      };
      this.exporter.setLocalAddresses(changes.local.addresses.ipv4, changes.local.addresses.ipv6);
    }
    // Nothing sent yet: the release sends it all with the new settings.
    if (this.#held) return;
    // While the old Adj-RIB-Out still says what the peer has.
    this.exporter.beginResync();
    this.#c.groups.leave(this.#id);
    this.#join();
    this.kick();
  }

  /** The session is gone: leave the update group, forget what was sent. */
  close(): void {
    this.#closed = true;
    this.#countInitial(false);
    this.#c.groups.leave(this.#id);
    this.#adjOut = null;
    this.exporter.clear();
  }

  #join(): void {
    try {
      // The initial table is offered a slice per turn by #pump, between sending slices.
      this.#adjOut = this.#c.groups.attach(
        {
          id: this.#id,
          routerId: this.#info.negotiated.remoteBgpId,
          target: this.#groupTarget(),
          ...(this.#addPath && { addPath: this.#addPath }),
        },
        this.#c.rib,
      );
      this.exporter.track(this.#adjOut);
      this.#fill = FIRST_BEST;
      this.#initialLeft = 0;
      for (const afi of this.exporter.session.families)
        this.exporter.reserve(afi, this.#c.rib.bestCount(afi));
    } catch (error) {
      // An eBGP session without a local address we can put as next hop: nothing can be sent.
      this.#c.log.error({ error: String(error) }, 'no routes can be advertised on this session');
      this.#adjOut = null;
      this.exporter.track(null);
      this.#fill = null;
      this.#initialLeft = 0;
    }
  }

  /** The target the update group exports for, and the exporter's part in the next hop (`nextHopPlan`). */
  #groupTarget(): ExportTarget {
    const plan = nextHopPlan(this.#target, this.exporter.filter);
    this.exporter.nextHopRule = plan.rule;
    return plan.group;
  }

  async #pump(): Promise<void> {
    this.#pumping = true;
    const out = this.#adjOut!;
    const w = this.#writer;
    try {
      for (;;) {
        if (this.#closed || this.#adjOut !== out) return;
        if (this.#fill !== null) {
          this.#countInitial(true);
          const offered = out.pending;
          this.#fill = this.#c.groups.fill(
            this.#id,
            this.#c.rib,
            this.#fill,
            RoutingDefaults.EXPORT_SLICE_PREFIXES,
          );
          this.#initialLeft += out.pending - offered;
        }
        const before = out.pending;
        const work = out.take(RoutingDefaults.EXPORT_SLICE_PREFIXES);
        if (this.#initialLeft > 0)
          this.#initialLeft = Math.max(0, this.#initialLeft - (before - out.pending));
        const initialDone = this.#fill === null && this.#initialLeft === 0;
        if (initialDone) this.#countInitial(false);
        w.reset();
        let messages = work.count > 0 ? this.exporter.encode(work, w) : 0;
        out.release(work);
        if (initialDone && this.exporter.resyncing) messages += this.exporter.finishResync(w);
        // The session keeps the bytes until they are written: hand it a copy, reuse the writer.
        if (w.pos > 0 && !this.#peer.sendPacked(w.finish(), messages)) await this.#peer.drain();
        if (initialDone && !this.#endOfRibSent && !this.#closed) this.#sendEndOfRib();
        if (initialDone && this.#eorrDue.size > 0 && !this.#closed) this.#sendEorr();
        if (work.count === 0 && initialDone) return;
        // Yield between slices: timers, other sessions and the control socket get their turn.
        await new Promise<void>((resolve) => this.#c.defer(resolve));
      }
    } catch (error) {
      this.#countInitial(false);
      if (!this.#closed) this.#c.log.warn({ error: String(error) }, 'sending routes failed');
    } finally {
      this.#pumping = false;
      // A resync replaced the Adj-RIB-Out while this loop was waiting.
      if (this.#adjOut !== out) this.kick();
    }
  }

  /** Whether this session counts among those sending an initial table (initial-tables.ts). */
  #countInitial(sending: boolean): void {
    if (sending === this.#sendingInitial) return;
    this.#sendingInitial = sending;
    if (sending) initialTableStarted();
    else initialTableEnded();
  }

  #sendEorr(): void {
    for (const afi of this.#eorrDue)
      this.#peer.sendRefreshMarker(afi, Safi.UNICAST, RouteRefreshSubtype.EORR);
    this.#eorrDue.clear();
  }

  /** RFC 4724 section 2: End-of-RIB for each negotiated family once the initial table is out. */
  #sendEndOfRib(): void {
    this.#endOfRibSent = true;
    for (const f of this.#info.negotiated.families) {
      if (f.safi === Safi.UNICAST && (f.afi === Afi.IPV4 || f.afi === Afi.IPV6))
        this.#peer.sendEndOfRib(f.afi);
    }
    this.#c.log.info({}, 'initial routes sent (End-of-RIB)');
  }
}
