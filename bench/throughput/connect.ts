import net from 'node:net';
import { sleep } from './clock.js';
import { CONNECT_RETRY } from './constants.js';

export interface ConnectTarget {
  readonly host: string;
  readonly port: number;
  readonly localAddress: string;
}

function connectOnce(t: ConnectTarget): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: t.host, port: t.port, localAddress: t.localAddress });
    socket.once('connect', () => {
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', (e) => {
      socket.destroy();
      reject(e);
    });
  });
}

/** Connects, retrying while the receiver is not listening yet, for at most `timeoutMs`. */
export async function connectWithRetry(t: ConnectTarget, timeoutMs: number): Promise<net.Socket> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await connectOnce(t);
    } catch (e) {
      if (Date.now() + CONNECT_RETRY > deadline) {
        throw new Error(`no connection to ${t.host}:${t.port} within ${timeoutMs} ms: ${String(e)}`);
      }
      await sleep(CONNECT_RETRY);
    }
  }
}
