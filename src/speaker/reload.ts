import { CeaseSubcode } from '../bgp/wire/index.js';
import type { Logger } from '../components/index.js';
import type { Config, LogLevel, PeerChange, PeerConfig, ReloadPlan } from '../config/index.js';
import type { PeerPolicies } from '../policy/index.js';
import type { Rib } from '../rib/index.js';
import { applyRouteChanges, type Neighbor } from '../routing/index.js';

/** What carrying out a reload plan needs from the speaker. */
export interface ReloadHost {
  readonly log: Logger;
  readonly rib: Rib;
  neighbor(name: string): Neighbor | undefined;
  /** The peer's filters from the newly compiled policies. */
  peerPolicies(peer: PeerConfig): PeerPolicies;
  addPeer(peer: PeerConfig): void;
  /** Cease / Peer De-configured, then forget it. */
  removePeer(name: string): Promise<void>;
  /** The listener's ranges follow the configuration, and the live dynamic neighbours their templates. */
  reconfigureDynamic(config: Config, changedPolicies: ReadonlySet<string>): Promise<void>;
  /** A new session object from the neighbour's configuration; `cease` goes out first when the session is up. */
  rebuild(name: string, cease: number | undefined): Promise<void>;
  /** As rebuild without a Cease, once the current session (if any) has ended by itself. */
  rebuildAfterSession(name: string): Promise<void>;
  setLogLevel(level: LogLevel): void;
  setControlSocket(path: string): Promise<void>;
  setMetrics(metrics: Config['speaker']['metrics']): Promise<void>;
  /** Sinks whose settings (or install policies) changed are rebuilt and reconciled. */
  setSinks(config: Config, changedPolicies: ReadonlySet<string>): Promise<void>;
  /** The OVN settings changed: reconnect and derive again, routes that stay kept. */
  setOvn(config: Config): Promise<void>;
  setRouteTables(config: Config): Promise<void>;
  /** The bmp section changed: the collectors are connected anew. */
  setBmp(config: Config): Promise<void>;
  /** The mrt section changed: the dump timer and the recording follow it. */
  setMrt(config: Config): Promise<void>;
}

/** A change that only a new session object carries (the session layer resolves its settings once). */
function needsNewSession(c: PeerChange): 'now' | 'next-session' | false {
  if (c.changes.some((f) => f.effect === 'reset' && f.field !== 'shutdown')) return 'now';
  if (c.changes.some((f) => f.effect === 'next-session')) return 'next-session';
  return false;
}

async function applyPeerChange(host: ReloadHost, c: PeerChange): Promise<void> {
  const b = host.neighbor(c.name);
  if (!b) return;
  const policies = host.peerPolicies(c.after);
  const session = needsNewSession(c);
  if (c.reset) {
    // RFC 4486: Cease / Other Configuration Change, then a session with the new settings.
    b.setConfig(c.after);
    b.setPolicies(policies, false, false);
    await host.rebuild(c.name, CeaseSubcode.OTHER_CONFIGURATION_CHANGE);
    return;
  }
  if (c.stop) {
    b.setConfig(c.after);
    b.setPolicies(policies, false, false);
    b.stopByConfig();
    if (session) await host.rebuild(c.name, undefined);
    return;
  }
  if (c.start) {
    b.setConfig(c.after);
    b.setPolicies(policies, false, false);
    if (session) await host.rebuild(c.name, undefined);
    else b.start();
    return;
  }
  // Applied live: max-prefix, next-hop-self (soft out), policies (soft in / soft out).
  b.setConfig(c.after);
  b.setPolicies(policies, c.softIn, c.softOut);
  if (session === 'next-session') await host.rebuildAfterSession(c.name);
}

const SPEAKER_FIELDS_NEEDING_RESTART = new Set(['speaker.listen', 'speaker.graceful_restart']);

async function applySpeakerChanges(host: ReloadHost, plan: ReloadPlan, config: Config): Promise<void> {
  for (const c of plan.speaker) {
    switch (c.field) {
      case 'speaker.log':
        host.setLogLevel(config.speaker.log.level);
        break;
      case 'speaker.control_socket':
        await host.setControlSocket(config.speaker.controlSocket);
        break;
      case 'speaker.metrics':
        await host.setMetrics(config.speaker.metrics);
        break;
      default:
        if (SPEAKER_FIELDS_NEEDING_RESTART.has(c.field)) {
          host.log.warn({ field: c.field }, `${c.field} changed: it takes effect when the speaker restarts`);
        }
    }
  }
}

/**
 * Carries out a reload plan: removals first (an address may move from a removed peer to an
 * added one), then the listen ranges and dynamic neighbours, then additions, then changes, each only on the peer it concerns: adding or
 * removing a peer never resets another. Static routes and speaker settings follow.
 */
export async function applyReloadPlan(host: ReloadHost, plan: ReloadPlan, config: Config): Promise<void> {
  const changedPolicies = new Set([...plan.policies.changed, ...plan.policies.removed]);
  for (const p of plan.peers.removed) await host.removePeer(p.name);
  // Before the additions: a peer configured at a dynamic neighbour's address takes it over.
  await host.reconfigureDynamic(config, changedPolicies);
  for (const p of plan.peers.added) host.addPeer(p);
  for (const c of plan.peers.changed) await applyPeerChange(host, c);
  applyRouteChanges(host.rib, plan.routes);
  await applySpeakerChanges(host, plan, config);
  await host.setSinks(config, changedPolicies);
  if (plan.ovn.length > 0) await host.setOvn(config);
  if (plan.ovnRouteTables.length > 0) await host.setRouteTables(config);
  if (plan.bmp.length > 0) await host.setBmp(config);
  if (plan.mrt.length > 0) await host.setMrt(config);
}
