/**
 * The replayer: opens one eBGP session to the receiver under test and writes the pre-encoded
 * table (read from a file before connecting, so no encoding happens on the clock) as fast as
 * the socket drains, then End-of-RIB per family. It keeps the session up (KEEPALIVEs, hold
 * timer) until its stdin closes, and reports when it reached Established, when the last byte
 * was queued, and any NOTIFICATION or drop.
 *
 *   ip netns exec NS node replayer.js '{"host":..., "localAddress":..., ...}'
 */

import { readFileSync } from 'node:fs';
import { parseIpv4 } from '../../src/address/index.js';
import { type AfiCode, BGP_PORT, CeaseSubcode, ErrorCode } from '../../src/bgp/wire/constants.js';
import { encodeMessageBytes } from '../../src/bgp/wire/message.js';
import { endOfRibInput } from '../../src/bgp/wire/update.js';
import { configArgument, emit, reportFatal, serveCommands } from './child-io.js';
import { sleep, wallClock } from './clock.js';
import { connectWithRetry } from './connect.js';
import { STREAM_CHUNK_BYTES } from './constants.js';
import { RawSession } from './raw-session.js';
import { messageAlignedCuts } from './table-stream.js';

export interface ReplayerConfig {
  readonly host: string;
  readonly localAddress: string;
  readonly localAs: number;
  readonly routerId: string;
  readonly holdTimeSeconds: number;
  readonly afis: readonly AfiCode[];
  /** File with the table's UPDATEs, whole messages back to back. */
  readonly streamFile: string;
  /** How long to keep trying to connect (the receiver may still be starting). */
  readonly connectTimeoutMs: number;
}

reportFatal();
const config = configArgument<ReplayerConfig>();
const stream = new Uint8Array(readFileSync(config.streamFile));
const cuts = messageAlignedCuts(stream, STREAM_CHUNK_BYTES);
emit({ ev: 'ready', bytes: stream.length });

let session: RawSession | null = null;

async function sendTable(s: RawSession): Promise<void> {
  const socket = s.socket;
  for (let i = 1; i < cuts.length; i++) {
    if (s.state !== 'Established') return;
    // Views of the one buffer: nothing is copied or encoded while the clock runs.
    if (!socket.write(stream.subarray(cuts[i - 1], cuts[i]))) {
      await new Promise<void>((resolve) => {
        const done = () => {
          socket.off('drain', done);
          socket.off('close', done);
          resolve();
        };
        socket.on('drain', done);
        socket.on('close', done);
      });
    }
  }
  if (s.state !== 'Established') return;
  for (const afi of config.afis) socket.write(encodeMessageBytes({ type: 'update', ...endOfRibInput(afi) }));
  emit({ ev: 'sent', t: wallClock(), bytes: stream.length });
}

async function main(): Promise<void> {
  const socket = await connectWithRetry(
    { host: config.host, port: BGP_PORT, localAddress: config.localAddress },
    config.connectTimeoutMs,
  );
  emit({ ev: 'connected', t: wallClock() });
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
        void sendTable(session!);
      },
      update: () => {
        // Receivers do not send the table back to where it came from; anything else is ignored.
      },
      closed: (reason, notification) => emit({ ev: 'closed', t: wallClock(), reason, notification }),
    },
  );
}

serveCommands(
  (c) => {
    if (c.cmd === 'stats')
      emit({ ev: 'stats', id: c.id, state: session?.state ?? 'Idle', ...session?.liveness() });
  },
  async () => {
    session?.close(ErrorCode.CEASE, CeaseSubcode.ADMINISTRATIVE_SHUTDOWN);
    await sleep(50);
  },
);

main().catch((e) => {
  emit({ ev: 'fatal', message: e instanceof Error ? e.message : String(e) });
  process.exit(1);
});
