/**
 * sd_notify(3), the service manager's readiness protocol: when systemd starts us with
 * NOTIFY_SOCKET set (Type=notify), we send READY=1 once we serve, RELOADING=1 / READY=1
 * around a reload, STOPPING=1 on the way out, STATUS= lines for `systemctl status`, and
 * WATCHDOG=1 at half of WATCHDOG_USEC while the event loop turns (WatchdogSec=).
 */
import type { Clock, Logger, TimerHandle } from '../components/index.js';
import { UnixDatagramSender } from './datagram.js';
import { encodeSockaddrUn } from './sockaddr-un.js';

/** The environment variables systemd sets for the protocol (systemd.exec(5), sd_watchdog_enabled(3)). */
export interface NotifyEnv {
  readonly NOTIFY_SOCKET?: string;
  readonly WATCHDOG_USEC?: string;
  readonly WATCHDOG_PID?: string;
}

const USEC_PER_MS = 1000;
/** sd_watchdog_enabled(3): ping at half the interval, so one late ping is not yet a kill. */
const WATCHDOG_PINGS_PER_INTERVAL = 2;

/**
 * How often to send WATCHDOG=1, in milliseconds; null when the watchdog is off or meant for
 * another process (WATCHDOG_PID names a different pid), as sd_watchdog_enabled(3) decides.
 */
export function watchdogPingMs(env: NotifyEnv, pid: number): number | null {
  const usec = env.WATCHDOG_USEC;
  if (usec === undefined || !/^[1-9][0-9]{0,15}$/.test(usec)) return null;
  if (env.WATCHDOG_PID !== undefined && env.WATCHDOG_PID !== String(pid)) return null;
  return Math.max(1, Math.floor(Number(usec) / USEC_PER_MS / WATCHDOG_PINGS_PER_INTERVAL));
}

/** One message: `KEY=value` lines. A STATUS is one line, so line breaks in it become spaces. */
export function notifyMessage(fields: readonly (readonly [string, string | number])[]): string {
  return fields.map(([k, v]) => `${k}=${String(v).replace(/[\r\n]+/g, ' ')}`).join('\n');
}

/** Where messages go: the socket, or a test's recorder. */
export interface NotifyTransport {
  /** Returns 0, or the errno of a message the manager did not take. */
  send(message: Buffer): number;
  close(): void;
}

export interface ServiceNotifierComponents {
  readonly clock: Clock;
  readonly logger: Logger;
  /** CLOCK_MONOTONIC in microseconds, sent with RELOADING=1 (Type=notify-reload reads it). */
  readonly monotonicUsec?: () => bigint;
}

/** The protocol's messages, sent through one socket for the life of the process. */
export class ServiceNotifier {
  readonly #transport: NotifyTransport;
  readonly #c: ServiceNotifierComponents;
  readonly #pingMs: number | null;
  #watchdog: TimerHandle | undefined;
  #lastStatus: string | undefined;
  readonly #failed = new Set<number>();
  #closed = false;

  constructor(transport: NotifyTransport, pingMs: number | null, components: ServiceNotifierComponents) {
    this.#transport = transport;
    this.#pingMs = pingMs;
    this.#c = components;
  }

  /** The notifier systemd asked for through the environment; null when there is no NOTIFY_SOCKET. */
  static fromEnv(env: NotifyEnv, pid: number, components: ServiceNotifierComponents): ServiceNotifier | null {
    const target = env.NOTIFY_SOCKET;
    if (target === undefined || target === '') return null;
    const sender = new UnixDatagramSender(encodeSockaddrUn(target));
    return new ServiceNotifier(sender, watchdogPingMs(env, pid), components);
  }

  /** Milliseconds between two WATCHDOG=1, or null when the watchdog is off. */
  get watchdogPingMs(): number | null {
    return this.#pingMs;
  }

  /** READY=1: we serve (the control socket and the BGP listener are up). */
  ready(status: string): void {
    this.#send([
      ['READY', 1],
      ['STATUS', status],
    ]);
    this.#lastStatus = status;
  }

  /** RELOADING=1, before a reload is applied; ready() follows once it is. */
  reloading(status: string): void {
    const usec = (this.#c.monotonicUsec ?? (() => process.hrtime.bigint() / 1000n))();
    this.#send([
      ['RELOADING', 1],
      ['MONOTONIC_USEC', usec.toString()],
      ['STATUS', status],
    ]);
    this.#lastStatus = status;
  }

  /** STOPPING=1: the manager knows the exit that follows is on purpose. */
  stopping(status: string): void {
    this.stopWatchdog();
    this.#send([
      ['STOPPING', 1],
      ['STATUS', status],
    ]);
    this.#lastStatus = status;
  }

  /** STATUS=, only when it changed. */
  status(text: string): void {
    if (text === this.#lastStatus) return;
    this.#send([['STATUS', text]]);
    this.#lastStatus = text;
  }

  /** WATCHDOG=1 every half interval from now on; each ping is a timer, so a stalled loop sends none. */
  startWatchdog(): void {
    const ms = this.#pingMs;
    if (ms === null || this.#watchdog !== undefined || this.#closed) return;
    const ping = () => {
      this.#send([['WATCHDOG', 1]]);
      this.#watchdog = this.#c.clock.setTimeout(ping, ms);
    };
    ping();
  }

  stopWatchdog(): void {
    this.#c.clock.clearTimeout(this.#watchdog);
    this.#watchdog = undefined;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.stopWatchdog();
    this.#transport.close();
  }

  #send(fields: readonly (readonly [string, string | number])[]): void {
    if (this.#closed) return;
    const errno = this.#transport.send(Buffer.from(notifyMessage(fields), 'utf8'));
    // Said once per cause: a manager that went away would otherwise fill the log every ping.
    if (errno !== 0 && !this.#failed.has(errno)) {
      this.#failed.add(errno);
      this.#c.logger.warn(
        { errno, message: fields[0]?.[0] },
        'sd_notify: the service manager did not take a message',
      );
    }
  }
}
