/*
 * The main demo end to end: `scripts/demo-ovn.sh --once` builds OVN (ovn-controller chassis on
 * userspace OVS), FRR and the speaker, prints what FRR learned, adds a FIP live and removes
 * everything. Its output is the contract a user reads: every route kind at FRR with the next hop
 * of the chassis or gateway port that hosts it and the OVN row it came from, the delay of the
 * live change, and nothing left behind afterwards.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const IS_ROOT = process.getuid?.() === 0;
const REPO = fileURLToPath(new URL('../..', import.meta.url));
// The script's defaults; DEMO_LAB and DEMO_NS_PREFIX move a run beside another one.
const LAB = process.env.DEMO_LAB ?? '/tmp/obs-ovn-demo';
const NAMESPACE_PREFIX = process.env.DEMO_NS_PREFIX ?? 'obs-ovn-';
/** The script installs, builds and runs; this bounds it on a slow machine. */
const SCRIPT_TIMEOUT_MS = 240_000;
const DOWN_TIMEOUT_MS = 60_000;

/** One line of the script's routes table, split at its column gaps. */
interface Row {
  readonly nextHop: string;
  readonly asPath: string;
  readonly kind: string;
  readonly from: string;
  readonly why: string;
}

/**
 * What FRR must hold: prefix → next hop at FRR, kind, the OVN row, and what the next hop
 * follows. Chassis on physnet1: gw1 .11 (router1's active gateway), hv1 .21, hv2 .22, node-a .31;
 * router1's gateway port .100.
 */
const EXPECTED: readonly (readonly [string, string, string, string, RegExp])[] = [
  // distributed FIPs: the chassis of the VM (vm1 on hv1)
  [
    '198.18.64.10/32',
    '198.18.10.21',
    'floating-ip',
    'NAT router1/198.18.64.10',
    /^chassis hv1 \(Port_Binding vm1\)/,
  ],
  [
    '2001:db8:64::10/128',
    '2001:db8:10::21',
    'floating-ip',
    'NAT router1/2001:db8:64::10',
    /^chassis hv1 \(Port_Binding vm1\)/,
  ],
  // centralized FIPs: the active chassis of router1's HA gateway
  [
    '198.18.64.20/32',
    '198.18.10.11',
    'floating-ip',
    'NAT router1/198.18.64.20',
    /^chassis gw1 \(Port_Binding cr-lrp-public\)/,
  ],
  [
    '2001:db8:64::20/128',
    '2001:db8:10::11',
    'floating-ip',
    'NAT router1/2001:db8:64::20',
    /^chassis gw1 \(Port_Binding cr-lrp-public\)/,
  ],
  [
    '198.18.64.100/32',
    '198.18.10.11',
    'lb-vip',
    'Load_Balancer web',
    /^chassis gw1 \(Port_Binding cr-lrp-public\)/,
  ],
  [
    '2001:db8:64::100/128',
    '2001:db8:10::11',
    'lb-vip',
    'Load_Balancer web',
    /^chassis gw1 \(Port_Binding cr-lrp-public\)/,
  ],
  [
    '198.18.10.50/32',
    '198.18.10.22',
    'provider-port',
    'Logical_Switch_Port pvm1',
    /^chassis hv2 \(Port_Binding pvm1\)/,
  ],
  [
    '2001:db8:10::50/128',
    '2001:db8:10::22',
    'provider-port',
    'Logical_Switch_Port pvm1',
    /^chassis hv2 \(Port_Binding pvm1\)/,
  ],
  [
    '198.18.65.10/32',
    '198.18.10.31',
    'service-vip',
    'Load_Balancer Service_default/web_TCP_node_router_node-a',
    /node node-a, gateway router GR_node-a options:chassis/,
  ],
  [
    '2001:db8:65::10/128',
    '2001:db8:10::31',
    'service-vip',
    'Load_Balancer Service_default/web_TCP_node_router_node-a',
    /node node-a, gateway router GR_node-a options:chassis/,
  ],
  // tenant2 is marked routable; tenant1 is SNATed and unmarked, so it is not here
  [
    '198.19.2.0/24',
    '198.18.10.100',
    'tenant-network',
    'Logical_Router_Port router1/lrp-tenant2',
    /^gateway port lrp-public of router router1/,
  ],
  [
    '2001:db8:2::/64',
    '2001:db8:10::100',
    'tenant-network',
    'Logical_Router_Port router1/lrp-tenant2',
    /^gateway port lrp-public of router router1/,
  ],
  [
    '198.19.8.0/24',
    '198.18.10.31',
    'pod-subnet',
    'Logical_Switch node-a',
    /node node-a, GR_node-a options:chassis/,
  ],
  [
    '2001:db8:8::/64',
    '2001:db8:10::31',
    'pod-subnet',
    'Logical_Switch node-a',
    /node node-a, GR_node-a options:chassis/,
  ],
];

let output = '';
let status: number | null = null;

/** Runs the script to its end (bounded; on timeout its whole process group is killed). */
function runDemo(): Promise<void> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['scripts/demo-ovn.sh', '--once'], {
      cwd: REPO,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      output += d.toString();
    });
    const timer = setTimeout(() => {
      output += `\n[test: no end after ${SCRIPT_TIMEOUT_MS} ms, killed]\n`;
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, SCRIPT_TIMEOUT_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      status = code;
      resolve();
    });
  });
}

const demoNamespaces = (): string[] =>
  (existsSync('/run/netns') ? readdirSync('/run/netns') : []).filter((n) => n.startsWith(NAMESPACE_PREFIX));

/** Live (not zombie) processes whose command line names the demo's lab dir. */
function demoProcesses(): string[] {
  const out: string[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      const state = /^State:\s+(\S)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
      if (cmd.includes(LAB) && state !== 'Z') out.push(`${pid} ${cmd}`);
    } catch {
      // exited while we looked
    }
  }
  return out;
}

/** The routes table of the output: prefix → its row. */
function routesTable(text: string): Map<string, Row> {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.startsWith('Prefix ') && l.includes('Next hop at FRR'));
  const rows = new Map<string, Row>();
  if (start < 0) return rows;
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === '') break;
    const [prefix, nextHop, asPath, kind, from, why] = line.split(/ {2,}/);
    if (prefix && why !== undefined)
      rows.set(prefix, { nextHop: nextHop!, asPath: asPath!, kind: kind!, from: from!, why });
  }
  return rows;
}

describe.skipIf(!IS_ROOT)('npm run demo (scripts/demo-ovn.sh --once)', () => {
  beforeAll(async () => {
    await runDemo();
  }, SCRIPT_TIMEOUT_MS + 10_000);

  afterAll(() => {
    // Whatever happened above, leave nothing behind.
    if (existsSync(LAB) || demoNamespaces().length > 0)
      spawnSync('bash', ['scripts/demo-ovn.sh', 'down'], { cwd: REPO, timeout: DOWN_TIMEOUT_MS });
  }, DOWN_TIMEOUT_MS + 5_000);

  it('runs to the end', () => {
    expect(status, output).toBe(0);
  });

  it('registers the hypervisors and the Kubernetes node with ovn-controller, which claims their ports', () => {
    for (const ns of ['hv1', 'hv2', 'nodea'].map((n) => NAMESPACE_PREFIX + n))
      expect(output).toMatch(
        new RegExp(`ovn-controller \\+ ovs-vswitchd \\(\\w+ datapath\\) in namespace ${ns}`),
      );
    expect(output).toMatch(
      /ports claimed by ovn-controller: vm1 on hv1, vm2 on hv2, vm3 on hv2, pvm1 on hv2, default_web-0 on node-a/,
    );
  });

  it('has both BGP sessions up, as the speaker and as FRR see them', () => {
    expect(output).toMatch(/speaker: upstream4 198\.18\.10\.1 AS 65001 Established/);
    expect(output).toMatch(/speaker: upstream6 2001:db8:10::1 AS 65001 Established/);
    expect(output).toMatch(/FRR: +neighbor 198\.18\.10\.2 AS 65000 Established/);
    expect(output).toMatch(/FRR: +neighbor 2001:db8:10::2 AS 65000 Established/);
  });

  it('shows every route kind at FRR with the next hop of what hosts it and the OVN row it came from', () => {
    const rows = routesTable(output);
    expect([...rows.keys()].sort()).toEqual(EXPECTED.map(([p]) => p).sort());
    for (const [prefix, nextHop, kind, from, why] of EXPECTED) {
      const row = rows.get(prefix)!;
      expect({ prefix, nextHop: row.nextHop, kind: row.kind, from: row.from, asPath: row.asPath }).toEqual({
        prefix,
        nextHop,
        kind,
        from,
        asPath: '65000',
      });
      expect(row.why, prefix).toMatch(why);
    }
    expect(output).toMatch(/Every OVN route is at FRR, next hops as the speaker chose them/);
  });

  it('times the live FIP from the nbctl commit to FRR, with the next hop of the VM’s chassis', () => {
    expect(output).toMatch(
      /\$ ovn-nbctl lr-nat-add router1 dnat_and_snat 198\.18\.64\.30 198\.19\.2\.11 vm3/,
    );
    expect(output).toMatch(
      /Delay: \d+ ms from the nbctl commit to FRR holding 198\.18\.64\.30\/32 via 198\.18\.10\.22\n/,
    );
    // From ovsdb-server's log of the update notification to bgpd's log of the UPDATE.
    expect(output).toMatch(
      / {2}commit: ovsdb-server sent the update notification at \d{4}-\d\d-\d\dT[\d:.]+Z/,
    );
    expect(output).toMatch(
      / {2}FRR: bgpd logged the UPDATE at \d{4}\/\d\d\/\d\d [\d:.]+; vtysh showed it as best path/,
    );
    expect(output).toMatch(
      /The speaker: floating-ip from NAT router1\/198\.18\.64\.30; next hop: chassis hv2 \(Port_Binding vm3\)/,
    );
    // FRR's own view: the speaker's path, the chassis as next hop, the floating IPs' community.
    expect(output).toMatch(/198\.18\.10\.22 from 198\.18\.10\.2 \(198\.18\.10\.2\)/);
    expect(output).toMatch(/Community: 65000:101/);
  });

  it('removes everything: processes, namespaces, files', () => {
    expect(output).toContain(`stopped 15 process(es), deleted 5 namespace(s), removed ${LAB}`);
    expect(existsSync(LAB)).toBe(false);
    expect(demoNamespaces()).toEqual([]);
    expect(demoProcesses()).toEqual([]);
  });
});
