import {
  addressBits,
  bytesToWords,
  type IpPrefix,
  parseIp,
  parseIpPrefix,
  prefixContains,
  unmapV4,
} from '../address/index.js';
import type { Peer, StateChange } from '../bgp/session/index.js';
import { CeaseSubcode } from '../bgp/wire/index.js';
import type { Logger, Scheduler } from '../components/index.js';
import {
  type Config,
  dynamicPeerConfig,
  type ListenRangeConfig,
  type PeerConfig,
  type PeerTemplateConfig,
  planPeerChange,
} from '../config/index.js';
import type { PeerPolicies } from '../policy/index.js';
import type { Neighbor } from './neighbor.js';

/*
 * Dynamic neighbours (FRR's `bgp listen range`, GoBGP's dynamic-neighbors): a connection from
 * an address inside a listen range, and outside every configured peer, becomes a neighbour
 * built from the range's template; it is forgotten when its session goes down. The rule is
 * `admission`, a pure function; `DynamicNeighbors` keeps the live ones and their counts.
 */

/** What the rule needs of the configuration. */
export interface DynamicSettings {
  readonly listenRanges: readonly ListenRangeConfig[];
  readonly peerTemplates: readonly PeerTemplateConfig[];
  /** The configured peers: their addresses are never dynamic neighbours. */
  readonly peers: readonly Pick<PeerConfig, 'peerIp'>[];
}

export type Admission =
  | { readonly kind: 'admit'; readonly range: ListenRangeConfig; readonly config: PeerConfig }
  /** No range holds the address (or its range names no template): refused as any stranger. */
  | { readonly kind: 'no-range' }
  /**
   * A configured peer has the address: it wins over the range. The session layer hands such
   * connections to the peer itself; this is for a reload that configures the address while
   * the dynamic neighbour there is being closed.
   */
  | { readonly kind: 'configured' }
  /** Its range has `limit` live dynamic neighbours already. */
  | { readonly kind: 'limit'; readonly range: ListenRangeConfig };

function hostPrefix(address: string): IpPrefix | undefined {
  try {
    const ip = unmapV4(parseIp(address));
    return { family: ip.family, words: bytesToWords(ip.bytes), len: addressBits(ip.family) };
  } catch {
    return undefined;
  }
}

/** The range holding `address`: the longest prefix when ranges nest (as a route lookup). */
export function rangeOf(
  ranges: readonly ListenRangeConfig[],
  address: string,
): ListenRangeConfig | undefined {
  const host = hostPrefix(address);
  if (!host) return undefined;
  let best: ListenRangeConfig | undefined;
  for (const r of ranges) {
    if (best && r.prefix.len <= best.prefix.len) continue;
    if (prefixContains(parseIpPrefix(r.text, { hostBits: 'refuse' }), host)) best = r;
  }
  return best;
}

/**
 * Whether a connection from `address` becomes a dynamic neighbour, given how many each range
 * has live: inside a range, no configured peer's, and the range below its limit.
 */
export function admission(
  settings: DynamicSettings,
  address: string,
  liveInRange: (range: string) => number,
): Admission {
  if (settings.peers.some((p) => p.peerIp === address)) return { kind: 'configured' };
  const range = rangeOf(settings.listenRanges, address);
  const template = range && settings.peerTemplates.find((t) => t.name === range.template);
  if (!range || !template) return { kind: 'no-range' };
  if (liveInRange(range.text) >= range.limit) return { kind: 'limit', range };
  return { kind: 'admit', range, config: dynamicPeerConfig(template, range, address) };
}

export interface DynamicNeighborsComponents {
  readonly log: Logger;
  /** Where forgetting waits for: a peer is never removed from inside its own state event. */
  readonly clock: Scheduler;
  /** Builds and starts the neighbour of a dynamic peer (its session added passive, events bound). */
  create(config: PeerConfig): Neighbor;
  /** Removes a neighbour: its session closed (Cease `subcode` first when one is given and it is up), its routes withdrawn. */
  forget(name: string, subcode?: number): Promise<void>;
  /** A neighbour's filters from the compiled policies. */
  policies(config: PeerConfig): PeerPolicies;
  /** A connection refused at a range's limit (for the metrics). */
  onRefused?(range: string, address: string): void;
}

interface Live {
  readonly neighbor: Neighbor;
  range: string;
  readonly off: () => void;
}

/** Addresses a refusal was logged for, at most this many (then the set starts again). */
const LOGGED_REFUSALS_MAX = 4096;

/** The live dynamic neighbours, by name; admits, counts per range, forgets and reconfigures them. */
export class DynamicNeighbors {
  #settings: DynamicSettings;
  readonly #c: DynamicNeighborsComponents;
  readonly #live = new Map<string, Live>();
  /** Refusals are logged once per address (a peer retries every few seconds). */
  readonly #refusalLogged = new Set<string>();
  #closed = false;

  constructor(settings: DynamicSettings, components: DynamicNeighborsComponents) {
    this.#settings = settings;
    this.#c = components;
  }

  /** Live dynamic neighbours of a range. */
  count(range: string): number {
    let n = 0;
    for (const l of this.#live.values()) if (l.range === range) n++;
    return n;
  }

  has(name: string): boolean {
    return this.#live.has(name);
  }

  /** A connection from `address`, which no configured peer has: the peer to hand it to, or undefined (refused). */
  admit(address: string): Peer | undefined {
    if (this.#closed) return undefined;
    const verdict = admission(this.#settings, address, (range) => this.count(range));
    if (verdict.kind === 'no-range' || verdict.kind === 'configured') return undefined;
    if (verdict.kind === 'limit') {
      this.#refused(verdict.range, address);
      return undefined;
    }
    this.#refusalLogged.delete(address);
    const neighbor = this.#c.create(verdict.config);
    const off = neighbor.peer.on('state', (c) => this.#onState(neighbor, c));
    this.#live.set(neighbor.name, { neighbor, range: verdict.range.text, off });
    this.#c.log.info(
      { peer: neighbor.name, range: verdict.range.text, template: verdict.range.template },
      'dynamic neighbour admitted',
    );
    return neighbor.peer;
  }

  /**
   * A reload: each live neighbour takes its template's change as the equivalent peer change
   * would (policies soft in / soft out, max-prefix live, settings of the next session nothing:
   * its next session is a new neighbour); one whose change needs a new session, whose range
   * or template is gone, or whose address is now a configured peer's is closed (RFC 4486
   * Cease) and forgotten, and comes back from its new range when it connects again. A lower
   * limit leaves the live ones alone and refuses new ones until they are fewer.
   */
  async reconfigure(config: Config, changedPolicies: ReadonlySet<string>): Promise<void> {
    this.#settings = config;
    const configured = new Set(config.peers.map((p) => p.peerIp));
    for (const [name, live] of [...this.#live]) {
      const before = live.neighbor.config;
      const range = configured.has(before.peerIp) ? undefined : rangeOf(config.listenRanges, before.peerIp);
      const template = range && config.peerTemplates.find((t) => t.name === range.template);
      if (!range || !template) {
        this.#c.log.info({ peer: name }, 'dynamic neighbour de-configured: its range or template is gone');
        await this.#forget(name, CeaseSubcode.PEER_DE_CONFIGURED);
        continue;
      }
      const after = dynamicPeerConfig(template, range, before.peerIp);
      live.range = range.text;
      const change = planPeerChange(before, after, changedPolicies);
      if (!change) continue;
      if (change.reset) {
        this.#c.log.info(
          { peer: name },
          'dynamic neighbour reset: its template changed what the session carries',
        );
        await this.#forget(name, CeaseSubcode.OTHER_CONFIGURATION_CHANGE);
        continue;
      }
      live.neighbor.setConfig(after);
      live.neighbor.setPolicies(this.#c.policies(after), change.softIn, change.softOut);
    }
  }

  /** The speaker stops: the sessions close with the others; nothing is admitted or forgotten any more. */
  close(): void {
    this.#closed = true;
    for (const live of this.#live.values()) live.off();
    this.#live.clear();
  }

  #refused(range: ListenRangeConfig, address: string): void {
    this.#c.onRefused?.(range.text, address);
    if (this.#refusalLogged.has(address)) return;
    if (this.#refusalLogged.size >= LOGGED_REFUSALS_MAX) this.#refusalLogged.clear();
    this.#refusalLogged.add(address);
    this.#c.log.warn(
      { remote: address, range: range.text, limit: range.limit },
      'connection refused: the listen range has its limit of dynamic neighbours',
    );
  }

  /** Down (Idle) is the end of a dynamic neighbour: forgotten a turn later, routes withdrawn. */
  #onState(neighbor: Neighbor, c: StateChange): void {
    if (c.to !== 'Idle') return;
    this.#c.clock.defer(() => {
      const live = this.#live.get(neighbor.name);
      if (!live || live.neighbor !== neighbor || neighbor.peer.state !== 'Idle') return;
      this.#c.log.info({ peer: neighbor.name, reason: c.reason }, 'dynamic neighbour down: forgotten');
      void this.#forget(neighbor.name);
    });
  }

  async #forget(name: string, subcode?: number): Promise<void> {
    const live = this.#live.get(name);
    if (!live) return;
    live.off();
    this.#live.delete(name);
    try {
      await this.#c.forget(name, subcode);
    } catch (error) {
      this.#c.log.error({ peer: name, error: String(error) }, 'forgetting a dynamic neighbour failed');
    }
  }
}
