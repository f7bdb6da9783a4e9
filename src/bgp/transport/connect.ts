import net from 'node:net';
import { formatIp, unmapV4 } from '../../address/index.js';
import { type Clock, systemScheduler } from '../../components/index.js';
import { BGP_PORT } from '../wire/index.js';
import { parseScopedAddress, parseTransportAddress } from './address.js';
import { TransportDefaults } from './constants.js';
import { checkPort, type Endpoint, endpointOf } from './endpoint.js';
import { TransportError } from './errors.js';
import { bindFd, withNewFd } from './raw-socket.js';
import { setMd5Key, setTtlOptions, type TtlOptions } from './socket-options.js';

export interface ConnectInit {
  /**
   * The peer's IPv4 or IPv6 address (a literal: no name resolution here); a link-local one
   * with its interface, fe80::1%eth1 (BGP unnumbered).
   */
  readonly host: string;
  /** Default 179. */
  readonly port?: number;
  /** Source address (same family as host), e.g. the address the peer has configured for us. */
  readonly localAddress?: string;
  readonly localPort?: number;
  /** TCP-MD5 password; the key is in place before the SYN leaves. */
  readonly password?: string | null;
  /** TTL / GTSM, set before connect(2) so the SYN already carries it. */
  readonly ttl?: TtlOptions;
  /** Give up after this long (default 10 s); the socket and fd are closed. */
  readonly timeoutMs?: number;
  /** Abort a pending connect (e.g. the session stopped); the socket and fd are closed. */
  readonly signal?: AbortSignal;
}

export interface ConnectComponents {
  /** The connect timeout's clock; default the system's. */
  readonly clock?: Clock;
}

export interface OutgoingConnection {
  readonly socket: net.Socket;
  readonly peer: Endpoint;
  readonly local: Endpoint;
}

/**
 * Opens a TCP connection to a BGP peer with TCP-MD5, a source address and TTL options applied
 * before the SYN. The fd is made through libc (node offers no hook between socket(2) and
 * connect(2)), then node adopts it and runs a normal non-blocking connect. Every failure
 * rejects with a TransportError and leaves no fd behind.
 */
export async function connectToPeer(
  init: ConnectInit,
  components: ConnectComponents = {},
): Promise<OutgoingConnection> {
  // ::ffff:a.b.c.d is an IPv4 peer: connect over AF_INET, key it as IPv4.
  const scoped = parseScopedAddress(init.host);
  const remote = unmapV4(scoped.ip);
  const host = formatIp(remote);
  // node resolves the zone to the interface's index (sin6_scope_id) itself.
  const target = scoped.zone === undefined ? host : `${host}%${scoped.zone}`;
  const port = init.port ?? BGP_PORT;
  checkPort(port, 'port');
  const timeoutMs = init.timeoutMs ?? TransportDefaults.CONNECT_TIMEOUT_MS;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new TransportError('invalid-option', `connect timeout ${timeoutMs} ms is not positive`);
  }
  const local = init.localAddress === undefined ? undefined : parseTransportAddress(init.localAddress);
  if (local && local.family !== remote.family) {
    throw new TransportError(
      'family-mismatch',
      `local address ${init.localAddress} and peer ${init.host} are of different families`,
      { address: init.host },
    );
  }
  if (init.localPort !== undefined) checkPort(init.localPort, 'local port');
  if (init.signal?.aborted) {
    throw new TransportError('connect-aborted', `connect to ${init.host} aborted`, { address: init.host });
  }

  const socket = withNewFd(remote, (fd) => {
    if (init.password != null) setMd5Key(fd, { address: host, password: init.password });
    if (init.ttl) setTtlOptions(fd, remote.family === 4 ? 'ipv4' : 'ipv6', init.ttl, init.host);
    if (local || init.localPort !== undefined) {
      const bindTo = local ?? parseTransportAddress(remote.family === 4 ? '0.0.0.0' : '::');
      bindFd(fd, bindTo, init.localPort ?? 0, init.localAddress ?? formatIp(bindTo));
    }
    return new net.Socket({ fd, readable: true, writable: true });
  });
  return waitConnected(socket, target, port, timeoutMs, init.signal, components.clock ?? systemScheduler);
}

function waitConnected(
  socket: net.Socket,
  host: string,
  port: number,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  clock: Clock,
): Promise<OutgoingConnection> {
  return new Promise((resolve, reject) => {
    const settle = (error: TransportError | undefined) => {
      clock.clearTimeout(timer);
      socket.off('connect', onConnect);
      socket.off('error', onError);
      signal?.removeEventListener('abort', onAbort);
      if (error) {
        socket.destroy(); // closes the fd
        reject(error);
        return;
      }
      const peer = endpointOf(socket.remoteAddress, socket.remotePort);
      const localEnd = endpointOf(socket.localAddress, socket.localPort);
      if (!peer || !localEnd) {
        socket.destroy();
        reject(
          new TransportError('connect-failed', `connection to ${host} closed at once`, { address: host }),
        );
        return;
      }
      resolve({ socket, peer, local: localEnd });
    };
    const onConnect = () => settle(undefined);
    const onError = (error: NodeJS.ErrnoException) =>
      settle(
        new TransportError(
          'connect-failed',
          `connect to ${host} port ${port} failed: ${error.code ?? error.message}`,
          {
            address: host,
            code: error.code,
            errno: error.errno === undefined ? undefined : Math.abs(error.errno), // node reports -errno
            syscall: 'connect',
          },
          error,
        ),
      );
    const onAbort = () =>
      settle(new TransportError('connect-aborted', `connect to ${host} aborted`, { address: host }));
    // Unref'd like every protocol timer: the connecting socket is what holds the process.
    const timer = clock.setTimeout(
      () =>
        settle(
          new TransportError(
            'connect-timeout',
            // A TCP-MD5 mismatch looks exactly like this: the kernel drops the SYN silently.
            `connect to ${host} port ${port} timed out after ${timeoutMs} ms (no answer; wrong or missing TCP-MD5 key?)`,
            { address: host, code: 'ETIMEDOUT' },
          ),
        ),
      timeoutMs,
    );
    socket.once('connect', onConnect);
    socket.once('error', onError);
    signal?.addEventListener('abort', onAbort, { once: true });
    socket.connect({ host, port });
  });
}
