import { normalizeAddress } from '../address/index.js';
import { ControlError } from '../api/index.js';
import type { Neighbor } from '../routing/index.js';

/** The neighbour an operator names: by its configured name, or by its address in any spelling. */
export function findNeighbor(neighbors: ReadonlyMap<string, Neighbor>, peer: string): Neighbor {
  const byName = neighbors.get(peer);
  if (byName) return byName;
  let address: string | undefined;
  try {
    address = normalizeAddress(peer);
  } catch {
    address = undefined;
  }
  for (const n of neighbors.values()) if (n.config.peerIp === address) return n;
  throw new ControlError('unknown-peer', `no neighbor named ${peer}`);
}
