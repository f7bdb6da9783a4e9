import { type ChildProcessWithoutNullStreams, execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gtsm } from '../../src/bgp/transport/index.js';

// TCP-MD5 (RFC 2385) and GTSM (RFC 5082) against the real kernel: two namespaces joined by
// a veth, our listener in one, our connector in the other, each driven by a child process
// (node cannot enter a namespace). The last part puts FRR's bgpd in the listener's place.

const IS_ROOT = process.getuid?.() === 0;
const REPO = resolve(import.meta.dirname, '../..');
const AGENT = join(REPO, 'test/bgp/transport/netns-agent.ts');
const TAG = `obs-tp-${process.pid}`;
const NS_A = `${TAG}-a`; // listener side, later FRR
const NS_B = `${TAG}-b`; // connector side
const VETH_A = `${TAG}a`; // interface names stay within IFNAMSIZ (15)
const VETH_B = `${TAG}b`;
const A4 = '198.18.200.1';
const B4 = '198.18.200.2';
const A6 = '2001:db8:200::1';
const B6 = '2001:db8:200::2';
const LISTEN_PORT = 1179;
const GTSM_PORT = 1180;
/** Long enough for a SYN and its answer across a veth; a dropped SYN takes 1 s to be retried. */
const REFUSED_WITHIN_MS = 800;
const EVENT_WAIT_MS = 10_000;
const COMMAND_TIMEOUT_MS = 10_000;

type Event = { readonly ev: string; readonly [field: string]: unknown };

function sh(args: readonly string[], timeout = COMMAND_TIMEOUT_MS): string {
  return execFileSync(args[0], args.slice(1), {
    timeout,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}
const inNs = (ns: string, args: readonly string[], timeout?: number) =>
  sh(['ip', 'netns', 'exec', ns, ...args], timeout);

/** A transport driver in a namespace, spoken to in JSON lines. */
class Agent {
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #events: Event[] = [];
  #wake: (() => void) | undefined;
  #stderr = '';

  constructor(ns: string) {
    this.#child = spawn('ip', ['netns', 'exec', ns, process.execPath, '--import', 'tsx', AGENT], {
      cwd: REPO,
    });
    let partial = '';
    this.#child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) if (line.trim()) this.#events.push(JSON.parse(line) as Event);
      this.#wake?.();
    });
    this.#child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      this.#stderr = (this.#stderr + chunk).slice(-4000);
    });
  }

  send(command: Record<string, unknown>): void {
    this.#child.stdin.write(`${JSON.stringify(command)}\n`);
  }

  /** Takes the first event matching `match`, waiting at most `timeoutMs`. */
  async next(match: (event: Event) => boolean, timeoutMs = EVENT_WAIT_MS): Promise<Event> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const index = this.#events.findIndex(match);
      if (index >= 0) return this.#events.splice(index, 1)[0];
      const left = deadline - Date.now();
      if (left <= 0 || this.#child.exitCode !== null) {
        throw new Error(`no matching event; have ${JSON.stringify(this.#events)}; stderr: ${this.#stderr}`);
      }
      await new Promise<void>((wake) => {
        const timer = setTimeout(wake, Math.min(left, 200));
        this.#wake = () => {
          clearTimeout(timer);
          wake();
        };
      });
    }
  }

  /** connect, then the first outcome for that id. */
  async connect(id: string, options: Record<string, unknown>): Promise<Event> {
    this.send({ op: 'connect', id, timeoutMs: REFUSED_WITHIN_MS, ...options });
    return this.next((e) => e.id === id && (e.ev === 'connected' || e.ev === 'connect-error'));
  }

  /** Ends stdin (the agent exits by itself), then SIGKILL by pid if it lingers. */
  async stop(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    const exited = new Promise<void>((done) => this.#child.once('exit', () => done()));
    this.#child.stdin.end();
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), 3_000);
    await exited;
    clearTimeout(timer);
  }
}

/** Absolute counters of one namespace; -s keeps nstat from writing its shared history file. */
function counters(ns: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of inNs(ns, ['nstat', '-asz']).split('\n')) {
    const [name, value] = line.trim().split(/\s+/);
    if (name && value !== undefined) out[name] = Number(value);
  }
  return out;
}

/** The listener's report of the connection `outcome` made (matched by the connector's port). */
const acceptedFor = (outcome: Event) => (e: Event) =>
  e.ev === 'accepted' && (e.peer as { port: number }).port === (outcome.local as { port: number }).port;

function setUpNamespaces(): void {
  sh(['ip', 'netns', 'add', NS_A]);
  sh(['ip', 'netns', 'add', NS_B]);
  sh(['ip', 'link', 'add', VETH_A, 'netns', NS_A, 'type', 'veth', 'peer', 'name', VETH_B, 'netns', NS_B]);
  for (const [ns, dev, v4, v6] of [
    [NS_A, VETH_A, A4, A6],
    [NS_B, VETH_B, B4, B6],
  ]) {
    sh(['ip', '-n', ns, 'addr', 'add', `${v4}/30`, 'dev', dev]);
    sh(['ip', '-n', ns, 'addr', 'add', `${v6}/126`, 'dev', dev, 'nodad']); // usable at once
    sh(['ip', '-n', ns, 'link', 'set', 'lo', 'up']);
    sh(['ip', '-n', ns, 'link', 'set', dev, 'up']);
  }
}

function tearDownNamespaces(): void {
  for (const ns of [NS_A, NS_B]) {
    try {
      sh(['ip', 'netns', 'del', ns]); // takes the veth pair with it
    } catch {
      // not created
    }
  }
}

const hasTshark = (() => {
  try {
    sh(['tshark', '--version']);
    return true;
  } catch {
    return false;
  }
})();

describe.skipIf(!IS_ROOT)('TCP-MD5 and GTSM across namespaces (our listener, our connector)', () => {
  let listenerAgent: Agent;
  let connectorAgent: Agent;

  beforeAll(async () => {
    tearDownNamespaces(); // a namespace left by an earlier run of this same pid
    setUpNamespaces();
    listenerAgent = new Agent(NS_A);
    connectorAgent = new Agent(NS_B);
    await listenerAgent.next((e) => e.ev === 'ready');
    await connectorAgent.next((e) => e.ev === 'ready');
    listenerAgent.send({
      op: 'listen',
      name: 'main',
      port: LISTEN_PORT, // host defaults to '::': dual-stack, IPv4 keys go in v4-mapped
      peers: [
        { address: B4, password: 'v4-secret' },
        { address: B6, password: 'v6-secret' },
      ],
    });
    const listening = await listenerAgent.next((e) => e.ev === 'listening' || e.ev === 'error');
    expect(listening).toMatchObject({ ev: 'listening', address: { address: '::', port: LISTEN_PORT } });
  });

  afterAll(async () => {
    await Promise.all([listenerAgent?.stop(), connectorAgent?.stop()]);
    tearDownNamespaces();
  });

  it('IPv4 through the dual-stack listener: same key both ends, data flows', async () => {
    const before = counters(NS_A);
    const outcome = await connectorAgent.connect('v4-ok', {
      host: A4,
      port: LISTEN_PORT,
      password: 'v4-secret',
      localAddress: B4,
      timeoutMs: 5_000,
      send: 'hello over v4',
    });
    expect(outcome).toMatchObject({ ev: 'connected', peer: { address: A4, port: LISTEN_PORT } });
    expect(await connectorAgent.next((e) => e.ev === 'echo' && e.id === 'v4-ok')).toMatchObject({
      text: 'hello over v4',
    });
    const accepted = await listenerAgent.next(acceptedFor(outcome));
    expect(accepted.peer).toEqual({ address: B4, port: (outcome.local as { port: number }).port });
    const after = counters(NS_A);
    expect(after.TcpExtTCPMD5Failure).toBe(before.TcpExtTCPMD5Failure);
    expect(after.TcpExtTCPMD5NotFound).toBe(before.TcpExtTCPMD5NotFound);
  });

  it('IPv6: same key both ends, data flows', async () => {
    const outcome = await connectorAgent.connect('v6-ok', {
      host: A6,
      port: LISTEN_PORT,
      password: 'v6-secret',
      timeoutMs: 5_000,
      send: 'hello over v6',
    });
    expect(outcome).toMatchObject({ ev: 'connected', local: { address: B6 } });
    expect(await connectorAgent.next((e) => e.ev === 'echo' && e.id === 'v6-ok')).toMatchObject({
      text: 'hello over v6',
    });
    expect((await listenerAgent.next(acceptedFor(outcome))).peer).toMatchObject({ address: B6 });
  });

  it('wrong key: no connection, TcpExtTCPMD5Failure goes up, no fd left behind', async () => {
    connectorAgent.send({ op: 'fds' });
    const fdsBefore = (await connectorAgent.next((e) => e.ev === 'fds')).count;
    const before = counters(NS_A);
    for (const [id, host] of [
      ['v4-wrong', A4],
      ['v6-wrong', A6],
    ]) {
      const outcome = await connectorAgent.connect(id, { host, port: LISTEN_PORT, password: 'not-the-key' });
      expect(outcome).toMatchObject({ ev: 'connect-error', kind: 'connect-timeout', code: 'ETIMEDOUT' });
    }
    const after = counters(NS_A);
    expect(after.TcpExtTCPMD5Failure).toBeGreaterThanOrEqual(before.TcpExtTCPMD5Failure + 2);
    connectorAgent.send({ op: 'fds' });
    expect((await connectorAgent.next((e) => e.ev === 'fds')).count).toBe(fdsBefore);
  });

  it('missing key: no connection, TcpExtTCPMD5NotFound goes up', async () => {
    const before = counters(NS_A);
    const outcome = await connectorAgent.connect('v4-nokey', { host: A4, port: LISTEN_PORT });
    expect(outcome).toMatchObject({ ev: 'connect-error', kind: 'connect-timeout' });
    const after = counters(NS_A);
    expect(after.TcpExtTCPMD5NotFound).toBeGreaterThan(before.TcpExtTCPMD5NotFound);
  });

  it('a key removed at run time (setPeerKey null) makes new keyed connections fail', async () => {
    listenerAgent.send({ op: 'setPeerKey', name: 'main', address: B4, password: null });
    await listenerAgent.next((e) => e.ev === 'ok' || e.ev === 'error');
    const before = counters(NS_A);
    const keyed = await connectorAgent.connect('v4-removed', {
      host: A4,
      port: LISTEN_PORT,
      password: 'v4-secret',
    });
    expect(keyed).toMatchObject({ ev: 'connect-error', kind: 'connect-timeout' });
    // the kernel drops a signed segment it has no key for
    expect(counters(NS_A).TcpExtTCPMD5Unexpected).toBeGreaterThan(before.TcpExtTCPMD5Unexpected);
    // the peer is still known: without a key it gets in
    const plain = await connectorAgent.connect('v4-plain', { host: A4, port: LISTEN_PORT, timeoutMs: 5_000 });
    expect(plain).toMatchObject({ ev: 'connected' });
    await listenerAgent.next(acceptedFor(plain));
    // and a new key at run time works at once
    listenerAgent.send({ op: 'setPeerKey', name: 'main', address: `::ffff:${B4}`, password: 'v4-rotated' });
    await listenerAgent.next((e) => e.ev === 'ok' || e.ev === 'error');
    const rotated = await connectorAgent.connect('v4-rotated', {
      host: A4,
      port: LISTEN_PORT,
      password: 'v4-rotated',
      timeoutMs: 5_000,
    });
    expect(rotated).toMatchObject({ ev: 'connected' });
    await listenerAgent.next(acceptedFor(rotated));
  });

  it('an address outside the peer set is reset at accept', async () => {
    listenerAgent.send({ op: 'removePeer', name: 'main', address: B6 });
    await listenerAgent.next((e) => e.ev === 'ok' || e.ev === 'error');
    const outcome = await connectorAgent.connect('v6-unknown', {
      host: A6,
      port: LISTEN_PORT,
      timeoutMs: 5_000,
    });
    // The reset may beat the connect callback; on a busy host the connect sees the reset as
    // ECONNRESET, or as EPIPE/ECONNREFUSED when the listener's answer comes first.
    if (outcome.ev === 'connected')
      await connectorAgent.next((e) => e.ev === 'closed' && e.id === 'v6-unknown');
    else
      expect(outcome).toMatchObject({
        kind: 'connect-failed',
        code: expect.stringMatching(/^(ECONNRESET|EPIPE|ECONNREFUSED)$/),
      });
    expect(await listenerAgent.next((e) => e.ev === 'refused')).toMatchObject({ peer: { address: B6 } });
  });

  it.skipIf(!hasTshark)('every segment carries TCP option kind 19 (tshark)', async () => {
    const dir = mkdtempSync(join(tmpdir(), `${TAG}-pcap-`));
    const pcap = join(dir, 'md5.pcap');
    try {
      const capture = spawn('ip', [
        'netns',
        'exec',
        NS_A,
        'tshark',
        '-i',
        VETH_A,
        '-f',
        `tcp port ${LISTEN_PORT}`,
        '-a',
        'duration:20',
        '-c',
        '6',
        '-w',
        pcap,
      ]);
      const exited = new Promise<void>((done) => capture.once('exit', () => done()));
      try {
        await new Promise<void>((ready, fail) => {
          const timer = setTimeout(() => fail(new Error('tshark did not start')), 15_000);
          let said = '';
          capture.stderr.setEncoding('utf8').on('data', (text: string) => {
            said += text;
            if (said.includes('Capture started')) {
              // printed once dumpcap really captures
              clearTimeout(timer);
              ready();
            }
          });
        });
        const outcome = await connectorAgent.connect('v4-pcap', {
          host: A4,
          port: LISTEN_PORT,
          password: 'v4-rotated',
          timeoutMs: 5_000,
          send: 'captured',
        });
        expect(outcome).toMatchObject({ ev: 'connected' });
        await connectorAgent.next((e) => e.ev === 'echo' && e.id === 'v4-pcap');
        await listenerAgent.next(acceptedFor(outcome));
      } finally {
        await Promise.race([exited, new Promise((r) => setTimeout(r, 25_000))]);
        capture.kill('SIGKILL');
      }
      const lines = sh(['tshark', '-r', pcap, '-T', 'fields', '-e', 'tcp.flags.str', '-e', 'tcp.option_kind'])
        .trim()
        .split('\n');
      expect(lines.length, lines.join('\n')).toBeGreaterThanOrEqual(4); // SYN, SYN/ACK, ACK, data ...
      expect(lines[0]).toMatch(/S/); // the SYN is signed too: the key was in place before connect
      for (const line of lines) expect(line.split('\t')[1]?.split(','), line).toContain('19');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('GTSM (RFC 5082) on the listener', () => {
    beforeAll(async () => {
      listenerAgent.send({
        op: 'listen',
        name: 'gtsm',
        port: GTSM_PORT,
        peers: [{ address: B4 }, { address: B6 }],
        ttl: gtsm(),
      });
      expect(await listenerAgent.next((e) => e.ev === 'listening' || e.ev === 'error')).toMatchObject({
        ev: 'listening',
      });
    });

    it.each([
      ['IPv4 (v4-mapped on ::)', A4],
      ['IPv6', A6],
    ])('%s: TTL 64 is dropped (TcpExtTCPMinTTLDrop), TTL 255 gets in', async (_name, host) => {
      const before = counters(NS_A);
      const low = await connectorAgent.connect(`gtsm-low-${host}`, { host, port: GTSM_PORT });
      expect(low).toMatchObject({ ev: 'connect-error', kind: 'connect-timeout' });
      expect(counters(NS_A).TcpExtTCPMinTTLDrop).toBeGreaterThan(before.TcpExtTCPMinTTLDrop);
      const high = await connectorAgent.connect(`gtsm-high-${host}`, {
        host,
        port: GTSM_PORT,
        ttl: gtsm(),
        timeoutMs: 5_000,
        send: 'ttl 255',
      });
      expect(high).toMatchObject({ ev: 'connected' });
      await connectorAgent.next((e) => e.ev === 'echo' && e.id === `gtsm-high-${host}`);
      const accepted = await listenerAgent.next(acceptedFor(high));
      expect(accepted.name).toBe('gtsm');
    });
  });
});

describe.skipIf(!IS_ROOT || !existsSync('/usr/lib/frr/bgpd'))(
  'our connector against FRR bgpd with a password',
  () => {
    const NS_FRR = NS_A;
    let connectorAgent: Agent;
    let dir = '';

    const bgpdConf = `router bgp 65001
 bgp router-id ${A4}
 no bgp ebgp-requires-policy
 neighbor ${B4} remote-as 65002
 neighbor ${B4} password frr-v4-secret
 neighbor ${B4} passive
 neighbor ${B6} remote-as 65002
 neighbor ${B6} password frr-v6-secret
 neighbor ${B6} passive
`;

    function bgpdPid(): number | undefined {
      const file = join(dir, 'bgpd.pid');
      return existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) : undefined;
    }

    async function stopBgpd(): Promise<void> {
      const pid = bgpdPid();
      if (!pid) return;
      const alive = () => {
        try {
          process.kill(pid, 0);
          return true;
        } catch {
          return false;
        }
      };
      if (!alive()) return;
      process.kill(pid, 'SIGTERM');
      for (let i = 0; i < 50 && alive(); i++) await new Promise((r) => setTimeout(r, 100));
      if (alive()) process.kill(pid, 'SIGKILL');
    }

    beforeAll(async () => {
      tearDownNamespaces(); // in case the block above left them
      setUpNamespaces();
      dir = mkdtempSync(join(tmpdir(), `${TAG}-frr-`));
      // bgpd runs as user frr (see frr-lab.md 2.1): its directory and config must be frr's
      const frr = sh(['id', '-u', 'frr']).trim();
      const frrGroup = sh(['id', '-g', 'frr']).trim();
      chownSync(dir, Number(frr), Number(frrGroup));
      writeFileSync(join(dir, 'bgpd.conf'), bgpdConf);
      chownSync(join(dir, 'bgpd.conf'), Number(frr), Number(frrGroup));
      // -Z: no zebra needed to accept a session and send an OPEN
      inNs(NS_FRR, [
        '/usr/lib/frr/bgpd',
        '-d',
        '-Z',
        '-P',
        '0',
        '-f',
        join(dir, 'bgpd.conf'),
        '-i',
        join(dir, 'bgpd.pid'),
        '-z',
        join(dir, 'zserv.api'),
        '--vty_socket',
        dir,
        '--log',
        `file:${join(dir, 'bgpd.log')}`,
      ]);
      for (let i = 0; i < 100; i++) {
        if (inNs(NS_FRR, ['ss', '-Hltn', 'sport', '=', ':179']).includes(':179')) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      connectorAgent = new Agent(NS_B);
      await connectorAgent.next((e) => e.ev === 'ready');
    });

    afterAll(async () => {
      await connectorAgent?.stop();
      await stopBgpd();
      tearDownNamespaces();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it.each([
      ['IPv4', A4, 'frr-v4-secret'],
      ['IPv6', A6, 'frr-v6-secret'],
    ])('%s: the TCP-MD5 session opens and bgpd sends its OPEN', async (_name, host, password) => {
      const id = `frr-${host}`;
      const outcome = await connectorAgent.connect(id, {
        host,
        port: 179,
        password,
        timeoutMs: 5_000,
        readBytes: 19,
      });
      expect(outcome).toMatchObject({ ev: 'connected', peer: { address: host, port: 179 } });
      const header = Buffer.from(
        String((await connectorAgent.next((e) => e.ev === 'bytes' && e.id === id)).hex),
        'hex',
      );
      expect(header.subarray(0, 16).every((b) => b === 0xff)).toBe(true); // RFC 4271 4.1 marker
      expect(header[18]).toBe(1); // OPEN
      expect(header.readUInt16BE(16)).toBeGreaterThanOrEqual(29); // at least the fixed OPEN fields
    });

    it('a wrong password gets no answer from bgpd, and its kernel counts the failure', async () => {
      const before = counters(NS_FRR);
      const outcome = await connectorAgent.connect('frr-wrong', { host: A4, port: 179, password: 'guess' });
      expect(outcome).toMatchObject({ ev: 'connect-error', kind: 'connect-timeout' });
      expect(counters(NS_FRR).TcpExtTCPMD5Failure).toBeGreaterThan(before.TcpExtTCPMD5Failure);
    });
  },
);
