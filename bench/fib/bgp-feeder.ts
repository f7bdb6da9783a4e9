/**
 * The feeder of the BGP-to-kernel bench: one eBGP session to the receiver under test (the
 * throughput bench's RawSession: KEEPALIVEs, hold timer, longest silence of the peer) for one
 * family (IPv4 or IPv6 unicast), and two pre-encoded streams read from files before connecting,
 * so nothing is encoded on the clock: the table's announcements (then that family's End-of-RIB)
 * and its withdrawals. Each is written on command.
 *
 *   ip netns exec NS node bgp-feeder.js '{"host":..., "announceFile":..., ...}'
 *   stdin: {"id":1,"cmd":"send","stream":"announce"} | {"id":2,"cmd":"stats"}
 */

import { readFileSync } from 'node:fs';
import { parseIpv4 } from '../../src/address/index.js';
import { type AfiCode, BGP_PORT, CeaseSubcode, ErrorCode } from '../../src/bgp/wire/constants.js';
import { encodeMessageBytes } from '../../src/bgp/wire/message.js';
import { endOfRibInput } from '../../src/bgp/wire/update.js';
import { configArgument, emit, reportFatal, serveCommands } from '../throughput/child-io.js';
import { sleep, wallClock } from '../throughput/clock.js';
import { connectWithRetry } from '../throughput/connect.js';
import { STREAM_CHUNK_BYTES } from '../throughput/constants.js';
import { RawSession } from '../throughput/raw-session.js';
import { messageAlignedCuts } from '../throughput/table-stream.js';

export interface FeederConfig {
  readonly host: string;
  readonly localAddress: string;
  readonly localAs: number;
  readonly routerId: string;
  readonly holdTimeSeconds: number;
  /** The one family negotiated (multiprotocol), whose End-of-RIB closes the announcements. */
  readonly afi: AfiCode;
  /** Files of whole UPDATE messages back to back. */
  readonly announceFile: string;
  readonly withdrawFile: string;
  readonly connectTimeoutMs: number;
}

export type FeederStream = 'announce' | 'withdraw';

reportFatal();
const config = configArgument<FeederConfig>();
const streams: Record<FeederStream, Uint8Array> = {
  announce: new Uint8Array(readFileSync(config.announceFile)),
  withdraw: new Uint8Array(readFileSync(config.withdrawFile)),
};
const cuts: Record<FeederStream, number[]> = {
  announce: messageAlignedCuts(streams.announce, STREAM_CHUNK_BYTES),
  withdraw: messageAlignedCuts(streams.withdraw, STREAM_CHUNK_BYTES),
};
emit({ ev: 'ready' });

let session: RawSession | null = null;

/** Writes one stream as fast as the socket drains; resolves when the last byte is queued. */
async function send(s: RawSession, which: FeederStream): Promise<boolean> {
  const socket = s.socket;
  const stream = streams[which];
  const at = cuts[which];
  for (let i = 1; i < at.length; i++) {
    if (s.state !== 'Established') return false;
    if (!socket.write(stream.subarray(at[i - 1], at[i]))) {
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
  if (s.state !== 'Established') return false;
  if (which === 'announce')
    socket.write(encodeMessageBytes({ type: 'update', ...endOfRibInput(config.afi) }));
  return true;
}

async function main(): Promise<void> {
  const socket = await connectWithRetry(
    { host: config.host, port: BGP_PORT, localAddress: config.localAddress },
    config.connectTimeoutMs,
  );
  session = new RawSession(
    socket,
    {
      localAs: config.localAs,
      bgpId: parseIpv4(config.routerId),
      holdTimeSeconds: config.holdTimeSeconds,
      afis: [config.afi],
    },
    {
      established: (t) => emit({ ev: 'established', t }),
      update: () => {
        // Nothing is exported back to the feeder; whatever comes is only counted as heard.
      },
      closed: (reason, notification) => emit({ ev: 'closed', t: wallClock(), reason, notification }),
    },
  );
}

serveCommands(
  async (c) => {
    if (c.cmd === 'stats') {
      emit({ ev: 'stats', id: c.id, state: session?.state ?? 'Idle', ...session?.liveness() });
    } else if (c.cmd === 'send') {
      if (!session) throw new Error('no session yet');
      const ok = await send(session, c.stream as FeederStream);
      emit({ ev: 'sent', id: c.id, t: wallClock(), ok });
    }
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
