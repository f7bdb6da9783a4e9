/**
 * A small driver for the transport, run inside a network namespace by the interop tests
 * (`ip netns exec NS node --import tsx netns-agent.ts`): node cannot enter a namespace itself.
 * Reads one JSON command per line on stdin, writes one JSON event per line on stdout.
 * It exits when stdin closes, so a test that dies never leaves it behind.
 */
import { readdirSync } from 'node:fs';
import type net from 'node:net';
import { createInterface } from 'node:readline';
import {
  type BgpListener,
  connectToPeer,
  createListener,
  TransportError,
  type TtlOptions,
} from '../../../src/bgp/transport/index.js';

type Command =
  | {
      op: 'listen';
      name: string;
      host?: string;
      port: number;
      peers?: Array<{ address: string; password?: string }>;
      ttl?: TtlOptions;
    }
  | { op: 'setPeerKey'; name: string; address: string; password: string | null }
  | { op: 'addPeer'; name: string; address: string; password?: string }
  | { op: 'removePeer'; name: string; address: string }
  | {
      op: 'connect';
      id: string;
      host: string;
      port: number;
      password?: string;
      localAddress?: string;
      ttl?: TtlOptions;
      timeoutMs: number;
      /** Write this and report the echo. */
      send?: string;
      /** Report the first n bytes received, as hex. */
      readBytes?: number;
    }
  | { op: 'fds' };

const emit = (event: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(event)}\n`);
const describeError = (error: unknown) =>
  error instanceof TransportError
    ? { kind: error.kind, code: error.code, address: error.address, message: error.message }
    : { kind: 'unexpected', message: String(error) };

const listeners = new Map<string, BgpListener>();
const sockets: net.Socket[] = [];

function keep(socket: net.Socket): void {
  sockets.push(socket);
  socket.on('error', () => {});
}

function reportReads(id: string, socket: net.Socket, readBytes: number): void {
  let received = Buffer.alloc(0);
  socket.on('data', (chunk) => {
    if (received.length >= readBytes) return;
    received = Buffer.concat([received, chunk]);
    if (received.length >= readBytes)
      emit({ ev: 'bytes', id, hex: received.subarray(0, readBytes).toString('hex') });
  });
}

function listenerNamed(name: string): BgpListener {
  const listener = listeners.get(name);
  if (!listener) throw new TransportError('invalid-option', `no listener named ${name}`);
  return listener;
}

async function run(command: Command): Promise<void> {
  switch (command.op) {
    case 'listen': {
      const listener = await createListener(
        { host: command.host, port: command.port, peers: command.peers, ttl: command.ttl },
        {
          onConnection: ({ socket, peer, local }) => {
            keep(socket);
            socket.on('data', (data) => socket.write(data)); // echo
            emit({ ev: 'accepted', name: command.name, peer, local });
          },
          onRefused: (peer) => emit({ ev: 'refused', name: command.name, peer }),
          onError: (error) => emit({ ev: 'listener-error', name: command.name, message: error.message }),
        },
      );
      listeners.set(command.name, listener);
      emit({ ev: 'listening', name: command.name, address: listener.address });
      return;
    }
    case 'setPeerKey':
      listenerNamed(command.name).setPeerKey(command.address, command.password);
      emit({ ev: 'ok', op: command.op });
      return;
    case 'addPeer':
      listenerNamed(command.name).addPeer(command.address, command.password);
      emit({ ev: 'ok', op: command.op });
      return;
    case 'removePeer':
      listenerNamed(command.name).removePeer(command.address);
      emit({ ev: 'ok', op: command.op });
      return;
    case 'connect': {
      const { id } = command;
      try {
        const { socket, peer, local } = await connectToPeer(command);
        keep(socket);
        emit({ ev: 'connected', id, peer, local });
        if (command.readBytes) reportReads(id, socket, command.readBytes);
        if (command.send !== undefined) {
          socket.once('data', (data) => emit({ ev: 'echo', id, text: data.toString() }));
          socket.write(command.send);
        }
        socket.on('close', () => emit({ ev: 'closed', id }));
      } catch (error) {
        emit({ ev: 'connect-error', id, ...describeError(error) });
      }
      return;
    }
    case 'fds':
      emit({ ev: 'fds', count: readdirSync('/proc/self/fd').length });
      return;
  }
}

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const command = JSON.parse(line) as Command;
  run(command).catch((error) => emit({ ev: 'error', op: command.op, ...describeError(error) }));
});
lines.on('close', () => {
  for (const socket of sockets) socket.destroy();
  void Promise.all([...listeners.values()].map((l) => l.close())).finally(() => process.exit(0));
});
emit({ ev: 'ready', pid: process.pid });
