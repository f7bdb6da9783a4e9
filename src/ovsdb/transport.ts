import { readFileSync } from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';
import type { Clock } from '../components/index.js';
import type { Channel } from './channel.js';
import { OvsdbError } from './errors.js';
import type { Remote } from './remote.js';

/**
 * TLS material for `ssl:` remotes, as OVN's `--private-key`, `--certificate` and `--ca-cert`
 * (PEM file paths, read at every connect so renewed files are picked up).
 */
export interface TlsFiles {
  readonly privateKey: string;
  readonly certificate: string;
  readonly caCert: string;
}

export type Connector = (remote: Remote, timeoutMs: number) => Promise<Channel>;

/**
 * Opens the byte stream for a remote. Like OVS, `ssl:` trusts the peer when its certificate
 * chains to the CA; host names are not checked (OVN certificates name the node, not the address).
 */
export function makeConnector(tlsFiles: TlsFiles | undefined, clock: Clock): Connector {
  return (remote, timeoutMs) =>
    new Promise<Channel>((resolve, reject) => {
      let socket: net.Socket;
      let readyEvent: string;
      try {
        if (remote.kind === 'unix') {
          socket = net.connect({ path: remote.path });
          readyEvent = 'connect';
        } else if (remote.kind === 'tcp') {
          socket = net.connect({ host: remote.host, port: remote.port });
          readyEvent = 'connect';
        } else {
          if (!tlsFiles)
            throw new OvsdbError('bad-remote', `${remote.text}: ssl needs a private key, certificate and CA`);
          socket = tls.connect({
            host: remote.host,
            port: remote.port,
            key: readFileSync(tlsFiles.privateKey),
            cert: readFileSync(tlsFiles.certificate),
            ca: readFileSync(tlsFiles.caCert),
            rejectUnauthorized: true,
            checkServerIdentity: () => undefined,
          });
          readyEvent = 'secureConnect';
        }
      } catch (err) {
        reject(
          err instanceof OvsdbError
            ? err
            : new OvsdbError('connection-failed', `${remote.text}: ${(err as Error).message}`),
        );
        return;
      }
      const timer = clock.setTimeout(() => {
        socket.destroy();
        reject(new OvsdbError('connection-failed', `${remote.text}: no connection after ${timeoutMs} ms`));
      }, timeoutMs);
      socket.once('error', (err) => {
        clock.clearTimeout(timer);
        reject(
          new OvsdbError('connection-failed', `${remote.text}: ${err.message}`, { remote: remote.text }),
        );
      });
      socket.once(readyEvent, () => {
        clock.clearTimeout(timer);
        socket.setNoDelay?.(true);
        resolve(socket);
      });
    });
}
