/*
 * The demo on OVN 25.03 end to end: `scripts/demo-ovn.sh --ovn25 --once` builds OVN 25.03 with
 * a real ovn-controller on two chassis, our speaker on each in FRR's seat and FRR 10.3 as the
 * fabric, tells what the fabric learned, what OVN learned back, a live FIP and a gateway move,
 * and removes everything. Its output is what a user reads: each line checked here is a claim
 * the demo makes.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { listNamespaces } from '../../frr-interop/lab/index.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
/** Installs, builds and runs; bounds it on a slow machine. */
const SCRIPT_TIMEOUT_MS = 300_000;

describe('npm run demo -- --ovn25: OVN 25.03 route exchange with our speaker in FRR’s seat', () => {
  let out = '';
  let status: number | null = null;

  beforeAll(() => {
    const r = spawnSync('bash', ['scripts/demo-ovn.sh', '--ovn25', '--once'], {
      cwd: REPO,
      encoding: 'utf8',
      timeout: SCRIPT_TIMEOUT_MS,
      env: { ...process.env, CI: 'true' },
    });
    out = `${r.stdout}${r.stderr}`;
    status = r.status;
  }, SCRIPT_TIMEOUT_MS + 10_000);

  it('runs to the end', () => {
    expect(status, out).toBe(0);
    expect(out).toContain('== Removing everything (--once) ==');
  });

  it('shows the fabric holding each advertised route from the gateway chassis, the table metric as MED', () => {
    const line = (prefix: string) => out.split('\n').find((l) => l.startsWith(`${prefix} `)) ?? '';
    expect(line('198.18.171.10/32')).toMatch(
      /^198\.18\.171\.10\/32 +198\.18\.171\.11 +100 +198\.18\.171\.11$/,
    );
    expect(line('198.18.190.0/24')).toMatch(/ 198\.18\.171\.11 +1000 /);
    expect(line('2001:db8:171::10/128')).toMatch(/ 2001:db8:171::11 +100 /);
    // The provider network is connected on the chassis: listed as advertised by OVN, not at the fabric.
    expect(
      out.split('\n').filter((l) => /^198\.18\.171\.0\/24 +198\.18\.171\.\d+ +\d+ +198\./.test(l)),
    ).toEqual([]);
  });

  it('shows OVN learning what the fabric announces, through the table our speaker writes', () => {
    expect(out).toContain('  198.18.180.0/24 via 198.18.171.254');
    expect(out).toContain('  2001:db8:180::/64 via 2001:db8:171::254');
    expect(out).toMatch(/198\.18\.180\.0\/24 via 198\.18\.171\.254 dev eth0 proto bgp metric 20/);
  });

  it('times a live FIP to the fabric and shows the gateway move without a withdrawal', () => {
    expect(out).toMatch(/198\.18\.171\.50\/32 at the fabric after \d+ ms/);
    const move =
      out.split('\n').find((l) => l.startsWith('198.18.171.10/32, best path at the fabric:')) ?? '';
    expect(move).toMatch(/198\.18\.171\.12 MED 100 \(\d+ ms\)$/);
    expect(move).not.toContain('none');
  });

  it('leaves no namespace behind', async () => {
    expect(await listNamespaces('dr-demo-')).toEqual([]);
  });
});
