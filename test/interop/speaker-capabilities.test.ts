import { chownSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Lab } from '../../frr-interop/lab/index.js';
import { eventually, LabSpeaker } from '../speaker/lab-speaker.js';

// What the systemd unit grants is what the speaker needs: run as an unprivileged user with
// exactly CAP_NET_ADMIN and CAP_NET_BIND_SERVICE (AmbientCapabilities= in
// packaging/systemd/ovn-bgp-speaker.service, here through setpriv), it listens on port 179,
// keeps a TCP-MD5 session with FRR and installs FRR's route into the kernel. Without
// CAP_NET_ADMIN the kernel refuses the route writes; without CAP_NET_BIND_SERVICE the speaker
// cannot listen on 179 and does not start.

const IS_ROOT = process.getuid?.() === 0;
const NOBODY = 65534;
const AS = 65000;
const FRR_NET = '198.19.60.0/24';
const PASSWORD = 'caps-md5-key';
const UP_MS = 60_000;
const FLOW_MS = 45_000;
/** Bits of /proc/PID/status CapEff (linux/capability.h). */
const CAP_NET_BIND_SERVICE = 10;
const CAP_NET_ADMIN = 12;

/** setpriv as the unit's User= and AmbientCapabilities= would start it. */
function asUnprivileged(caps: readonly string[]): string[] {
  const set = ['-all', ...caps.map((c) => `+${c}`)].join(',');
  return [
    'setpriv',
    `--reuid=${NOBODY}`,
    `--regid=${NOBODY}`,
    '--clear-groups',
    `--inh-caps=${set}`,
    `--ambient-caps=${set}`,
    `--bounding-set=${set}`,
    '--',
  ];
}

describe.skipIf(!IS_ROOT)('the speaker with only the capabilities its systemd unit grants', () => {
  let lab: Lab;
  let dir: string;
  let speaker: LabSpeaker | undefined;

  const doc = () => ({
    speaker: {
      name: 'caps',
      local_as: AS,
      router_id: '198.18.0.1',
      listen: { address: '::', port: 179 },
      hold_time: 9,
      connect_retry: 2,
      log: { level: 'info' },
    },
    peers: [
      {
        name: 'frr',
        peer_ip: lab.peer('frr').address.ipv4,
        remote_as: 65001,
        auth_type: 'md5',
        password: PASSWORD,
        import: ['all'],
        export: ['none'],
      },
    ],
    policies: { all: { statements: [{ action: 'accept' }] }, none: { statements: [{ action: 'reject' }] } },
    sinks: { kernel: {} },
  });

  const ourKernelRoute = async (prefix: string) => {
    const out = await lab.exec(lab.speakerNs, ['ip', '-4', '-j', 'route', 'show', 'table', 'main', prefix]);
    const [r] = JSON.parse(out || '[]') as { gateway?: string; protocol?: string }[];
    return r;
  };

  beforeAll(async () => {
    lab = await Lab.create({
      id: 'caps',
      speaker: { as: AS, routerId: '198.18.0.1' },
      peers: [
        {
          name: 'frr',
          impl: 'frr',
          as: 65001,
          originate: { ipv4: [FRR_NET] },
          speakerSessions: { transports: ['ipv4'], password: PASSWORD },
        },
      ],
    });
    // The unit's RuntimeDirectory: the user's own, for the control socket.
    dir = join(lab.dir, 'run');
    mkdirSync(dir, { mode: 0o750 });
    chownSync(dir, NOBODY, NOBODY);
  }, 180_000);

  afterEach(async () => {
    await speaker?.stop();
    speaker = undefined;
  });

  afterAll(async () => {
    await lab?.destroy();
  });

  it('as nobody with CAP_NET_ADMIN and CAP_NET_BIND_SERVICE: port 179, TCP-MD5 with FRR, FRR’s route in the kernel', async () => {
    speaker = await LabSpeaker.start(lab, doc(), {
      dir,
      wrap: asUnprivileged(['net_admin', 'net_bind_service']),
    });
    const status = readFileSync(`/proc/${speaker.pid}/status`, 'utf8');
    expect(status).toMatch(new RegExp(`^Uid:\\s+${NOBODY}\\s+${NOBODY}\\s+${NOBODY}\\s+${NOBODY}$`, 'm'));
    const capEff = BigInt(`0x${/^CapEff:\s+([0-9a-f]+)$/m.exec(status)![1]}`);
    expect(capEff).toBe((1n << BigInt(CAP_NET_BIND_SERVICE)) | (1n << BigInt(CAP_NET_ADMIN)));

    await speaker.waitEstablished(['frr'], UP_MS);
    const route = await eventually(
      async () => await ourKernelRoute(FRR_NET),
      `${FRR_NET} in our kernel`,
      FLOW_MS,
    );
    expect(route.gateway).toBe(lab.peer('frr').address.ipv4);
  });

  it('without CAP_NET_ADMIN: the session comes up, the kernel refuses the route (EPERM) and show sinks says so', async () => {
    speaker = await LabSpeaker.start(lab, doc(), { dir, wrap: asUnprivileged(['net_bind_service']) });
    await speaker.waitEstablished(['frr'], UP_MS);
    type SinkView = { name: string; notInstalled?: { prefix: string; reason: string }[] };
    const refused = await eventually(
      async () => {
        const sinks = await speaker!.show<SinkView[]>(['sinks']);
        return sinks?.find((x) => x.name === 'kernel')?.notInstalled?.find((r) => r.prefix === FRR_NET);
      },
      `${FRR_NET} refused by the kernel`,
      FLOW_MS,
    );
    expect(refused.reason).toBe('failed: EPERM');
    expect(await ourKernelRoute(FRR_NET)).toBeUndefined();
  });

  it('without CAP_NET_BIND_SERVICE: port 179 is refused and the speaker does not start', async () => {
    const started = LabSpeaker.start(lab, doc(), { dir, wrap: asUnprivileged(['net_admin']) });
    await expect(started).rejects.toThrow(/the speaker exited: .*EACCES/s);
  });
});
