import { describePlan, planReload, type ReloadPlan } from './diff.js';
import { type LoadedConfig, loadConfig } from './load.js';
import { ConfigError, type Problem, problem } from './problem.js';
import type { Config } from './schema.js';

export interface ConfigStoreOptions {
  /** Reads and validates the file; default loadConfig. */
  readonly load?: (file: string) => LoadedConfig;
  /**
   * Accept reloads that change local_as or router_id (the caller then resets every session).
   * Default false: such a reload is refused and the running configuration kept.
   */
  readonly allowRestart?: boolean;
}

/** A reload either took effect (with the plan to carry out) or changed nothing. */
export type ReloadOutcome =
  | {
      readonly ok: true;
      readonly config: Config;
      readonly plan: ReloadPlan;
      /** The plan as log lines. */
      readonly summary: readonly string[];
      readonly warnings: readonly Problem[];
    }
  | { readonly ok: false; readonly error: ConfigError };

/**
 * The running configuration. `reload()` reads the file again and swaps the configuration only
 * when the new one is valid (and, unless allowed, keeps the speaker's identity); a bad file
 * leaves the running configuration exactly as it was.
 */
export class ConfigStore {
  readonly file: string;
  readonly #load: (file: string) => LoadedConfig;
  readonly #allowRestart: boolean;
  #current: LoadedConfig;

  private constructor(file: string, loaded: LoadedConfig, options: ConfigStoreOptions) {
    this.file = file;
    this.#current = loaded;
    this.#load = options.load ?? ((f) => loadConfig(f));
    this.#allowRestart = options.allowRestart ?? false;
  }

  /** Loads the file for the first time; throws ConfigError when it is not usable. */
  static open(file: string, options: ConfigStoreOptions = {}): ConfigStore {
    const load = options.load ?? ((f: string) => loadConfig(f));
    return new ConfigStore(file, load(file), options);
  }

  get config(): Config {
    return this.#current.config;
  }

  get warnings(): readonly Problem[] {
    return this.#current.warnings;
  }

  reload(): ReloadOutcome {
    let next: LoadedConfig;
    try {
      next = this.#load(this.file);
    } catch (e) {
      if (e instanceof ConfigError) return { ok: false, error: e };
      throw e;
    }
    const plan = planReload(this.#current.config, next.config);
    if (plan.restartRequired && !this.#allowRestart) {
      const problems = plan.speaker
        .filter((c) => c.effect === 'restart')
        .map((c) =>
          problem(
            c.field.split('.'),
            `changed from ${JSON.stringify(c.before)} to ${JSON.stringify(c.after)}; this takes a restart, so the running speaker keeps ${JSON.stringify(c.before)}`,
            c.after,
          ),
        );
      return { ok: false, error: new ConfigError('restart-required', problems, this.file) };
    }
    this.#current = next;
    return { ok: true, config: next.config, plan, summary: describePlan(plan), warnings: next.warnings };
  }
}

/** Where reload signals come from; `process` by default. */
export interface SignalSource {
  on(signal: 'SIGHUP', listener: () => void): unknown;
  off(signal: 'SIGHUP', listener: () => void): unknown;
}

/**
 * Reloads on SIGHUP and hands each outcome to `onOutcome` (to apply the plan, or log the
 * error). Returns a function that stops listening.
 */
export function reloadOnSighup(
  store: ConfigStore,
  onOutcome: (outcome: ReloadOutcome) => void,
  source: SignalSource = process,
): () => void {
  const listener = () => onOutcome(store.reload());
  source.on('SIGHUP', listener);
  return () => {
    source.off('SIGHUP', listener);
  };
}
