/**
 * What /healthz and /readyz ask of a running speaker: the facts its parts report, read at each
 * probe, and the liveness of its event loop. The rules themselves are the api's (health.ts).
 */
import {
  type HealthSource,
  livenessChecks,
  type ReadinessFacts,
  readinessChecks,
  type SinkView,
} from '../api/index.js';
import type { Scheduler } from '../components/index.js';
import { type HealthConfig, HealthDefaults } from '../config/index.js';
import type { Neighbor, OvnPublishing } from '../routing/index.js';
import { LoopWatch } from '../service/index.js';
import type { OvnRouteTables } from './ovn-route-tables.js';

const MS_PER_SECOND = 1000;

/** What the speaker hands over, each read when a probe asks. */
export interface HealthParts {
  readonly config: () => HealthConfig;
  readonly started: () => boolean;
  readonly ovn: () => OvnPublishing | undefined;
  readonly tables: () => OvnRouteTables | undefined;
  readonly sinks: () => readonly SinkView[];
  readonly neighbors: () => Iterable<Neighbor>;
}

/** The OVN watcher in a word or two: why it is not synced yet. */
function ovnFact(ovn: OvnPublishing | undefined): ReadinessFacts['ovn'] {
  if (!ovn) return null;
  const s = ovn.status;
  if (!s)
    return {
      synced: false,
      state: `looking up our chassis${ovn.chassisLookupError ? `: ${ovn.chassisLookupError}` : ''}`,
    };
  if (s.state === 'synced') return { synced: true, state: 'synced' };
  const db = (name: string, c: typeof s.nb) => `${name} ${c.state}`;
  return { synced: false, state: `${s.state} (${db('nb', s.nb)}, ${db('sb', s.sb)})` };
}

/** Each OVN route table: followed once its number is known and its reader is open. */
function tableFacts(tables: OvnRouteTables | undefined): ReadinessFacts['tables'] {
  return (tables?.status() ?? []).map((t) => {
    if (t.table === undefined)
      return { name: t.name, following: false, state: 'table not known yet (router lookup)' };
    const open = t.reader?.open === true;
    return {
      name: t.name,
      following: open,
      state: open ? `table ${t.table}` : `table ${t.table} not read yet`,
    };
  });
}

export function readinessFacts(parts: HealthParts): ReadinessFacts {
  return {
    started: parts.started(),
    ovn: ovnFact(parts.ovn()),
    tables: tableFacts(parts.tables()),
    sinks: parts.sinks().map((s) => ({ name: s.name, state: s.state })),
    peers: [...parts.neighbors()].map((b) => ({
      name: b.name,
      state: b.peer.state,
      // Kept down on purpose; a max-prefix stop is a failure, not the operator's choice.
      shutdown: b.stoppedBy === 'config' || b.stoppedBy === 'operator',
    })),
  };
}

/** The loop monitor and the probes' answers; started with the speaker, stopped with it. */
export class SpeakerHealth implements HealthSource {
  readonly #parts: HealthParts;
  readonly #loop: LoopWatch;

  constructor(parts: HealthParts, clock: Scheduler) {
    this.#parts = parts;
    this.#loop = new LoopWatch(clock, {
      tickMs: HealthDefaults.tickMs,
      windowMs: () => parts.config().stallWindow * MS_PER_SECOND,
    });
  }

  start(): void {
    this.#loop.start();
  }

  stop(): void {
    this.#loop.stop();
  }

  liveness() {
    return livenessChecks(this.#loop.report(), this.#parts.config().stallMs);
  }

  readiness() {
    return readinessChecks(readinessFacts(this.#parts), this.#parts.config().readyRequires);
  }
}
