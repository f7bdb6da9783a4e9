/** The name `show advertised` prints as the source of what we sent. */
export const LOCAL_SOURCE_NAME = 'local';

/** Next hop text of a route originated with next hop self (FRR prints the same). */
export const UNSPECIFIED_NEXT_HOP = { 4: '0.0.0.0', 6: '::' } as const;

/** The origin name OVN's paths carry (Rib.origin('ovn')). */
export const OVN_ORIGIN = 'ovn';
