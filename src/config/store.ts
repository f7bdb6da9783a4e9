import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { describePlan, planReload, type ReloadPlan } from './diff.js';
import { type LoadedConfig, loadConfig } from './load.js';
import { ConfigError, type Problem, problem } from './problem.js';
import {
  asEditProblem,
  editOverrides,
  mergePeerOverrides,
  type PeerEdit,
  type PeerOverrides,
  peersChangedInFile,
} from './runtime-peers.js';
import type { Config } from './schema.js';
import { type Validation, validateConfig } from './validate.js';

export interface ConfigStoreOptions {
  /** Reads and validates the file; default loadConfig. */
  readonly load?: (file: string) => LoadedConfig;
  /**
   * Accept reloads that change local_as or router_id (the caller then resets every session).
   * Default false: such a reload is refused and the running configuration kept.
   */
  readonly allowRestart?: boolean;
  /** Validates a document with run-time peer changes applied; default as loadConfig does. */
  readonly validate?: (doc: unknown) => Validation;
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
 * The running configuration: the file, plus the peers added, changed or removed at run time
 * (the control API). `reload()` reads the file again and swaps the configuration only when the
 * new one is valid (and, unless allowed, keeps the speaker's identity); a bad file leaves the
 * running configuration exactly as it was. A run-time change of a peer lasts until the file
 * itself changes that peer (the file wins) or the speaker restarts.
 */
export class ConfigStore {
  readonly file: string;
  readonly #load: (file: string) => LoadedConfig;
  readonly #validate: (doc: unknown) => Validation;
  readonly #allowRestart: boolean;
  /** The file as last read. */
  #loaded: LoadedConfig;
  #overrides: PeerOverrides = new Map();
  #current: Config;

  private constructor(file: string, loaded: LoadedConfig, options: ConfigStoreOptions) {
    this.file = file;
    this.#loaded = loaded;
    this.#current = loaded.config;
    this.#load = options.load ?? ((f) => loadConfig(f));
    this.#validate =
      options.validate ??
      ((doc) => validateConfig(doc, { readFile: (p) => readFileSync(p, 'utf8'), baseDir: dirname(file) }));
    this.#allowRestart = options.allowRestart ?? false;
  }

  /** Loads the file for the first time; throws ConfigError when it is not usable. */
  static open(file: string, options: ConfigStoreOptions = {}): ConfigStore {
    const load = options.load ?? ((f: string) => loadConfig(f));
    return new ConfigStore(file, load(file), options);
  }

  get config(): Config {
    return this.#current;
  }

  get warnings(): readonly Problem[] {
    return this.#loaded.warnings;
  }

  /** Peers whose settings come from the control API rather than the file, by name. */
  get runtimePeers(): ReadonlySet<string> {
    return new Set(this.#overrides.keys());
  }

  reload(): ReloadOutcome {
    let next: LoadedConfig;
    try {
      next = this.#load(this.file);
    } catch (e) {
      if (e instanceof ConfigError) return { ok: false, error: e };
      throw e;
    }
    // The file wins over a run-time change of the same peer.
    const edited = peersChangedInFile(this.#loaded.doc, next.doc);
    let overrides: PeerOverrides = new Map([...this.#overrides].filter(([name]) => !edited.has(name)));
    let config = next.config;
    const warnings = [...next.warnings];
    for (const name of this.#overrides.keys()) {
      if (edited.has(name))
        warnings.push(
          problem(['peers'], `the file changed peer ${name}: its run-time settings are dropped`, name),
        );
    }
    if (overrides.size > 0) {
      const merged = this.#validate(mergePeerOverrides(next.doc, overrides).doc);
      if (merged.ok) config = merged.config;
      else {
        warnings.push(
          problem(
            ['peers'],
            `run-time peer changes conflict with the file and are dropped: ${merged.problems.map((p) => `${p.path} ${p.message}`).join('; ')}`,
          ),
        );
        overrides = new Map();
      }
    }
    const plan = planReload(this.#current, config);
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
    this.#loaded = next;
    this.#overrides = overrides;
    this.#current = config;
    return { ok: true, config, plan, summary: describePlan(plan), warnings };
  }

  /**
   * Adds, replaces or removes one peer at run time, checked as if the file said so: the
   * outcome carries the plan to apply, or every problem (named `peer.*`) with nothing changed.
   */
  editPeer(edit: PeerEdit): ReloadOutcome {
    const names = new Set(this.#current.peers.map((p) => p.name));
    const edited = editOverrides(this.#overrides, edit, names);
    if ('problem' in edited) return { ok: false, error: new ConfigError('invalid', [edited.problem]) };
    const merged = mergePeerOverrides(this.#loaded.doc, edited.overrides);
    const result = this.#validate(merged.doc);
    if (!result.ok) {
      const index =
        edit.op === 'remove' ? undefined : merged.at.get(String((edit.peer as { name: unknown }).name));
      return {
        ok: false,
        error: new ConfigError(
          'invalid',
          result.problems.map((p) => asEditProblem(p, index)),
        ),
      };
    }
    const plan = planReload(this.#current, result.config);
    this.#overrides = edited.overrides;
    this.#current = result.config;
    return { ok: true, config: result.config, plan, summary: describePlan(plan), warnings: result.warnings };
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
