/**
 * The counting receiver: the one common receiver of the send measurements. It connects to the
 * sender under test, counts the prefixes its UPDATEs carry (announced minus withdrawn) and
 * reports progress, the moment it holds `expected`, and each End-of-RIB, with wall-clock
 * stamps. It decodes nothing but prefix lengths, so the sender is always the slower side.
 *
 *   ip netns exec NS node counter.js '{"host":..., "localAddress":..., "expected": N, ...}'
 */

import net from 'node:net';
import { parseIpv4 } from '../../src/address/index.js';
import { type AfiCode, BGP_PORT, CeaseSubcode, ErrorCode } from '../../src/bgp/wire/constants.js';
import { configArgument, emit, reportFatal, serveCommands } from './child-io.js';
import { sleep, wallClock } from './clock.js';
import { connectWithRetry } from './connect.js';
import { COUNTER_REPORT_INTERVAL } from './constants.js';
import { RawSession } from './raw-session.js';
import { countUpdate, type PrefixCounts } from './update-count.js';

export interface CounterConfig {
  /** Connect to the sender at `host` from `localAddress`; or, with `listen`, wait for it on `localAddress`. */
  readonly host: string;
  readonly localAddress: string;
  readonly listen?: boolean;
  readonly localAs: number;
  readonly routerId: string;
  readonly holdTimeSeconds: number;
  readonly afis: readonly AfiCode[];
  readonly expected: number;
  readonly connectTimeoutMs: number;
}

/** An End-of-RIB: an UPDATE of 23 octets (IPv4) or one whose only attribute is an empty MP_UNREACH_NLRI. */
const IPV4_EOR_LENGTH = 23;

reportFatal();
const config = configArgument<CounterConfig>();
const counts: PrefixCounts = { announced: 0, withdrawn: 0 };
let session: RawSession | null = null;
let reported = -1;
let done = false;
let ticker: NodeJS.Timeout | null = null;

const held = () => counts.announced - counts.withdrawn;

function onUpdate(m: Uint8Array): void {
  const before = counts.announced + counts.withdrawn;
  countUpdate(m, counts);
  if (counts.announced + counts.withdrawn === before) {
    emit({ ev: 'eor', t: wallClock(), ipv4: m.length === IPV4_EOR_LENGTH });
    return;
  }
  if (!done && held() >= config.expected) {
    done = true;
    emit({ ev: 'done', t: wallClock(), n: held() });
  }
}

/** The sender's connection: made by us, or (listening) the first one from `host`. */
function connection(): Promise<net.Socket> {
  if (!config.listen) {
    return connectWithRetry(
      { host: config.host, port: BGP_PORT, localAddress: config.localAddress },
      config.connectTimeoutMs,
    );
  }
  return new Promise((resolve, reject) => {
    const server = net.createServer((socket) => {
      if (socket.remoteAddress?.replace(/^::ffff:/, '') !== config.host) {
        socket.destroy();
        return;
      }
      server.close();
      resolve(socket);
    });
    server.once('error', reject);
    server.listen(BGP_PORT, config.localAddress, () => emit({ ev: 'listening', t: wallClock() }));
  });
}

async function main(): Promise<void> {
  const socket = await connection();
  session = new RawSession(
    socket,
    {
      localAs: config.localAs,
      bgpId: parseIpv4(config.routerId),
      holdTimeSeconds: config.holdTimeSeconds,
      afis: config.afis,
    },
    {
      established: (t) => {
        emit({ ev: 'established', t });
        ticker = setInterval(() => {
          const n = held();
          if (n === reported) return;
          reported = n;
          emit({ ev: 'progress', t: wallClock(), n });
        }, COUNTER_REPORT_INTERVAL);
      },
      update: onUpdate,
      closed: (reason, notification) => {
        if (ticker) clearInterval(ticker);
        emit({ ev: 'closed', t: wallClock(), reason, notification, n: held() });
      },
    },
  );
}

serveCommands(
  (c) => {
    if (c.cmd === 'stats') {
      emit({ ev: 'stats', id: c.id, state: session?.state ?? 'Idle', n: held(), ...session?.liveness() });
    }
  },
  async () => {
    if (ticker) clearInterval(ticker);
    session?.close(ErrorCode.CEASE, CeaseSubcode.ADMINISTRATIVE_SHUTDOWN);
    await sleep(50);
  },
);

main().catch((e) => {
  emit({ ev: 'fatal', message: e instanceof Error ? e.message : String(e) });
  process.exit(1);
});
