/**
 * Who holds the routing seat on chassis hv1 of the OVN 25.03 lab, one at a time: reading the
 * table ovn-controller fills for router lr0 and advertising it to the fabric router.
 *
 *   ours  ovn-bgp-speaker from the build (`dist/src/cli/main.js run`, as it is deployed) in
 *         per-chassis mode: `ovn_route_tables: {sb, tables: [{router: lr0}]}`, nothing else
 *         set, so the defaults are what is measured (the metric as MED, a route leaving a
 *         table that keeps others withdrawn after a second at the worst MED meanwhile);
 *         `ours-nohold` the same with `hold_time: 0`, which withdraws at once.
 *   frr   FRR 10.3 from the trixie root as OVN's documentation has it on a chassis without
 *         VRF devices: zebra `ip import-table N` / `ipv6 import-table N`, bgpd `redistribute
 *         table N` (test/interop/ovn-dr-frr-reference.test.ts shows both give the fabric the
 *         same routes, next hops and MEDs).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { isRunning, spawnDetached, stopProcesses } from '../../frr-interop/lab/index.js';
import { callControl } from '../../src/api/index.js';
import {
  CHASSIS_AS,
  chassisAddress,
  FABRIC,
  FABRIC_AS,
  type OvnDrLab,
} from '../../test/interop/support/ovn-dr-lab.js';
import { SPEAKER_CLI } from './lab.js';

export type SeatKind = 'ours' | 'frr' | 'ours-nohold';

export const SEAT_NAMES: Record<SeatKind, string> = {
  ours: 'ovn-bgp-speaker',
  frr: 'FRR 10.3 (import-table)',
  'ours-nohold': 'ovn-bgp-speaker, hold_time 0',
};

export interface Seat {
  readonly kind: SeatKind;
  /** Its processes by name, for CPU accounting. */
  pids(): Record<string, number>;
  /** Lines worth printing beside the figures (FRR's advertisement interval, say). */
  notes(): Promise<string[]>;
  /** What the seat says of its table now (ours: whether its last read of it was after lost notifications). */
  tableState(): Promise<string | undefined>;
  stop(): Promise<void>;
}

const CHASSIS = 1;

/**
 * Our speaker on hv1, peering with the fabric over IPv4 for both families, as the lab's tests
 * run it. `holdTime` 0 (the `ours-nohold` seat) withdraws a route as it leaves the table, where
 * the default first marks it with the worst MED and withdraws it a second later.
 */
export async function startOurs(lab: OvnDrLab, holdTime?: number): Promise<Seat> {
  const a = chassisAddress(CHASSIS);
  const config = join(lab.dir, 'bench-ours.yaml');
  const log = join(lab.dir, 'bench-ours.log');
  const socket = join(lab.dir, 'bench-ours.sock');
  writeFileSync(
    config,
    stringify({
      speaker: {
        name: `hv${CHASSIS}`,
        local_as: CHASSIS_AS,
        router_id: a.ipv4,
        listen: { address: '::', port: 179 },
        hold_time: 9,
        connect_retry: 1,
        control_socket: socket,
        log: { level: 'warn' },
      },
      peers: [
        {
          name: 'fabric',
          peer_ip: FABRIC.ipv4,
          remote_as: FABRIC_AS,
          families: ['ipv4-unicast', 'ipv6-unicast'],
          // As FRR in the other seat: take what the fabric offers, give it everything.
          import: ['all'],
          export: ['all'],
        },
      ],
      policies: { all: { statements: [{ action: 'accept' }] } },
      ovn_route_tables: {
        sb: lab.sb,
        tables: [{ router: 'lr0' }],
        ...(holdTime !== undefined && { hold_time: holdTime }),
      },
    }),
  );
  const { record } = spawnDetached(
    ['ip', 'netns', 'exec', lab.chassisNs(CHASSIS), process.execPath, SPEAKER_CLI, 'run', '--config', config],
    'bench speaker',
    log,
  );
  lab.adopt(record);
  return {
    kind: holdTime === 0 ? 'ours-nohold' : 'ours',
    pids: (): Record<string, number> => (isRunning(record) ? { speaker: record.pid } : {}),
    notes: async () => [],
    tableState: async () => {
      const view = await callControl(socket, 'ovn', {}).catch(() => null);
      return view?.tables?.map((t) => `${t.name}: ${t.state}`).join('; ');
    },
    stop: async () => {
      await stopProcesses([record]);
    },
  };
}

/** FRR 10.3 on hv1 in OVN's reference design for table `table`. */
export async function startFrrReference(lab: OvnDrLab, table: number): Promise<Seat> {
  const frr = lab.frrReference(CHASSIS, table, 'hv1frr', join(lab.dir, 'bench-hv1frr'));
  try {
    await frr.start();
  } catch (e) {
    await frr.stop().catch(() => undefined);
    throw e;
  }
  return {
    kind: 'frr',
    pids: () =>
      Object.fromEntries(
        frr
          .processes()
          .filter(isRunning)
          .map((p) => [p.name.replace(/^.*\//, 'hv1 '), p.pid]),
      ),
    notes: async () => {
      // FRR's own defaults for the session: what paces its UPDATEs to the fabric.
      const out = await frr.vtysh([`show bgp neighbor ${FABRIC.ipv4} json`]).catch(() => '{}');
      const n = (JSON.parse(out) as Record<string, { minBtwnAdvertisementRunsTimerMsecs?: number }>)[
        FABRIC.ipv4
      ];
      return n?.minBtwnAdvertisementRunsTimerMsecs === undefined
        ? []
        : [`FRR on hv1: advertisement interval to the fabric ${n.minBtwnAdvertisementRunsTimerMsecs} ms`];
    },
    tableState: async () => undefined,
    stop: () => frr.stop(),
  };
}
