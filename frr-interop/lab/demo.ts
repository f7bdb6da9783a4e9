import { DEFAULT_LAB_ID } from './constants.js';
import type { DaemonImpl } from './spec.js';
import type { LabOptions, LabPeerOptions } from './topology.js';

export const DEMO_SPEAKER = { as: 65000, routerId: '198.18.0.1' } as const;

const DEMO_PEERS: readonly { name: string; impl: DaemonImpl; as: number }[] = [
  { name: 'frr', impl: 'frr', as: 65001 },
  { name: 'gobgp', impl: 'gobgp', as: 65002 },
  { name: 'bird', impl: 'bird', as: 65003 },
];

/**
 * The demo topology of `lab.sh up`: the speaker (AS 65000) and FRR, GoBGP and BIRD (AS 65001-65003),
 * each peering with it over IPv4 and IPv6; peer n originates 198.19.<n>.0/24 and 2001:db8:<n>00::/48.
 * A zebra runs in the speaker namespace for the speaker's ZAPI sink.
 */
export function demoLabOptions(id: string = DEFAULT_LAB_ID): LabOptions {
  const peers = DEMO_PEERS.map(
    (p, i): LabPeerOptions => ({
      ...p,
      originate: { ipv4: [`198.19.${i + 1}.0/24`], ipv6: [`2001:db8:${i + 1}00::/48`] },
    }),
  );
  return { id, speaker: { ...DEMO_SPEAKER, zebra: true }, peers };
}
