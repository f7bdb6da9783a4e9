import type { Context } from './decoders.js';
import { problem } from './problem.js';
import type { HealthConfig, OvnRouteTablesConfig, PeerConfig, SinksConfig } from './schema.js';

/** What the names in `speaker.health.ready_requires` are checked against. */
export interface HealthNameScope {
  /** undefined where a peer did not resolve (its own problem says why). */
  readonly peers: readonly (PeerConfig | undefined)[];
  readonly sinks: SinksConfig;
  readonly ovnRouteTables: OvnRouteTablesConfig | undefined;
}

/** The sinks this configuration runs, by the name `show sinks` prints. */
function configuredSinks(scope: HealthNameScope): Set<string> {
  const out = new Set<string>();
  if (scope.sinks.kernel) out.add('kernel');
  if (scope.sinks.zebra) out.add('zebra');
  if (scope.sinks.ovnNb) out.add('ovn-nb');
  for (const t of scope.ovnRouteTables?.tables ?? []) if (t.learn.length > 0) out.add(`ovn-table ${t.name}`);
  return out;
}

/**
 * A peer or sink readiness waits for must exist, or the speaker would never be ready. Peers
 * added later through the control API cannot be named here: use `all` or `any` for them.
 */
export function checkHealthNames(health: HealthConfig, scope: HealthNameScope, ctx: Context): void {
  const path = ['speaker', 'health', 'ready_requires'];
  const { peers, sinks } = health.readyRequires;
  if (Array.isArray(peers) && scope.peers.every((p) => p !== undefined)) {
    const known = new Set(scope.peers.map((p) => p!.name));
    peers.forEach((name, i) => {
      if (!known.has(name))
        ctx.problems.push(problem([...path, 'peers', i], `no peer is named ${name}`, name));
    });
  }
  if (Array.isArray(sinks)) {
    const running = configuredSinks(scope);
    const have = running.size === 0 ? 'none is configured' : `configured: ${[...running].join(', ')}`;
    sinks.forEach((name, i) => {
      if (!running.has(name))
        ctx.problems.push(problem([...path, 'sinks', i], `no sink ${name} (${have})`, name));
    });
  }
}
