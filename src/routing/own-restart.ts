import type { FamilyName, GracefulRestartState } from '../bgp/session/index.js';
import { Afi, type AfiCode, type Negotiated } from '../bgp/wire/index.js';
import type { Logger, Scheduler } from '../components/index.js';
import { RestartDeferral, type RestartDeferralInit } from './restart-deferral.js';
import type { RouteFlow } from './route-flow.js';
import type { SessionExports } from './session-exports.js';

const FAMILY_OF_AFI: ReadonlyMap<AfiCode, FamilyName> = new Map([
  [Afi.IPV4, 'ipv4-unicast'],
  [Afi.IPV6, 'ipv6-unicast'],
]);

export interface OwnRestartInit extends RestartDeferralInit {
  /** Families whose routes the kernel sink still held when we started (their F bit). */
  readonly kept: ReadonlySet<AfiCode>;
}

/** What our restart holds back and lets go. */
export interface OwnRestartComponents {
  readonly clock: Scheduler;
  readonly log: Logger;
  readonly flow: RouteFlow;
  readonly exports: SessionExports;
  /** The held sinks start: each replays the best paths and reconciles its plane to them. */
  readonly releaseSinks: () => void;
}

/**
 * Our own graceful restart, the restarting side of RFC 4724 section 4.1: from start until
 * every peer's End-of-RIB (and OVN's first derivation) is in, or restart_time passes
 * (RestartDeferral), each peer's routes wait in the RIB, the sessions send nothing and the
 * sinks are held, so what a previous run left in the kernel keeps forwarding untouched. Then
 * the decision runs, every sink reconciles to its result and every session sends its table
 * and End-of-RIB.
 */
export class OwnRestart {
  readonly #c: OwnRestartComponents;
  readonly #deferral: RestartDeferral;
  readonly #kept: ReadonlySet<AfiCode>;
  #over = false;

  constructor(init: OwnRestartInit, components: OwnRestartComponents) {
    this.#c = components;
    this.#kept = init.kept;
    components.exports.hold();
    const { clock, log } = components;
    this.#deferral = new RestartDeferral(
      init,
      { clock, log },
      // Called at most once; a turn later, so it never runs inside a session's event.
      (why) => clock.defer(() => this.#end(why)),
    );
    log.info(
      {
        peers: init.peers,
        kernelKept: [...init.kept].map((afi) => FAMILY_OF_AFI.get(afi)),
        seconds: init.seconds,
      },
      'graceful restart: routes and sinks wait for the peers’ End-of-RIBs',
    );
  }

  /** Whether we are still restarting (our OPENs carry the R bit). */
  get active(): boolean {
    return !this.#over;
  }

  /** Whether the kernel kept a family's routes from before we started. */
  kept(afi: AfiCode): boolean {
    return this.#kept.has(afi);
  }

  established(peer: string, n: Negotiated): void {
    this.#deferral.established(peer, n);
  }

  endOfRib(peer: string, afi: number, safi: number): void {
    this.#deferral.endOfRib(peer, afi, safi);
  }

  /** The peer is removed or shut down: it sends no End-of-RIB, so nothing waits for it. */
  removed(peer: string): void {
    this.#deferral.removed(peer);
  }

  /** OVN's first derivation is in the RIB. */
  ovnReady(): void {
    this.#deferral.ovnReady();
  }

  /** The speaker stops: nothing more is released. */
  cancel(): void {
    this.#over = true;
    this.#deferral.cancel();
  }

  /** Decide, reconcile every sink to the result, send our tables and End-of-RIBs. */
  #end(why: string): void {
    if (this.#over) return;
    this.#over = true;
    this.#c.flow.flush();
    // Each sink replays the best paths and reconciles: kept routes still best stay untouched,
    // the others are replaced or deleted (the restarting side's sweep of stale state).
    this.#c.releaseSinks();
    this.#c.exports.release();
    this.#c.log.info({ why }, 'graceful restart done: sinks reconciled, routes and End-of-RIBs sent');
  }
}

/**
 * RFC 4724 as our OPENs advertise it (null: graceful restart off): R while our restart is not
 * done; F where the kernel sink forwards for us, during our restart only for what it really
 * kept. Zebra drops a gone client's routes and OVN NB is not our forwarding: no F for them.
 */
export function advertisedGracefulRestart(
  gr: { readonly enabled: boolean; readonly restartTime: number },
  kernelSink: boolean,
  restart: OwnRestart | null,
): GracefulRestartState | null {
  if (!gr.enabled) return null;
  const restarting = restart?.active === true;
  const forwarding = new Set<FamilyName>();
  for (const [afi, name] of FAMILY_OF_AFI) {
    if (kernelSink && (restarting ? restart!.kept(afi) : true)) forwarding.add(name);
  }
  return { restartTime: gr.restartTime, restarting, forwarding };
}
