import type { SinkView } from '../api/index.js';
import type { AfiCode } from '../bgp/wire/index.js';
import type { Clock, Logger } from '../components/index.js';
import type { Config, SinksConfig } from '../config/index.js';
import { type FibTarget, SinkDriver, type SinkDriverInit } from '../fib/index.js';
import { PolicyChain } from '../policy/index.js';
import type { RouteFlow } from '../routing/index.js';
import type { CompiledPolicies } from './policies.js';

export type SinkName = keyof SinksConfig;
const SINK_NAMES: readonly SinkName[] = ['kernel', 'zebra', 'ovnNb'];

/**
 * Builds the target of one configured sink. `lost` is called by a target that lost what it
 * had installed (zebra restarted): everything is replayed to it.
 */
export type SinkTargetFactory = (name: SinkName, config: Config, lost: () => void) => FibTarget;

export interface ForwardingComponents {
  readonly flow: RouteFlow;
  readonly log: Logger;
  readonly target: SinkTargetFactory;
  /** The sinks' retry timers and "last success" times. */
  readonly clock: Clock;
}

/** Prefixes not installed that `show sinks` lists per sink, at most. */
const NOT_INSTALLED_SHOWN = 20;

interface Installed {
  readonly driver: SinkDriver;
  readonly target: FibTarget;
  /** Unregisters from the route flow; null while held (not registered yet). */
  remove: (() => void) | null;
  readonly config: unknown;
}

/**
 * The configured sinks, each a SinkDriver registered with the route flow: built on start,
 * rebuilt alone when its configuration changes, closed on shutdown.
 */
export class Forwarding {
  readonly #c: ForwardingComponents;
  /** The configured sinks by SinkName, and those other parts add (an OVN route table's) by theirs. */
  readonly #sinks = new Map<string, Installed>();
  /** Sinks are built but not started: our graceful restart defers them (RFC 4724 section 4.1). */
  #holding = false;

  constructor(components: ForwardingComponents) {
    this.#c = components;
  }

  /**
   * From now until `release`, sinks are built (their targets open, so `held` can ask them)
   * but get no routes: what a previous run installed keeps forwarding untouched.
   */
  hold(): void {
    this.#holding = true;
  }

  /** Starts the held sinks: each replays every best path and reconciles its plane to exactly that. */
  release(): void {
    if (!this.#holding) return;
    this.#holding = false;
    for (const s of this.#sinks.values()) this.#startSink(s);
  }

  /** Families each sink's plane still holds from before we started (only the kernel sink answers). */
  async held(): Promise<Map<string, readonly AfiCode[]>> {
    const out = new Map<string, readonly AfiCode[]>();
    for (const [name, s] of this.#sinks) {
      if (!s.target.held) continue;
      try {
        out.set(name, await s.target.held());
      } catch (error) {
        this.#c.log.warn({ sink: name, error: String(error) }, 'cannot tell what the sink kept');
      }
    }
    return out;
  }

  /** Makes the running sinks those of `config` (new ones start with a full reconcile). */
  async configure(
    config: Config,
    policies: CompiledPolicies,
    changedPolicies: ReadonlySet<string> = new Set(),
  ): Promise<void> {
    for (const name of SINK_NAMES) {
      const want = config.sinks[name];
      const have = this.#sinks.get(name);
      const stale = want?.install.some((p) => changedPolicies.has(p)) ?? false;
      if (have && !stale && JSON.stringify(have.config) === JSON.stringify(want)) continue;
      if (have) await this.remove(name);
      if (!want) continue;
      let driver: SinkDriver | undefined;
      try {
        const target = this.#c.target(name, config, () => driver?.resync());
        const install =
          want.install.length > 0
            ? new PolicyChain(
                `install ${name}`,
                want.install.map((n) => policies.get(n)!),
              )
            : undefined;
        driver = this.add(name, target, { install }, want);
      } catch (error) {
        this.#c.log.error({ sink: name, error: String(error) }, 'sink not started');
      }
    }
  }

  /**
   * Adds a sink under `name` with a target the caller built (an OVN route table's): started
   * now, or held with the others during our restart. `config` tells reloads whether it changed.
   */
  add(name: string, target: FibTarget, init: SinkDriverInit, config: unknown = null): SinkDriver {
    const { clock } = this.#c;
    const driver = new SinkDriver(target, init, {
      log: this.#c.log,
      replay: (into) => this.#c.flow.replay(into),
      setTimer: (fn, ms) => clock.setTimeout(fn, ms),
      clearTimer: (h) => clock.clearTimeout(h),
      now: () => clock.now(),
    });
    const installed: Installed = { driver, target, remove: null, config };
    this.#sinks.set(name, installed);
    if (this.#holding) this.#c.log.info({ sink: driver.name }, 'route sink held until our restart is done');
    else this.#startSink(installed);
    return driver;
  }

  /** Stops and closes the sink of `name` (its target removes its routes as configured). */
  async remove(name: string): Promise<void> {
    const have = this.#sinks.get(name);
    if (!have) return;
    this.#sinks.delete(name);
    have.remove?.();
    await have.driver
      .close()
      .catch((e: unknown) => this.#c.log.warn({ sink: name, error: String(e) }, 'closing a sink failed'));
  }

  #startSink(s: Installed): void {
    if (s.remove) return;
    s.remove = this.#c.flow.addConsumer(s.driver);
    s.driver.start();
    this.#c.log.info({ sink: s.driver.name }, 'route sink started');
  }

  status(): SinkView[] {
    return [...this.#sinks.values()].map(({ driver, target }) => {
      const s = driver.status();
      const notInstalled = target.notInstalled?.(NOT_INSTALLED_SHOWN) ?? [];
      const details = target.details?.() ?? [];
      return {
        name: s.name,
        state: s.state,
        pending: s.pending,
        applied: s.applied,
        failures: s.failures,
        ...(s.lastError !== undefined && { lastError: s.lastError }),
        ...(s.lastSuccessAt !== undefined && { lastSuccess: new Date(s.lastSuccessAt).toISOString() }),
        ...(notInstalled.length > 0 && { notInstalled }),
        ...(details.length > 0 && { details }),
      };
    });
  }

  async close(): Promise<void> {
    const all = [...this.#sinks.values()];
    this.#sinks.clear();
    for (const s of all) s.remove?.();
    await Promise.allSettled(all.map((s) => s.driver.close()));
  }
}
