// A BGP relay for the interop lab: one TCP session passed through unchanged, except that the
// withdrawal of one IPv4 prefix coming from the daemon never reaches the speaker. It stands for
// a peer whose Adj-RIB-Out lost a route without a word (what RFC 7313's purge at the EoRR is
// for): real daemons withdraw what they remove from their configuration, so the lab takes the
// withdrawal out on the way.
//
//   node --import tsx bgp-relay.ts LISTEN_ADDR LISTEN_PORT DAEMON_ADDR DAEMON_PORT PREFIX
//
// It listens on LISTEN_ADDR:LISTEN_PORT, and for each connection there connects to
// DAEMON_ADDR:DAEMON_PORT from LISTEN_ADDR (so the daemon sees the speaker's address). Every
// withdrawal it takes out is logged on stdout as `dropped withdrawal of PREFIX`.
import net from 'node:net';

const HEADER = 19;
const UPDATE = 2;
const MAX_MESSAGE = 4096;

const [listenAddr, listenPort, daemonAddr, daemonPort, prefix] = process.argv.slice(2);
if (!listenAddr || !listenPort || !daemonAddr || !daemonPort || !prefix) {
  process.stderr.write('usage: bgp-relay LISTEN_ADDR LISTEN_PORT DAEMON_ADDR DAEMON_PORT PREFIX\n');
  process.exit(2);
}
const [text, lenText] = prefix.split('/');
const target = { octets: text!.split('.').map(Number), len: Number(lenText) };

/** Whether the withdrawn-routes entry at `at` (length octet first) is the target prefix. */
function isTarget(buf: Buffer, at: number): boolean {
  if (buf[at] !== target.len) return false;
  const n = Math.ceil(target.len / 8);
  for (let i = 0; i < n; i++) if (buf[at + 1 + i] !== target.octets[i]) return false;
  return true;
}

/**
 * One message from the daemon: unchanged, or an UPDATE without the target's withdrawal (null
 * when nothing is left of it: an empty UPDATE would be read as End-of-RIB).
 */
function filter(msg: Buffer): Buffer | null {
  if (msg[18] !== UPDATE) return msg;
  const withdrawnLen = msg.readUInt16BE(HEADER);
  const kept: Buffer[] = [];
  let dropped = false;
  for (let at = HEADER + 2; at < HEADER + 2 + withdrawnLen; ) {
    const size = 1 + Math.ceil(msg[at]! / 8);
    if (isTarget(msg, at)) dropped = true;
    else kept.push(msg.subarray(at, at + size));
    at += size;
  }
  if (!dropped) return msg;
  process.stdout.write(`dropped withdrawal of ${prefix}\n`);
  const rest = msg.subarray(HEADER + 2 + withdrawnLen);
  const withdrawn = Buffer.concat(kept);
  // The rest: path attributes' length (2 octets) and attributes, then NLRI.
  if (withdrawn.length === 0 && rest.length === 2 && rest.readUInt16BE(0) === 0) return null;
  const out = Buffer.concat([msg.subarray(0, HEADER), Buffer.alloc(2), withdrawn, rest]);
  out.writeUInt16BE(out.length, 16);
  out.writeUInt16BE(withdrawn.length, HEADER);
  return out;
}

const server = net.createServer((speaker) => {
  const daemon = net.connect({ host: daemonAddr, port: Number(daemonPort), localAddress: listenAddr });
  let pending = Buffer.alloc(0);
  const close = () => {
    speaker.destroy();
    daemon.destroy();
  };
  speaker.on('data', (chunk) => daemon.write(chunk));
  daemon.on('data', (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= HEADER) {
      const len = pending.readUInt16BE(16);
      if (len < HEADER || len > MAX_MESSAGE) return close();
      if (pending.length < len) break;
      const out = filter(pending.subarray(0, len));
      if (out) speaker.write(out);
      pending = pending.subarray(len);
    }
  });
  speaker.on('close', close);
  daemon.on('close', close);
  speaker.on('error', close);
  daemon.on('error', close);
});
server.listen(Number(listenPort), listenAddr, () =>
  process.stdout.write(`listening on ${listenAddr}:${listenPort}\n`),
);
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => process.exit(0));
