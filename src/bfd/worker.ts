import { parentPort, workerData } from 'node:worker_threads';
import { systemScheduler } from '../components/index.js';
import { BfdEngine } from './engine.js';
import type { FromWorker, ToWorker } from './types.js';
import { type Ports, WorkerTransport } from './worker-transport.js';

/*
 * The BFD worker thread: it owns the UDP sockets and every session's timers, so a busy main
 * thread (a full table arriving) cannot delay a packet or a detection. It tells the main
 * thread of state changes by message; the main thread acts on them (the BGP session) in its
 * own time.
 */

export interface WorkerInit {
  readonly ports: Ports;
}

/** How long the last AdminDown packets get before the sockets close. */
const CLOSE_GRACE_MS = 20;

const port = parentPort;
if (!port) throw new Error('src/bfd/worker.ts runs as a worker thread');
const init = workerData as WorkerInit;
const report = (m: FromWorker) => port.postMessage(m);
const transport = new WorkerTransport(report, Math.random);
const engine = new BfdEngine({
  clock: systemScheduler,
  wallClock: () => Date.now(),
  random: Math.random,
  transport,
  report,
});

port.on('message', (m: ToWorker) => {
  switch (m.type) {
    case 'add':
      engine.add(m.id, m.spec);
      break;
    case 'update':
      engine.update(m.id, m.timers);
      break;
    case 'remove':
      engine.remove(m.id);
      break;
    case 'close':
      transport.linger();
      engine.closeAll();
      // Let the last AdminDown packets leave before their sockets close.
      setTimeout(() => {
        transport.closeAll();
        report({ type: 'closed' });
        port.close();
      }, CLOSE_GRACE_MS);
      break;
  }
});

transport
  .listen(init.ports, (bytes, from) => engine.receive(bytes, from))
  .then(
    (ports) => report({ type: 'ready', ports }),
    (error) =>
      report({
        type: 'log',
        level: 'error',
        message: 'BFD worker failed to start',
        fields: { error: String(error) },
      }),
  );
