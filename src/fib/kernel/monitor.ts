import type { Clock, TimerHandle } from '../../components/index.js';
import { Errno, NlmsgType, RTA_HDRLEN, RTMSG_LEN, Rta, RtnlGroup } from './constants.js';
import { KernelError } from './errors.js';
import { type NlMessage, NlView, nlAlign, splitMessages } from './nl-buffer.js';
import { decodeRoute, type KernelRoute } from './route-message.js';
import type { RtnlSocket } from './rtnl-socket.js';

/** A route change somebody else made in our table or a watched one (RTM_NEWROUTE / RTM_DELROUTE notification). */
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
  /** Other tables whose changes are passed on too (where our next hops resolve); none by default. */
  readonly watches?: (table: number) => boolean;
}

/**
 * The table of a route message: RTA_TABLE when present (ids above 255 live only there), else
 * rtm_table. Reads nothing else, so it costs a few loads per notification; -1 when the message
 * is too short or its attributes overrun (the caller cannot tell whose it is).
 */
export function routeTableOf(v: NlView, m: NlMessage): number {
  const b = m.body;
  if (b + RTMSG_LEN > m.end || m.end > v.length) return -1;
  for (let off = b + RTMSG_LEN; off + RTA_HDRLEN <= m.end; ) {
    const len = v.u16(off);
    if (len < RTA_HDRLEN || off + len > m.end) return -1;
    if ((v.u16(off + 2) & 0x3fff) === Rta.TABLE) return len >= RTA_HDRLEN + 4 ? v.u32(off + RTA_HDRLEN) : -1;
    off += nlAlign(len);
  }
  return v.u8(b + 4);
}

/** The groups the monitor joins. */
export const MONITOR_GROUPS: readonly number[] = [RtnlGroup.IPV4_ROUTE, RtnlGroup.IPV6_ROUTE];

/**
 * Listens to IPv4 and IPv6 route notifications and passes on those of our table (and of the
 * tables `watches` names) not caused by us. The socket drops our own in the kernel when it
 * could attach the filter ("drop-own"); the port check here covers the case where it could
 * not. Lost notifications (sk_drops went up) are reported as `lost`, so the owner compares its
 * routes with the kernel.
 */
export class RouteMonitor {
  readonly #socket: RtnlSocket;
  readonly #init: RouteMonitorInit;
  readonly #h: RouteMonitorHandlers;
  readonly #clock: Clock;
  #timer: TimerHandle;
  #drops: number;
  #closed = false;
  events = 0;
  /** Notifications of other tables, skipped unread past their table. */
  otherTables = 0;
  /** Times notifications were lost, and how many in all. */
  overruns = 0;
  dropped = 0;

  constructor(socket: RtnlSocket, init: RouteMonitorInit, handlers: RouteMonitorHandlers, clock: Clock) {
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
    this.#clock = clock;
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
    this.#clock.clearTimeout(this.#timer);
    this.#socket.close();
  }

  #schedule(): void {
    // A periodic check: it must not keep the process alive on its own (the clock's default).
    this.#timer = this.#clock.setTimeout(() => {
      if (this.#closed) return;
      this.#checkDrops();
      this.#schedule();
    }, this.#init.dropCheckMs);
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

  #wanted(table: number): boolean {
    return table === this.#init.table || this.#init.watches?.(table) === true;
  }

  #onDatagram(d: Uint8Array): void {
    if (this.#closed) return;
    const v = new NlView(d);
    try {
      splitMessages(v, (m) => {
        if (m.type !== NlmsgType.NEWROUTE && m.type !== NlmsgType.DELROUTE) return;
        if (m.pid === this.#init.ownPort) return;
        // Other tables' churn (a full table in a VRF, zebra's routes) is read no further than its
        // table: not decoded, and a route there we could not decode is no reason to recheck ours.
        const table = routeTableOf(v, m);
        if (table >= 0 && !this.#wanted(table)) {
          this.otherTables++;
          return;
        }
        const route = decodeRoute(v, m);
        if (!this.#wanted(route.table)) return;
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
