/**
 * Captures the ZAPI between a real bgpd and its zebra, and between zebra and our zebra sink,
 * for FRR 8.4 (the host's Debian 12 packages) and FRR 10.3 (the trixie root that
 * scripts/trixie-root.sh builds), into fixtures/zapi/frr-<version>.json.
 *
 *   npx tsx frr-interop/capture/zapi-capture.ts [--out DIR] [--only 8.4|10.3] [--bgpd-only]
 *
 * Needs root. Per version it builds the namespaces obs-zc-r (zebra and bgpd of that version),
 * obs-zc-p1 and obs-zc-p2 (two FRR 8.4 peers), puts a recording relay (zapi-relay.ts) on the
 * unix socket between bgpd and zebra, drives a few route events, then connects our
 * ZebraTarget through the same relay, and last our client saying HELLO in the other dialect
 * first (to record zebra's ERROR for it). It names every command seen by asking zebra itself (its
 * `debug zebra packet` log names each command number a client sends). Everything it starts is
 * stopped by PID and every namespace and mount is removed, also on failure.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Afi } from '../../src/bgp/wire/index.js';
import type { FibRoute } from '../../src/fib/index.js';
import {
  DIALECTS,
  ZapiClient,
  type ZapiDialect,
  type ZebraRouteState,
  ZebraTarget,
} from '../../src/fib/zebra/index.js';
import { parsePrefix } from '../../src/rib/index.js';
import { FRR_DAEMON_DIR } from '../lab/constants.js';
import {
  createNamespace,
  createVeth,
  DaemonRoot,
  deleteNamespace,
  FrrDaemon,
  type ProcessRecord,
  run,
  spawnDetached,
  stopProcesses,
} from '../lab/index.js';
import { waitFor } from '../lab/wait.js';
import { prepareFrrDir, writeFrrFile, zebraArgv, zebraReady, zebraSocket } from '../lab/zebra.js';
import { type RecordedConnection, ZapiRelay } from './zapi-relay.js';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const NS = { r: 'obs-zc-r', p1: 'obs-zc-p1', p2: 'obs-zc-p2' } as const;
const WAIT_MS = 30_000;

/*
 *  obs-zc-p1  FRR 8.4 AS 65002              obs-zc-r  zebra + bgpd AS 65001 (the version captured)
 *  zc-p1  198.18.44.2  2001:db8:44::2  ───  zc-r1  198.18.44.1  2001:db8:44::1
 *  obs-zc-p2  FRR 8.4 AS 65003
 *  zc-p2  198.18.45.2                  ───  zc-r2  198.18.45.1
 *
 *  p1 announces 198.19.44.0/24, 198.19.45.0/24 and 2001:db8:f44::/48; p2 198.19.44.0/24 too,
 *  so bgpd (maximum-paths 2, as-path multipath-relax) installs that one over both next hops.
 */
const ROUTER_BGPD = (dir: string) =>
  [
    `log file ${join(dir, 'bgpd.log')} informational`,
    'hostname zc-router',
    'router bgp 65001',
    ' bgp router-id 198.18.44.1',
    ' no bgp ebgp-requires-policy',
    ' no bgp default ipv4-unicast',
    ' bgp bestpath as-path multipath-relax',
    // bgpd asks zebra for ROUTE_NOTIFY_OWNER only with this: the capture then shows how.
    ' bgp suppress-fib-pending',
    ' timers bgp 3 9',
    ' neighbor 198.18.44.2 remote-as 65002',
    ' neighbor 198.18.44.2 timers connect 2',
    ' neighbor 198.18.45.2 remote-as 65003',
    ' neighbor 198.18.45.2 timers connect 2',
    ' neighbor 2001:db8:44::2 remote-as 65002',
    ' neighbor 2001:db8:44::2 timers connect 2',
    ' address-family ipv4 unicast',
    '  maximum-paths 2',
    '  neighbor 198.18.44.2 activate',
    '  neighbor 198.18.45.2 activate',
    ' exit-address-family',
    ' address-family ipv6 unicast',
    '  maximum-paths 2',
    '  neighbor 2001:db8:44::2 activate',
    ' exit-address-family',
    '',
  ].join('\n');

interface Version {
  /** What `--only` names. */
  readonly label: string;
  readonly root: DaemonRoot | undefined;
}

interface Capture {
  readonly name: string;
  readonly made_by: string;
  readonly description: string;
  readonly frr: { readonly version: string; readonly package: string; readonly from: string };
  readonly commands: Record<string, string>;
  readonly events: { readonly afterSeq: number; readonly event: string }[];
  readonly connections: RecordedConnection[];
}

function rmdirQuiet(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // not there, or not empty
  }
}

/** Runs `argv` from `root` (or the host) outside any namespace. */
const fromRoot = (root: DaemonRoot | undefined, argv: string[]) => (root ? root.argv(argv) : argv);

function frrVersion(root: DaemonRoot | undefined): { version: string; package: string } {
  const sh = (argv: string[]) => {
    const [file, ...rest] = fromRoot(root, argv);
    return execFileSync(file as string, rest).toString();
  };
  const version = sh([join(FRR_DAEMON_DIR, 'zebra'), '--version']).match(/zebra version (\S+)/)?.[1];
  if (!version) throw new Error('zebra --version said no version');
  // dpkg-query's own field syntax, not a template placeholder.
  const field = '$' + '{Version}';
  return { version, package: `frr ${sh(['dpkg-query', '-W', '-f', field, 'frr'])}` };
}

class Run {
  readonly dir = mkdtempSync(join(tmpdir(), 'obs-zc-'));
  readonly rdir = join(this.dir, 'r');
  readonly procs: ProcessRecord[] = [];
  readonly peers: FrrDaemon[] = [];
  readonly events: Capture['events'] = [];
  relay: ZapiRelay | undefined;
  bgpd: ProcessRecord | undefined;
  zebra: ProcessRecord | undefined;

  constructor(readonly v: Version) {}

  note(event: string): void {
    this.events.push({ afterSeq: (this.relay?.frameCount ?? 0) - 1, event });
    console.log(`  ${event}`);
  }

  async build(): Promise<void> {
    // The frr user of the peers (and of the host's zebra) must reach its directory below.
    chmodSync(this.dir, 0o755);
    for (const ns of Object.values(NS)) await deleteNamespace(ns).catch(() => undefined);
    for (const ns of Object.values(NS)) await createNamespace(ns);
    await createVeth(
      { ns: NS.r, ifname: 'zc-r1', ipv4: '198.18.44.1/24', ipv6: '2001:db8:44::1/64' },
      { ns: NS.p1, ifname: 'zc-p1', ipv4: '198.18.44.2/24', ipv6: '2001:db8:44::2/64' },
    );
    await createVeth(
      { ns: NS.r, ifname: 'zc-r2', ipv4: '198.18.45.1/24' },
      { ns: NS.p2, ifname: 'zc-p2', ipv4: '198.18.45.2/24' },
    );
    prepareFrrDir(this.rdir, this.v.root);
    await this.v.root?.mount(this.rdir);
    // Debug logging: zebra names every command number a client sends ("zebra message[NAME:...").
    writeFrrFile(
      join(this.rdir, 'zebra.conf'),
      `hostname zc-router\nlog file ${join(this.rdir, 'zebra.log')} debugging\ndebug zebra packet\n`,
      this.v.root,
    );
    this.zebra = spawnDetached(
      zebraArgv(NS.r, this.rdir, this.v.root),
      'frr/zebra',
      join(this.rdir, 'out'),
    ).record;
    this.procs.push(this.zebra);
    await waitFor(async () => (zebraReady(this.rdir) ? true : undefined), {
      timeoutMs: WAIT_MS,
      intervalMs: 25,
      what: 'zebra sockets',
    });
    this.relay = await ZapiRelay.start(join(this.rdir, 'relay.api'), zebraSocket(this.rdir));
    const p1 = new FrrDaemon(
      { name: 'p1', ns: NS.p1, dir: join(this.dir, 'p1') },
      {
        routerId: '198.18.44.2',
        as: 65002,
        neighbors: [
          { address: '198.18.44.1', remoteAs: 65001, families: ['ipv4'] },
          { address: '2001:db8:44::1', remoteAs: 65001, families: ['ipv6'] },
        ],
        originate: { ipv4: ['198.19.44.0/24', '198.19.45.0/24'], ipv6: ['2001:db8:f44::/48'] },
      },
    );
    const p2 = new FrrDaemon(
      { name: 'p2', ns: NS.p2, dir: join(this.dir, 'p2') },
      {
        routerId: '198.18.45.2',
        as: 65003,
        neighbors: [{ address: '198.18.45.1', remoteAs: 65001, families: ['ipv4'] }],
        originate: { ipv4: ['198.19.44.0/24'] },
      },
    );
    this.peers.push(p1, p2);
    await Promise.all(this.peers.map((p) => p.start()));
  }

  /** zebra's RIB entry of `prefix` for protocol bgp, as `show ip[v6] route json` gives it. */
  async zebraRoute(
    prefix: string,
  ): Promise<{ installed?: boolean; nexthops: { ip?: string }[] } | undefined> {
    const out = await run(
      fromRoot(this.v.root, [
        'vtysh',
        '--vty_socket',
        this.rdir,
        '-c',
        `show ${prefix.includes(':') ? 'ipv6' : 'ip'} route ${prefix} json`,
      ]),
    );
    const entries = (
      JSON.parse(out || '{}') as Record<
        string,
        { protocol: string; installed?: boolean; nexthops: { ip?: string }[] }[]
      >
    )[prefix];
    return entries?.find((e) => e.protocol === 'bgp');
  }

  async waitRoute(prefix: string, nexthops: number | 'gone'): Promise<void> {
    await waitFor(
      async () => {
        const r = await this.zebraRoute(prefix);
        if (nexthops === 'gone') return r === undefined ? true : undefined;
        return r?.installed && r.nexthops.length === nexthops ? true : undefined;
      },
      {
        timeoutMs: WAIT_MS,
        intervalMs: 100,
        what: `${prefix} ${nexthops === 'gone' ? 'gone' : `with ${nexthops} next hop(s)`} in zebra`,
      },
    );
  }

  async bgpdPhase(): Promise<void> {
    const relay = this.relay!;
    const conf = join(this.rdir, 'bgpd.conf');
    writeFrrFile(conf, ROUTER_BGPD(this.rdir), this.v.root);
    relay.label = 'bgpd';
    const argv = [
      join(FRR_DAEMON_DIR, 'bgpd'),
      '-z',
      relay.path,
      '--vty_socket',
      this.rdir,
      '-i',
      join(this.rdir, 'bgpd.pid'),
      '-f',
      conf,
      '-P',
      '0',
    ];
    this.bgpd = spawnDetached(
      this.v.root ? this.v.root.argv(argv, NS.r) : ['ip', 'netns', 'exec', NS.r, ...argv],
      'frr/bgpd',
      join(this.rdir, 'out'),
    ).record;
    this.procs.push(this.bgpd);
    this.note('bgpd started');
    await this.waitRoute('198.19.44.0/24', 2);
    await this.waitRoute('198.19.45.0/24', 1);
    await this.waitRoute('2001:db8:f44::/48', 1);
    this.note('installed: 198.19.44.0/24 over two next hops, 198.19.45.0/24, 2001:db8:f44::/48');
    await this.peers[0]!.withdraw(['198.19.45.0/24']);
    await this.waitRoute('198.19.45.0/24', 'gone');
    this.note('p1 withdrew 198.19.45.0/24: gone');
    await this.peers[1]!.withdraw(['198.19.44.0/24']);
    await this.waitRoute('198.19.44.0/24', 1);
    this.note('p2 withdrew 198.19.44.0/24: one next hop left');
    await stopProcesses([this.bgpd]);
    await waitFor(async () => ((await this.zebraRoute('198.19.44.0/24')) === undefined ? true : undefined), {
      timeoutMs: WAIT_MS,
      intervalMs: 100,
      what: "bgpd's routes gone after it stopped",
    });
    this.note('bgpd stopped (SIGTERM): its routes gone');
  }

  /** Our sink through the relay: HELLO as zebra's version needs, routes, notifications. */
  async clientPhase(): Promise<void> {
    const relay = this.relay!;
    relay.label = 'ovn-bgp-speaker';
    const target = new ZebraTarget({
      socket: relay.path,
      instance: 1,
      reconnectInitialMs: 100,
      reconnectMaxMs: 500,
    });
    const route = (prefix: string, ...hops: string[]): FibRoute => ({
      prefix: parsePrefix(prefix),
      nextHops: hops.map((address) => ({ address, afi: address.includes(':') ? Afi.IPV6 : Afi.IPV4 })),
    });
    const states = new Map<string, ZebraRouteState>();
    target.onRouteState((e) => states.set(e.prefix, e.state));
    const until = (what: string, ok: () => boolean) =>
      waitFor(async () => (ok() ? true : undefined), {
        timeoutMs: WAIT_MS,
        intervalMs: 50,
        get what() {
          return `${what} (states: ${JSON.stringify([...states])})`;
        },
      });
    try {
      target.start();
      await target.ready(WAIT_MS);
      this.note('our sink connected');
      await target.apply([
        { kind: 'add', route: route('198.19.46.0/24', '198.18.44.2') },
        { kind: 'add', route: route('198.19.47.0/24', '198.18.44.2', '198.18.45.2') },
        { kind: 'add', route: route('2001:db8:f46::/48', '2001:db8:44::2') },
        // The connected prefix, over a next hop inside it: 8.4 answers FAIL_INSTALL, 10.3
        // BETTER_ADMIN_WON (the connected route keeps it).
        { kind: 'add', route: route('198.18.44.0/24', '198.18.44.2') },
      ]);
      const refused = () => states.get('198.18.44.0/24');
      await until(
        'three INSTALLED and 198.18.44.0/24 refused',
        () =>
          ['198.19.46.0/24', '198.19.47.0/24', '2001:db8:f46::/48'].every(
            (p) => states.get(p) === 'installed',
          ) &&
          (refused() === 'fail-install' || refused() === 'better-admin-won'),
      );
      this.note(`our routes: three INSTALLED, 198.18.44.0/24 ${refused()}`);
      await target.apply([
        { kind: 'withdraw', prefix: parsePrefix('198.19.46.0/24') },
        { kind: 'withdraw', prefix: parsePrefix('198.18.44.0/24') },
      ]);
      await waitFor(
        async () => ((await this.zebraRoute('198.19.46.0/24')) === undefined ? true : undefined),
        {
          timeoutMs: WAIT_MS,
          intervalMs: 50,
          what: '198.19.46.0/24 gone',
        },
      );
      this.note('our sink withdrew 198.19.46.0/24 and 198.18.44.0/24');
    } finally {
      await target.close();
    }
    await waitFor(async () => ((await this.zebraRoute('198.19.47.0/24')) === undefined ? true : undefined), {
      timeoutMs: WAIT_MS,
      intervalMs: 50,
      what: 'our routes flushed after close',
    });
    this.note('our sink closed: zebra flushed its routes');
  }

  /**
   * A HELLO in the other dialect first: zebra's ERROR for it (with that ERROR's own number),
   * then the HELLO it understands and its CAPABILITIES. Our client, dialects in reverse order.
   */
  async helloPhase(): Promise<void> {
    const relay = this.relay!;
    const order = [...DIALECTS].reverse();
    relay.label = `ovn-bgp-speaker, HELLO as ${order.map((d) => d.name).join(' then ')}`;
    let spoken: ZapiDialect | undefined;
    const client = new ZapiClient(
      {
        socketPath: relay.path,
        routeType: 'BGP',
        instance: 2,
        dialects: order,
        backoff: { initialMs: 100, maxMs: 500, jitter: 0 },
        handshakeTimeoutMs: 5000,
      },
      { up: (_caps, d) => (spoken = d), down: () => {}, notify: () => {}, routerId: () => {} },
    );
    try {
      client.start();
      await waitFor(async () => spoken, { timeoutMs: WAIT_MS, intervalMs: 20, what: 'HELLO answered' });
      this.note(`our client, HELLO in the other dialect first: up as ${spoken!.name}`);
    } finally {
      await client.close();
    }
  }

  /**
   * zebra's own name for each command number: sent header-only on a connection of its own,
   * zebra's debug log says "zebra message[NAME:vrf:len] comes from socket". Only numbers the
   * capture holds are asked; with no body every handler stops at its first read.
   */
  async nameCommands(commands: readonly number[]): Promise<Record<string, string>> {
    const log = join(this.rdir, 'zebra.log');
    const names: Record<string, string> = {};
    const LINE = /zebra message\[([^:\]]+):[^\]]*:10\] comes from socket/g;
    for (const command of [...commands].sort((a, b) => a - b)) {
      const before = [...readFileSync(log, 'utf8').matchAll(LINE)].length;
      await new Promise<void>((resolve, reject) => {
        const s = createConnection({ path: zebraSocket(this.rdir) }, () => {
          const frame = Buffer.from([0, 10, 0xfe, 6, 0, 0, 0, 0, command >> 8, command & 0xff]);
          s.end(frame);
        });
        s.on('error', reject);
        s.on('close', () => resolve());
        s.resume();
      });
      names[command] = await waitFor(async () => [...readFileSync(log, 'utf8').matchAll(LINE)][before]?.[1], {
        timeoutMs: 5000,
        intervalMs: 20,
        what: `zebra's name for command ${command}`,
      });
    }
    return names;
  }

  async teardown(): Promise<void> {
    await this.relay?.close().catch(() => undefined);
    await stopProcesses(this.procs);
    for (const p of this.peers) await p.stop().catch(() => undefined);
    if (this.v.root) {
      await this.v.root.unmount(this.rdir).catch(() => undefined);
      // The mount point and its parent, inside the root; rmdir removes them only when empty.
      for (const d of [this.rdir, this.dir]) rmdirQuiet(join(this.v.root.path, d));
    }
    for (const ns of Object.values(NS)) await deleteNamespace(ns).catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

async function capture(v: Version, withClient: boolean): Promise<Capture> {
  const frr = frrVersion(v.root);
  console.log(`FRR ${frr.version} (${frr.package})`);
  const r = new Run(v);
  try {
    await r.build();
    await r.bgpdPhase();
    if (withClient) {
      await r.clientPhase();
      await r.helloPhase();
    }
    const connections = r.relay!.connections;
    const seen = [...new Set(connections.flatMap((c) => c.frames.map((f) => f.command)))];
    const commands = await r.nameCommands(seen);
    return {
      name: `frr-${frr.version}`,
      made_by: 'frr-interop/capture/zapi-capture.ts',
      description:
        'ZAPI over zebra\'s unix socket, recorded by a relay: bgpd (AS 65001, suppress-fib-pending, maximum-paths 2) learning routes from two FRR 8.4 peers, then our zebra sink (ZebraTarget, instance 1). Every frame whole, header included; "commands" holds zebra\'s own name for each command number seen.',
      frr: { ...frr, from: v.root ? 'the trixie root (scripts/trixie-root.sh)' : 'the host (Debian 12)' },
      commands,
      events: r.events,
      connections,
    };
  } finally {
    await r.teardown();
  }
}

/** JSON with one frame per line, so a new capture reads as a diff of frames. */
function render(c: Capture): string {
  const { connections, ...head } = c;
  const conns = connections.map(
    (conn) =>
      `  {"client": ${JSON.stringify(conn.client)}, "frames": [\n${conn.frames.map((f) => `   ${JSON.stringify(f)}`).join(',\n')}\n  ]}`,
  );
  const top = JSON.stringify(head, null, 1);
  return `${top.slice(0, -2)},\n "connections": [\n${conns.join(',\n')}\n ]\n}\n`;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const outAt = args.indexOf('--out');
  const out = outAt >= 0 ? args[outAt + 1]! : join(REPO, 'fixtures', 'zapi');
  const onlyAt = args.indexOf('--only');
  const only = onlyAt >= 0 ? args[onlyAt + 1] : undefined;
  mkdirSync(out, { recursive: true });
  const versions: { label: string; root: () => Promise<DaemonRoot | undefined> }[] = [
    { label: '8.4', root: async () => undefined },
    { label: '10.3', root: () => DaemonRoot.trixie() },
  ];
  for (const { label, root } of versions) {
    if (only !== undefined && only !== label) continue;
    const c = await capture({ label, root: await root() }, !args.includes('--bgpd-only'));
    const file = join(out, `${c.name}.json`);
    writeFileSync(file, render(c));
    console.log(
      `wrote ${file}: ${c.connections.length} connections, ${c.connections.reduce((n, x) => n + x.frames.length, 0)} frames`,
    );
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
