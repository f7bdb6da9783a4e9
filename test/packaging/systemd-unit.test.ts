import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiDefaults } from '../../src/api/index.js';
import { tempDir } from '../speaker/support.js';

// The systemd unit the package ships: systemd's own checker finds nothing in it, it grants
// exactly the capabilities the speaker needs, and it says what the code does (Type=notify,
// the watchdog, SIGHUP reload, the control socket's directory).

const ROOT = resolve(import.meta.dirname, '../..');
const UNIT = join(ROOT, 'packaging/systemd/ovn-bgp-speaker.service');
const TEXT = readFileSync(UNIT, 'utf8');
const HAVE_ANALYZE = spawnSync('systemd-analyze', ['--version']).status === 0;
/** Where the unit expects the program (npm's global bin on Debian). */
const PROGRAM = '/usr/local/bin/ovn-bgp-speaker';

/** Every value of a key, in file order. */
function values(key: string): string[] {
  return TEXT.split('\n')
    .filter((l) => l.startsWith(`${key}=`))
    .map((l) => l.slice(key.length + 1));
}

/**
 * `systemd-analyze verify` on a copy whose ExecStart names a program that exists here (verify
 * checks it is executable); returns what it printed. It exits 0 on unknown keys and bad values
 * too, so any output at all is a finding.
 */
function verify(text: string): string {
  const t = tempDir();
  try {
    const program = join(t.dir, 'ovn-bgp-speaker');
    writeFileSync(program, '#!/bin/sh\n');
    chmodSync(program, 0o755);
    const unit = join(t.dir, 'ovn-bgp-speaker.service');
    writeFileSync(unit, text.replaceAll(PROGRAM, program));
    const r = spawnSync('systemd-analyze', ['verify', unit], { encoding: 'utf8' });
    return (
      `${r.stdout}${r.stderr}`.replaceAll(`${t.dir}/`, '').trim() +
      (r.status === 0 ? '' : ` (status ${r.status})`)
    );
  } finally {
    t.cleanup();
  }
}

const SKIPPED = HAVE_ANALYZE
  ? ''
  : ' (skipped: systemd-analyze is missing; scripts/deps.sh installs systemd)';

// CI installs systemd (scripts/deps.sh): there a missing systemd-analyze fails instead of skipping.
describe.skipIf(!HAVE_ANALYZE && process.env.CI !== 'true')(
  `packaging/systemd/ovn-bgp-speaker.service${SKIPPED}`,
  () => {
    it('passes systemd-analyze verify without a word', () => {
      expect(verify(TEXT)).toBe('');
    });

    it('a mistake in it is caught by the same check', () => {
      expect(verify(TEXT.replace('Type=notify', 'Type=notfy'))).toMatch(/Failed to parse service type/);
      expect(verify(TEXT.replace('WatchdogSec=', 'WatchdgSec='))).toMatch(/Unknown key 'WatchdgSec'/);
    });

    it('is hardened: systemd-analyze security rates its exposure OK or better', () => {
      const t = tempDir();
      try {
        const unit = join(t.dir, 'ovn-bgp-speaker.service');
        writeFileSync(unit, TEXT);
        const out = execFileSync('systemd-analyze', ['security', '--offline=true', '--no-pager', unit], {
          encoding: 'utf8',
        });
        const level = /Overall exposure level for .*: (\d+\.\d)/.exec(out);
        expect(level, out).not.toBeNull();
        // 0 is a fully sandboxed service, 10 root with everything; below 3 is systemd's "OK".
        expect(Number(level![1])).toBeLessThan(3);
      } finally {
        t.cleanup();
      }
    });
  },
);

describe('what the unit says matches the speaker', () => {
  it('Type=notify with the main process notifying, a watchdog, SIGHUP for reload, restart on failure', () => {
    expect(values('Type')).toEqual(['notify']);
    expect(values('NotifyAccess')).toEqual(['main']);
    expect(values('WatchdogSec')).toEqual(['30s']);
    expect(values('ExecReload')).toEqual(['/bin/kill -HUP $MAINPID']);
    expect(values('Restart')).toEqual(['on-failure']);
    expect(values('ExecStart')).toEqual([`${PROGRAM} run --config /etc/ovn-bgp-speaker/config.yaml`]);
  });

  it('grants port 179 and route writes, nothing else, to a user of its own', () => {
    const caps = 'CAP_NET_ADMIN CAP_NET_BIND_SERVICE';
    expect(values('AmbientCapabilities')).toEqual([caps]);
    expect(values('CapabilityBoundingSet')).toEqual([caps]);
    expect(values('User')).toEqual(['ovn-bgp-speaker']);
    expect(values('NoNewPrivileges')).toEqual(['yes']);
  });

  it('creates the directory of the default control socket, writable under ProtectSystem=strict', () => {
    expect(values('ProtectSystem')).toEqual(['strict']);
    expect(values('RuntimeDirectory').map((d) => `/run/${d}`)).toEqual([dirname(ApiDefaults.SOCKET_PATH)]);
  });

  it('ships in the package', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[] };
    expect(pkg.files).toContain('packaging');
  });
});
