import type { EstablishedInfo, Peer } from '../bgp/session/index.js';
import { Afi, type AfiCode, Safi, type UpdateMessage } from '../bgp/wire/index.js';
import type { Logger, Scheduler, TimerHandle } from '../components/index.js';
import type { PeerPolicies, RouteFilter } from '../policy/index.js';
import type { AddPathSelect, ExportTarget, PeerKind, Rib, RibPeer, UpdateGroups } from '../rib/index.js';
import { RoutingDefaults } from './constants.js';
import { Importer } from './importer.js';
import type { RouteFlow } from './route-flow.js';
import {
  type InterfaceTable,
  peerOnLink,
  type SessionAddresses,
  sessionAddresses,
} from './session-addresses.js';
import { SessionExport } from './session-export.js';
import type { SessionExports } from './session-exports.js';

/** What the routes of one session need from the speaker. */
export interface PeerRoutesComponents {
  readonly rib: Rib;
  readonly groups: UpdateGroups;
  readonly flow: RouteFlow;
  /** The live sessions the `bgp` consumer kicks; this session's export joins while it is up. */
  readonly exports: SessionExports;
  readonly log: Logger;
  readonly interfaces: () => InterfaceTable;
  /** Where long work yields to the event loop; the interface lookups' timer. */
  readonly clock: Scheduler;
  /** The stored routes went through a changed import policy (soft reconfiguration inbound). */
  readonly reimported?: () => void;
}

/** The peer as its routes see it. */
export interface PeerRoutesInit {
  readonly name: string;
  readonly kind: PeerKind;
  /** Its configured address (a found one for an unnumbered peer): the decision process's last tie-break. */
  readonly address: string;
  /** The link of a peer found on it (BGP unnumbered): where its link-local next hops are. */
  readonly interface?: string;
  readonly nextHopSelf: boolean;
  /** Keep the routes' own next hops towards this peer, eBGP too (`next_hop_unchanged`). */
  readonly nextHopUnchanged?: boolean;
  readonly policies: PeerPolicies;
  /** The peer as the RIB holds it already (its routes kept across a graceful restart). */
  readonly ribPeer?: RibPeer;
  /** RFC 7911: paths sent per prefix once add-path send is negotiated (absent: the best only). */
  readonly sendPaths?: AddPathSelect;
}

const FAMILIES: readonly AfiCode[] = [Afi.IPV4, Afi.IPV6];

/**
 * The routes of one Established session, both ways: its UPDATEs through the import policy
 * into the RIB (with push-back while the decision process lags), and the RIB's best paths
 * through its Adj-RIB-Out and export policy to it. Also runs soft reconfiguration inbound
 * (stored routes through a changed import policy, a slice per turn).
 */
export class PeerRoutes {
  readonly ribPeer: RibPeer;
  readonly importer: Importer;
  readonly export: SessionExport;
  readonly #c: PeerRoutesComponents;
  #softIn: { cursor: number; family: number } | null = null;
  readonly #info: EstablishedInfo;
  readonly #init: PeerRoutesInit;
  #lookup: TimerHandle | undefined;
  #closed = false;

  constructor(peer: Peer, info: EstablishedInfo, init: PeerRoutesInit, components: PeerRoutesComponents) {
    this.#c = components;
    const n = info.negotiated;
    const { rib } = components;
    this.ribPeer =
      init.ribPeer ??
      rib.addPeer({
        id: init.name,
        kind: init.kind,
        asn: n.remoteAs,
        routerId: n.remoteBgpId,
        address: init.address,
        ...(init.interface !== undefined && { interface: init.interface }),
      });
    const addPathIn: [boolean, boolean] = [info.context.update.addPathIpv4, info.context.update.addPathIpv6];
    this.importer = new Importer(rib, this.ribPeer, init.policies.import, addPathIn);
    this.#info = info;
    this.#init = init;
    const local = sessionAddresses(info.connection.local.address, components.interfaces());
    const target = this.#targetOf(local);
    this.export = new SessionExport(
      init.name,
      peer,
      info,
      target,
      local,
      init.policies.export,
      { groups: components.groups, rib, log: components.log, defer: (fn) => components.clock.defer(fn) },
      // Our own restart defers our routes until `exports.release()` (RFC 4724 4.1).
      components.exports.held,
      init.sendPaths,
    );
    components.exports.add(this.export);
    if (!local.found) this.#lookAgain(0);
  }

  #targetOf(local: SessionAddresses): ExportTarget {
    const n = this.#info.negotiated;
    const init = this.#init;
    // RFC 8950: the peer takes IPv4 routes with an IPv6 next hop. As FRR, only when both sides
    // advertised it: GoBGP advertises it unasked, and a session the operator did not configure
    // for it keeps its IPv4 next hops. Our link-local address goes with the global one when the
    // peer is on the link (what an unnumbered fabric routes by).
    const extendedNextHop = n.extendedNextHop.some(
      (f) =>
        f.afi === Afi.IPV4 && f.safi === Safi.UNICAST && f.nextHopAfi === Afi.IPV6 && f.send && f.receive,
    );
    const linkLocal =
      extendedNextHop && peerOnLink(this.#info.connection.remote.address, local)
        ? local.ipv6LinkLocal
        : undefined;
    return {
      kind: init.kind,
      localIpv4: local.ipv4,
      localIpv6: local.ipv6,
      nextHopSelf: init.nextHopSelf,
      ...(init.nextHopUnchanged && { nextHopUnchanged: true }),
      ...(init.kind === 'ebgp' && { sharedSubnets: local.subnets }),
      ...(n.longLivedGracefulRestart && { longLivedGracefulRestart: true }),
      ...(extendedNextHop && { extendedNextHop }),
      ...(linkLocal && { localIpv6LinkLocal: linkLocal }),
    };
  }

  /**
   * The session's local address is on no interface listed yet (a link that just came up is
   * listed once the kernel marks it running): until it is, next hops are our own address and
   * no third-party next hop on the shared subnet is kept. Look again a while; once it is there,
   * everything goes out again with the addresses and subnets of that interface.
   */
  #lookAgain(tries: number): void {
    if (tries === 0)
      this.#c.log.warn(
        { local: this.#info.connection.local.address },
        'the interface of the session is not listed yet: our own address is the next hop until it is',
      );
    if (tries >= RoutingDefaults.INTERFACE_LOOKUPS) return;
    this.#lookup = this.#c.clock.setTimeout(() => {
      this.#lookup = undefined;
      if (this.#closed) return;
      const local = sessionAddresses(this.#info.connection.local.address, this.#c.interfaces());
      if (!local.found) {
        this.#lookAgain(tries + 1);
        return;
      }
      this.#c.log.info(
        { local: this.#info.connection.local.address },
        'the interface of the session is listed now',
      );
      this.export.resync({ local: { target: this.#targetOf(local), addresses: local } });
    }, RoutingDefaults.INTERFACE_LOOKUP_MS);
  }

  /** One UPDATE into the RIB; a promise when reading should pause until the next flush. */
  update(u: UpdateMessage): Promise<void> | undefined {
    this.importer.apply(u);
    const { rib, flow } = this.#c;
    flow.schedule();
    return rib.pending > RoutingDefaults.IMPORT_BACKLOG_PREFIXES ? flow.whenFlushed() : undefined;
  }

  /** Prefixes of a family: sent by the peer, accepted into the RIB, advertised to it. */
  counts(afi: AfiCode): { received: number; accepted: number; advertised: number } {
    return {
      received: this.importer.received(afi),
      accepted: this.#c.rib.counts(this.ribPeer, afi).accepted,
      advertised: this.export.exporter.advertised.count(afi),
    };
  }

  /** New policies: soft in (stored routes through import again) and soft out (sent routes through export again). */
  setPolicies(policies: PeerPolicies, softIn: boolean, softOut: boolean): void {
    if (softIn && this.importer.setFilter(policies.import)) this.softIn();
    if (softOut) this.export.resync({ filter: policies.export });
  }

  setNextHopSelf(nextHopSelf: boolean): void {
    this.export.resync({ nextHopSelf });
  }

  setNextHopUnchanged(nextHopUnchanged: boolean): void {
    this.export.resync({ nextHopUnchanged });
  }

  /** RFC 2918: the peer asked for our routes again (for `refresh`: RFC 7313 BoRR/EoRR around them). */
  resend(filter?: RouteFilter, refresh?: AfiCode): void {
    this.export.resync({ ...(filter && { filter }), ...(refresh !== undefined && { refresh }) });
  }

  /** The stored routes through the import policy again (no ROUTE-REFRESH needed). */
  softIn(): void {
    const fresh = this.#softIn === null;
    this.#softIn = { cursor: 0, family: 0 };
    if (fresh) this.#softInSlice();
  }

  /** The session ended: nothing more is sent; the caller withdraws the peer's routes. */
  close(): void {
    this.#closed = true;
    if (this.#lookup !== undefined) this.#c.clock.clearTimeout(this.#lookup);
    this.#softIn = null;
    this.#c.exports.delete(this.export);
    this.export.close();
  }

  #softInSlice(): void {
    const job = this.#softIn;
    if (this.#closed || !job) return;
    try {
      const afi = FAMILIES[job.family]!;
      const next = this.importer.reimport(afi, job.cursor, RoutingDefaults.SOFT_IN_SLICE_ROUTES);
      if (next === -1) {
        job.family++;
        job.cursor = 0;
      } else {
        job.cursor = next;
      }
      this.#c.flow.schedule();
      if (job.family >= FAMILIES.length) {
        this.importer.reimportDone();
        this.#softIn = null;
        this.#c.log.info({}, 'import policy applied again to the stored routes');
        this.#c.reimported?.();
        return;
      }
    } catch (error) {
      // Deferred work reports its failure instead of ending the process.
      this.#c.log.error({ error: String(error) }, 'route work failed');
      this.#softIn = null;
      return;
    }
    this.#c.clock.defer(() => this.#softInSlice());
  }
}
