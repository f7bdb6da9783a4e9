import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatAddress, formatIpv4 } from '../../src/address/index.js';
import { formatAsPath, type PathAttributes } from '../../src/bgp/wire/index.js';
import type { Rib, RouteAdd } from '../../src/rib/index.js';

/** Whether the Debian package `bgpdump` is installed (scripts/deps.sh installs it). */
export function haveBgpdump(): boolean {
  try {
    execFileSync('bgpdump', ['-T'], { stdio: 'ignore' });
    return true;
  } catch {
    try {
      execFileSync('sh', ['-c', 'command -v bgpdump'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  }
}

/** `bgpdump -m` of these bytes, one line per route or message. */
export function bgpdumpLines(bytes: Uint8Array): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'mrt-'));
  try {
    const file = join(dir, 'dump.mrt');
    writeFileSync(file, bytes);
    const out = execFileSync('bgpdump', ['-m', '-v', file], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return out.split('\n').filter((l) => l !== '');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The next hop as bgpdump prints it. */
export function nextHopOf(a: PathAttributes): string {
  if (a.mpReach) return formatAddress(a.mpReach.nextHop.subarray(0, 16));
  return a.nextHop === undefined ? '0.0.0.0' : formatIpv4(a.nextHop);
}

/** The fields of a `bgpdump -m` TABLE_DUMP2 line we hold the speaker to: prefix, AS path, origin, next hop, LOCAL_PREF, MED. */
export function expectedRibLine(r: RouteAdd, peerAddress: string, peerAs: number): string {
  const a = r.attrs;
  const origin = ['IGP', 'EGP', 'INCOMPLETE'][a.origin ?? 0];
  return [
    peerAddress,
    peerAs,
    r.prefix.toString(),
    formatAsPath(a.asPath),
    origin,
    nextHopOf(a),
    a.localPref ?? 0,
    a.med ?? 0,
  ].join('|');
}

/** The same fields of a bgpdump line. */
export function ribLineFields(line: string): string {
  const f = line.split('|');
  return [f[3], f[4], f[5], f[6], f[7], f[8], f[9], f[10]].join('|');
}

export function bestRoutes(rib: Rib): RouteAdd[] {
  return rib.snapshot();
}
