import { formatPrefix, versionOf } from './addresses.js';
import {
  DYNAMIC_PEER_NAME_PREFIX,
  FAMILIES,
  type FamilyName,
  type IpVersion,
  ListenDefaults,
  ListenRangeDefaults,
  MaxPrefixDefaults,
} from './constants.js';
import type { Context } from './decoders.js';
import { type Path, problem } from './problem.js';
import { resolveAuth } from './resolve-auth.js';
import {
  checkPolicies,
  checkSessionRules,
  type PeerScope,
  peerType,
  resolveBfd,
  type SettingsOwner,
} from './resolve-peer.js';
import { resolveTimers } from './resolve-timers.js';
import type { ListenRangeConfig, PeerConfig, PeerTemplateConfig } from './schema.js';
import type { RawListenRange, RawPeer, RawPeerTemplate } from './sections.js';

/*
 * Dynamic neighbours: peer templates, the listen ranges that use them, and the peer a
 * connection from a range becomes (FRR's `bgp listen range A/M peer-group NAME`).
 */

const TEMPLATE: SettingsOwner = { noun: 'template', peers: 'its peers' };

/** The checks of resolve-peer that do not need an address, on a template. */
function checkTemplate(
  raw: RawPeerTemplate,
  type: 'ebgp' | 'ibgp' | undefined,
  path: Path,
  scope: PeerScope,
): void {
  const { ctx } = scope;
  const at = (key: string) => [...path, key];
  if (raw.type !== undefined && type !== undefined && raw.type !== type) {
    ctx.problems.push(
      problem(at('type'), `is ${raw.type}, but remote_as ${raw.remoteAs} makes it ${type}`, raw.type),
    );
  }
  checkSessionRules(raw, type, path, scope, TEMPLATE);
  const versions = `[${scope.ipVersions.join(', ')}]`;
  raw.families?.forEach((f, i) => {
    if (!scope.ipVersions.includes(FAMILIES[f].ipVersion)) {
      ctx.problems.push(
        problem(
          [...path, 'families', i],
          `${f} needs ${FAMILIES[f].ipVersion} in speaker.ip_versions ${versions}`,
          f,
        ),
      );
    }
  });
  if (raw.extendedNextHop === true && raw.families !== undefined && !raw.families.includes('ipv4-unicast')) {
    ctx.problems.push(
      problem(
        at('extended_next_hop'),
        `needs ipv4-unicast in families (families is [${raw.families.join(', ')}])`,
        true,
      ),
    );
  }
  checkPolicies(raw, type, path, scope, TEMPLATE);
}

/** One template, checked; undefined when something is wrong (the problems say what). */
export function resolveTemplate(
  raw: RawPeerTemplate,
  name: string,
  scope: PeerScope,
): PeerTemplateConfig | undefined {
  const path = ['peer_templates', name];
  const type = raw.remoteAs === undefined ? undefined : peerType(raw.remoteAs, scope.localAs);
  const timers = resolveTimers(raw, scope.timers, path, scope.ctx);
  const auth = resolveAuth(raw, path, scope.ctx, scope.files);
  checkTemplate(raw, type, path, scope);
  // Each dynamic neighbour gets its own BFD session, as FRR's peer-group `bfd` gives its members.
  const bfd = resolveBfd(raw, path, scope);
  if (raw.remoteAs === undefined || type === undefined || auth === undefined || bfd === null)
    return undefined;
  const mp = raw.maxPrefixes;
  const send = raw.addPath?.send;
  const sendPaths = send === true ? 'all' : send === false || send === undefined ? undefined : send;
  return {
    name,
    description: raw.description,
    remoteAs: raw.remoteAs,
    type,
    auth,
    ...timers,
    families: raw.families,
    ebgpMultihop: raw.ebgpMultihop,
    ttlSecurity: raw.ttlSecurity,
    addPath: {
      receive: raw.addPath?.receive ?? false,
      send: sendPaths !== undefined,
      ...(sendPaths !== undefined && { sendPaths }),
    },
    routeReflectorClient: raw.routeReflectorClient ?? false,
    nextHopSelf: raw.nextHopSelf ?? false,
    nextHopUnchanged: raw.nextHopUnchanged ?? false,
    extendedMessage: raw.extendedMessage ?? false,
    longLivedStaleTime: raw.longLivedStaleTime,
    extendedNextHop: raw.extendedNextHop ?? false,
    enhancedRouteRefresh: raw.enhancedRouteRefresh ?? false,
    bfd,
    maxPrefixes:
      mp?.limit === undefined
        ? undefined
        : {
            limit: mp.limit,
            warningOnly: mp.warningOnly ?? false,
            warningThreshold: mp.warningThreshold ?? MaxPrefixDefaults.warningThreshold,
            restartAfter: mp.restartAfter ?? MaxPrefixDefaults.restartAfter,
          },
    import: raw.import ?? [],
    export: raw.export ?? [],
  };
}

export interface RangeScope {
  readonly ctx: Context;
  readonly ipVersions: readonly IpVersion[];
  /** Every template name in the file, whether or not it resolved. */
  readonly templateNames: readonly string[];
  readonly templates: ReadonlyMap<string, RawPeerTemplate>;
  /** speaker.listen.address as given. */
  readonly listenAddress: string | undefined;
}

/** The ranges, checked: a known template, a family the speaker carries and listens on, no two alike. */
export function resolveListenRanges(raw: readonly RawListenRange[], scope: RangeScope): ListenRangeConfig[] {
  const { ctx } = scope;
  const out: ListenRangeConfig[] = [];
  const seen = new Map<string, number>();
  raw.forEach((r, i) => {
    const path = ['listen_ranges', i];
    let ok = r.prefix !== undefined && r.template !== undefined;
    if (r.template !== undefined && !scope.templateNames.includes(r.template)) {
      const known =
        scope.templateNames.length === 0
          ? 'no peer_templates are defined'
          : `defined: ${scope.templateNames.join(', ')}`;
      ctx.problems.push(
        problem(
          [...path, 'template'],
          `no peer template named ${JSON.stringify(r.template)} (${known})`,
          r.template,
        ),
      );
      ok = false;
    }
    if (r.prefix === undefined) return;
    const text = formatPrefix(r.prefix);
    const version = versionOf(r.prefix.addr);
    const first = seen.get(text);
    if (first !== undefined) {
      ctx.problems.push(
        problem([...path, 'prefix'], `${text} is already the prefix of listen_ranges[${first}]`, text),
      );
      ok = false;
    } else seen.set(text, i);
    if (!scope.ipVersions.includes(version)) {
      ctx.problems.push(
        problem(
          [...path, 'prefix'],
          `${text} is IPv${version}, which speaker.ip_versions [${scope.ipVersions.join(', ')}] leaves out`,
          text,
        ),
      );
      ok = false;
    }
    const listen = scope.listenAddress ?? ListenDefaults.address;
    if (version === 6 && versionOf(listen) === 4) {
      ctx.problems.push(
        problem(
          [...path, 'prefix'],
          `${text} is IPv6; speaker.listen.address ${listen} takes IPv4 connections only`,
          text,
        ),
      );
      ok = false;
    }
    const template = r.template === undefined ? undefined : scope.templates.get(r.template);
    if (template?.extendedNextHop === true && version === 4) {
      ctx.problems.push(
        problem(
          [...path, 'template'],
          `${r.template} sets extended_next_hop, which applies to IPv6 sessions; ${text} is IPv4`,
          r.template,
        ),
      );
      ok = false;
    }
    if (ok)
      out.push({
        prefix: r.prefix,
        text,
        template: r.template!,
        limit: r.limit ?? ListenRangeDefaults.limit,
      });
  });
  return out;
}

/** A configured peer named as a dynamic neighbour would be: the names would clash at run time. */
export function checkDynamicNames(
  peers: readonly RawPeer[],
  ranges: readonly RawListenRange[],
  ctx: Context,
): void {
  if (ranges.length === 0) return;
  peers.forEach((p, i) => {
    if (p.name?.startsWith(DYNAMIC_PEER_NAME_PREFIX)) {
      ctx.problems.push(
        problem(
          ['peers', i, 'name'],
          `names starting with ${DYNAMIC_PEER_NAME_PREFIX} are the dynamic neighbours' (listen_ranges); choose another`,
          p.name,
        ),
      );
    }
  });
}

/** The name a dynamic neighbour goes by: `dyn-198.18.0.7` (FRR shows `*198.18.0.7`). */
export function dynamicPeerName(address: string): string {
  return `${DYNAMIC_PEER_NAME_PREFIX}${address}`;
}

function familyOf(address: string): FamilyName {
  return versionOf(address) === 4 ? 'ipv4-unicast' : 'ipv6-unicast';
}

/**
 * The peer a connection from `address` (canonical text, inside `range`) becomes: the template's
 * settings, passive (we never connect to it), families defaulting to the address's.
 */
export function dynamicPeerConfig(
  template: PeerTemplateConfig,
  range: ListenRangeConfig,
  address: string,
): PeerConfig {
  const { name: _template, families, ...settings } = template;
  return {
    ...settings,
    name: dynamicPeerName(address),
    peerIp: address,
    interface: undefined,
    port: ListenDefaults.port,
    passive: true,
    shutdown: false,
    families: families ?? [familyOf(address)],
    localAddress: undefined,
    dynamic: { range: range.text, template: template.name },
  };
}
