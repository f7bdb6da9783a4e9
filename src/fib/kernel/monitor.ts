import type { Timers } from './client.js';
import { Errno, NlmsgType, RtnlGroup } from './constants.js';
import { KernelError } from './errors.js';
import { NlView, splitMessages } from './nl-buffer.js';
import { decodeRoute, type KernelRoute } from './route-message.js';
import type { RtnlSocket } from './rtnl-socket.js';

/** A route change somebody else made in our table (RTM_NEWROUTE / RTM_DELROUTE notification). */
export interface RouteEvent {
  readonly kind: 'new' | 'del';
  readonly route: KernelRoute;
  /** nlmsg_flags: NLM_F_REPLACE on a NEWROUTE means the route at that key was replaced. */
  readonly flags: number;
  /** The port id of whoever asked for it (0: the kernel itself, e.g. a device going away). */
  readonly pid: number;
}

export interface RouteMonitorHandlers {
  readonly event: (e: RouteEvent) => void;
  /** ENOBUFS or an unparsable datagram: notifications were lost; compare with the kernel. */
  readonly lost: (why: string) => void;
}

export interface RouteMonitorInit {
  readonly table: number;
  /** Our request socket's port: its notifications are our own writes, not news. */
  readonly ownPort: number;
  /** How often sk_drops is read: notifications the kernel dropped mean ours may have changed unseen. */
  readonly dropCheckMs: number;
}

/** The groups the monitor joins. */
export const MONITOR_GROUPS: readonly number[] = [RtnlGroup.IPV4_ROUTE, RtnlGroup.IPV6_ROUTE];

/**
 * Listens to IPv4 and IPv6 route notifications and passes on those of our table not caused by
 * us. The socket drops our own in the kernel when it could attach the filter ("drop-own");
 * the port check here covers the case where it could not. Lost notifications (sk_drops went
 * up) are reported as `lost`, so the owner compares its routes with the kernel.
 */
export class RouteMonitor {
  readonly #socket: RtnlSocket;
  readonly #init: RouteMonitorInit;
  readonly #h: RouteMonitorHandlers;
  readonly #timers: Timers;
  #timer: unknown;
  #drops: number;
  #closed = false;
  events = 0;
  /** Times notifications were lost, and how many in all. */
  overruns = 0;
  dropped = 0;

  constructor(socket: RtnlSocket, init: RouteMonitorInit, handlers: RouteMonitorHandlers, timers: Timers) {
    // Everybody's route changes arrive here: a burst can always outrun us, and without
    // NETLINK_NO_ENOBUFS the add-on would abort the process on the overrun (rtnl-socket.ts).
    if (!socket.tuned.includes('no-enobufs') || socket.drops() === undefined) {
      socket.close();
      throw new KernelError(
        'socket',
        'the monitor socket cannot be set to NETLINK_NO_ENOBUFS; an overrun would abort',
      );
    }
    this.#socket = socket;
    this.#init = init;
    this.#h = handlers;
    this.#timers = timers;
    this.#drops = socket.drops() ?? 0;
    this.#schedule();
    socket.onMessage((d) => this.#onDatagram(d));
    socket.onError((e) => {
      if (this.#closed) return;
      this.overruns++;
      this.#h.lost(e.code === 'ENOBUFS' || e.errno === Errno.ENOBUFS ? 'ENOBUFS' : (e.code ?? e.message));
    });
  }

  get tuned(): readonly string[] {
    return this.#socket.tuned;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#timers.clearTimeout(this.#timer);
    this.#socket.close();
  }

  #schedule(): void {
    this.#timer = this.#timers.setTimeout(
      () => {
        if (this.#closed) return;
        this.#checkDrops();
        this.#schedule();
      },
      this.#init.dropCheckMs,
      true,
    );
  }

  /** Reads sk_drops now (also done every dropCheckMs): more than before means lost notifications. */
  #checkDrops(): void {
    const drops = this.#socket.drops();
    if (drops === undefined || drops <= this.#drops) return;
    const lost = drops - this.#drops;
    this.#drops = drops;
    this.overruns++;
    this.dropped += lost;
    this.#h.lost(`${lost} notifications dropped`);
  }

  #onDatagram(d: Uint8Array): void {
    if (this.#closed) return;
    const v = new NlView(d);
    try {
      splitMessages(v, (m) => {
        if (m.type !== NlmsgType.NEWROUTE && m.type !== NlmsgType.DELROUTE) return;
        if (m.pid === this.#init.ownPort) return;
        const route = decodeRoute(v, m);
        if (route.table !== this.#init.table) return;
        this.events++;
        this.#h.event({
          kind: m.type === NlmsgType.NEWROUTE ? 'new' : 'del',
          route,
          flags: m.flags,
          pid: m.pid,
        });
      });
    } catch (error) {
      this.overruns++;
      this.#h.lost((error as Error).message);
    }
  }
}
