import { formatPrefix } from './addresses.js';
import {
  GracefulRestartDefaults,
  HealthDefaults,
  IP_VERSIONS,
  type IpVersion,
  ListenDefaults,
  MrtConfigDefaults,
  NEXT_HOP_SELF,
  SpeakerSectionDefaults,
  TimerDefaults,
} from './constants.js';
import type { Context } from './decoders.js';
import { type Path, problem } from './problem.js';
import type { SecretFiles } from './resolve-auth.js';
import { resolveBmp } from './resolve-bmp.js';
import { checkDynamicNames, resolveListenRanges, resolveTemplate } from './resolve-dynamic.js';
import { checkHealthNames } from './resolve-health.js';
import { resolveOvn, resolveOvnRouteTables, resolveSinks } from './resolve-ovn.js';
import { checkDuplicatePeers, type PeerScope, resolvePeer } from './resolve-peer.js';
import { BUILTIN_POLICY_NAMES, resolvePolicy } from './resolve-policy.js';
import { resolveTimers, type Timers } from './resolve-timers.js';
import { routeFamilyProblems, staticRoute } from './route-checks.js';
import type {
  Config,
  ConfigPrefix,
  HealthConfig,
  MrtConfig,
  PeerConfig,
  PeerTemplateConfig,
  SpeakerConfig,
  StaticRoute,
} from './schema.js';
import type { RawConfig, RawRoute, RawSpeaker } from './sections.js';

/*
 * The second pass: defaults that depend on other fields, and the checks that need more than
 * one value. Only values that decoded are looked at, so a bad field yields one problem, not a
 * cascade. Returns undefined when anything is wrong (the problems say what).
 */

export type ResolveOptions = SecretFiles;

function resolveHealth(raw: RawSpeaker['health']): HealthConfig {
  const r = raw?.readyRequires;
  return {
    stallMs: raw?.stallMs ?? HealthDefaults.stallMs,
    stallWindow: raw?.stallWindow ?? HealthDefaults.stallWindow,
    readyRequires: { ovn: r?.ovn ?? true, sinks: r?.sinks ?? 'all', peers: r?.peers ?? 'none' },
  };
}

function resolveSpeaker(
  raw: RawSpeaker,
  ctx: Context,
): { config?: SpeakerConfig; ipVersions: IpVersion[]; timers: Timers } {
  const path = ['speaker'];
  if (raw.ipVersion !== undefined && raw.ipVersions !== undefined) {
    ctx.problems.push(
      problem([...path, 'ip_versions'], 'give ip_version or ip_versions, not both', raw.ipVersions),
    );
  }
  const ipVersions = [
    ...(raw.ipVersions ?? (raw.ipVersion === undefined ? IP_VERSIONS : [raw.ipVersion])),
  ].sort();
  const timers = resolveTimers(raw, TimerDefaults, path, ctx);
  const gr = raw.gracefulRestart;
  if (raw.name === undefined || raw.localAs === undefined || raw.routerId === undefined)
    return { ipVersions, timers };
  return {
    ipVersions,
    timers,
    config: {
      name: raw.name,
      localAs: raw.localAs,
      routerId: raw.routerId,
      ipVersions,
      listen: {
        address: raw.listen?.address ?? ListenDefaults.address,
        port: raw.listen?.port ?? ListenDefaults.port,
      },
      ...timers,
      gracefulRestart: {
        enabled: gr?.enabled ?? gr !== undefined,
        restartTime: gr?.restartTime ?? GracefulRestartDefaults.restartTime,
        staleRoutesTime: gr?.staleRoutesTime ?? GracefulRestartDefaults.staleRoutesTime,
      },
      bestpath: {
        maxPaths: raw.bestpath?.maxPaths ?? SpeakerSectionDefaults.maxPaths,
        maxPathsIbgp: raw.bestpath?.maxPathsIbgp ?? SpeakerSectionDefaults.maxPathsIbgp,
        multipathRelax: raw.bestpath?.multipathRelax ?? false,
        alwaysCompareMed: raw.bestpath?.alwaysCompareMed ?? false,
      },
      controlSocket: raw.controlSocket ?? SpeakerSectionDefaults.controlSocket,
      metrics: raw.metrics?.listen === undefined ? undefined : { listen: raw.metrics.listen },
      health: resolveHealth(raw.health),
      log: { level: raw.log?.level ?? SpeakerSectionDefaults.logLevel },
      ...(raw.warmUp !== undefined && { warmUp: raw.warmUp }),
    },
  };
}

function resolveRoutes(raw: RawConfig, scope: PeerScope): StaticRoute[] {
  const { ctx } = scope;
  const out: StaticRoute[] = [];
  const seen = new Map<string, string>();
  const add = (p: ConfigPrefix, path: Path, route: Omit<StaticRoute, 'prefix'>, nextHopPath?: Path) => {
    const key = formatPrefix(p);
    const first = seen.get(key);
    let ok = true;
    if (first !== undefined) {
      ctx.problems.push(problem(path, `${key} is already announced by ${first}`, key));
      ok = false;
    }
    const wrong = routeFamilyProblems(p, route.nextHop, scope.ipVersions, {
      prefix: path,
      nextHop: nextHopPath,
    });
    if (wrong.length > 0) {
      ctx.problems.push(...wrong);
      ok = false;
    }
    seen.set(key, first ?? `${path[0]}[${path[1]}]`);
    if (ok) out.push({ prefix: p, ...route });
  };
  (raw.routes ?? []).forEach((r: RawRoute, i) => {
    if (r.prefix === undefined) return;
    const { prefix: _, ...route } = staticRoute(r, r.prefix);
    add(r.prefix, ['routes', i, 'prefix'], route, ['routes', i, 'next_hop']);
  });
  (raw.networks ?? []).forEach((p, i) => {
    const route = {
      nextHop: NEXT_HOP_SELF,
      origin: 'igp',
      med: undefined,
      localPref: undefined,
      communities: [],
      largeCommunities: [],
      extendedCommunities: [],
    } as const;
    add(p, ['networks', i], route);
  });
  return out;
}

/** Applies derived defaults and cross-field checks; undefined when `ctx` gained problems. */
export function resolveConfig(raw: RawConfig, ctx: Context, options: ResolveOptions): Config | undefined {
  const before = ctx.problems.length;
  const speaker = raw.speaker === undefined ? undefined : resolveSpeaker(raw.speaker, ctx);
  const policy = resolvePolicy(raw, ctx);
  const scope: PeerScope = {
    ctx,
    files: options,
    localAs: raw.speaker?.localAs,
    ipVersions: speaker?.ipVersions ?? [...IP_VERSIONS],
    timers: speaker?.timers ?? TimerDefaults,
    policyNames: new Set([...policy.policies.map((p) => p.name), ...BUILTIN_POLICY_NAMES]),
    bfdProfiles: raw.bfdProfiles ?? new Map(),
  };
  const rawPeers = raw.peers ?? [];
  checkDuplicatePeers(rawPeers, ctx);
  const peers = rawPeers.map((p, i) => resolvePeer(p, i, scope));
  const rawTemplates = raw.peerTemplates ?? new Map();
  const peerTemplates = [...rawTemplates].map(([name, t]) => resolveTemplate(t, name, scope));
  const listenRanges = resolveListenRanges(raw.listenRanges ?? [], {
    ctx,
    ipVersions: scope.ipVersions,
    templateNames: [...rawTemplates.keys()],
    templates: rawTemplates,
    listenAddress: raw.speaker?.listen?.address,
  });
  checkDynamicNames(rawPeers, raw.listenRanges ?? [], ctx);
  const routes = resolveRoutes(raw, scope);
  const ovn = raw.ovn === undefined ? undefined : resolveOvn(raw.ovn, ctx);
  const sinks = resolveSinks(raw.sinks, raw.ovn !== undefined, scope.policyNames, ctx);
  const ovnRouteTables = resolveOvnRouteTables(raw.ovnRouteTables, scope.policyNames, ctx);
  const bmp = resolveBmp(raw.bmp, ctx);
  if (speaker?.config) checkHealthNames(speaker.config.health, { peers, sinks, ovnRouteTables }, ctx);
  if (ctx.problems.length > before || speaker?.config === undefined) return undefined;
  if (peers.some((p) => p === undefined) || (raw.ovn !== undefined && ovn === undefined)) return undefined;
  if (peerTemplates.some((t) => t === undefined)) return undefined;
  return {
    speaker: speaker.config,
    peers: peers as PeerConfig[],
    peerTemplates: peerTemplates as PeerTemplateConfig[],
    listenRanges,
    routes,
    policy,
    ovn,
    ovnRouteTables,
    sinks,
    bmp,
    mrt: resolveMrt(raw.mrt),
  };
}

function resolveMrt(raw: RawConfig['mrt']): MrtConfig | undefined {
  if (raw === undefined) return undefined;
  const { dump, updates } = raw;
  return {
    dump:
      dump?.path === undefined
        ? undefined
        : { path: dump.path, interval: dump.interval ?? MrtConfigDefaults.dumpInterval },
    updates:
      updates?.path === undefined
        ? undefined
        : {
            path: updates.path,
            rotate: updates.rotate ?? MrtConfigDefaults.rotate,
            messages: updates.messages ?? MrtConfigDefaults.messages,
          },
  };
}
