/**
 * The rules behind /healthz and /readyz, as pure functions of what the speaker reports: which
 * checks pass, and the answer a probe gets. Kubernetes' own health endpoints are the model:
 * one `[+]name ok` / `[-]name failed: reason` line per check (`?verbose`, and always when a
 * check fails), or the same as JSON (`?format=json`).
 */

/** Which BGP sessions must be Established for the speaker to be ready. */
export type PeerRequirement =
  /** None: readiness does not depend on the fabric. */
  | 'none'
  /** At least one of the peers not shut down by the operator. */
  | 'any'
  /** Every peer not shut down by the operator. */
  | 'all'
  /** These peers, by name (a named peer that is shut down is not ready). */
  | readonly string[];

/** What readiness requires beyond a loaded configuration and a started speaker. */
export interface ReadyRequirements {
  /**
   * OVN's databases synced (both NB and SB, the routes derived), when OVN is configured; and
   * every OVN route table followed, when ovn_route_tables is.
   */
  readonly ovn: boolean;
  /** Route sinks in sync with the RIB: every running one, or these by name. */
  readonly sinks: 'all' | readonly string[];
  readonly peers: PeerRequirement;
}

/** What the speaker knows of itself when a probe asks. */
export interface ReadinessFacts {
  /** Start-up finished: configuration loaded, listener, control socket, peers, origins, sinks built. */
  readonly started: boolean;
  /** The OVN watcher; null when OVN is not configured. */
  readonly ovn: { readonly synced: boolean; readonly state: string } | null;
  /** OVN 25.03's route tables (ovn_route_tables): each followed once its table is known and read. */
  readonly tables: readonly { readonly name: string; readonly following: boolean; readonly state: string }[];
  /** Every running sink, with the driver's state ('in-sync' is in sync). */
  readonly sinks: readonly { readonly name: string; readonly state: string }[];
  readonly peers: readonly {
    readonly name: string;
    readonly state: string;
    /** Kept down by the operator (configuration or `neighbor PEER shutdown`). */
    readonly shutdown: boolean;
  }[];
}

export interface HealthCheck {
  /** `started`, `ovn`, `ovn-table:lr0`, `sink:kernel`, `peer:tor-a`, `peers`, `loop`. */
  readonly name: string;
  readonly ok: boolean;
  /** Why it failed (absent when ok). */
  readonly reason?: string;
}

const ESTABLISHED = 'Established';
const IN_SYNC = 'in-sync';

function check(name: string, ok: boolean, reason: string): HealthCheck {
  return ok ? { name, ok } : { name, ok, reason };
}

function sinkChecks(facts: ReadinessFacts, wanted: ReadyRequirements['sinks']): HealthCheck[] {
  const running = new Map(facts.sinks.map((s) => [s.name, s.state]));
  const names = wanted === 'all' ? [...running.keys()] : wanted;
  return names.map((name) => {
    const state = running.get(name);
    return check(`sink:${name}`, state === IN_SYNC, state === undefined ? 'not running' : state);
  });
}

function peerChecks(facts: ReadinessFacts, wanted: PeerRequirement): HealthCheck[] {
  if (wanted === 'none') return [];
  const up = (p: ReadinessFacts['peers'][number]) => !p.shutdown && p.state === ESTABLISHED;
  const why = (p: ReadinessFacts['peers'][number]) => (p.shutdown ? 'shut down' : p.state);
  if (wanted === 'any') {
    const enabled = facts.peers.filter((p) => !p.shutdown);
    const reason = enabled.length === 0 ? 'no peer is enabled' : 'no session is Established';
    return [check('peers', enabled.some(up), reason)];
  }
  if (wanted === 'all') {
    // A peer the operator shut down is down on purpose: it does not make the speaker unready.
    return facts.peers.filter((p) => !p.shutdown).map((p) => check(`peer:${p.name}`, up(p), why(p)));
  }
  const byName = new Map(facts.peers.map((p) => [p.name, p]));
  return wanted.map((name) => {
    const p = byName.get(name);
    return check(`peer:${name}`, p !== undefined && up(p), p === undefined ? 'not configured' : why(p));
  });
}

/** Every check /readyz runs, in a stable order: started, ovn, OVN route tables, sinks, peers. */
export function readinessChecks(facts: ReadinessFacts, wanted: ReadyRequirements): HealthCheck[] {
  const out = [check('started', facts.started, 'starting')];
  if (wanted.ovn && facts.ovn !== null) out.push(check('ovn', facts.ovn.synced, facts.ovn.state));
  if (wanted.ovn) for (const t of facts.tables) out.push(check(`ovn-table:${t.name}`, t.following, t.state));
  out.push(...sinkChecks(facts, wanted.sinks), ...peerChecks(facts, wanted.peers));
  return out;
}

/** The event loop as the liveness probe sees it. */
export interface LoopReport {
  /** The longest a timer turn was late within the window, in milliseconds (0: none). */
  readonly worstLagMs: number;
  /** When that lag ended, milliseconds ago. */
  readonly agoMs: number;
}

/** /healthz: alive unless the loop stalled beyond `stallMs` within the window the report covers. */
export function livenessChecks(loop: LoopReport, stallMs: number): HealthCheck[] {
  const stalled = loop.worstLagMs >= stallMs;
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  return [
    check(
      'loop',
      !stalled,
      `event loop stalled ${seconds(loop.worstLagMs)} (bound ${seconds(stallMs)}), ${seconds(loop.agoMs)} ago`,
    ),
  ];
}

export interface HealthAnswer {
  readonly status: 200 | 503;
  readonly contentType: string;
  readonly body: string;
}

export interface HealthQuery {
  /** Every check line even when all pass. */
  readonly verbose: boolean;
  /** JSON instead of text. */
  readonly json: boolean;
}

/** Reads `?verbose` and `?format=json` (an `Accept: application/json` header asks for JSON too). */
export function healthQuery(search: string, accept: string | undefined): HealthQuery {
  const params = new URLSearchParams(search);
  return {
    verbose: params.has('verbose') && params.get('verbose') !== 'false',
    json: params.get('format') === 'json' || (accept ?? '').includes('application/json'),
  };
}

/**
 * The answer to a probe: 200 when every check passed, else 503. Text as Kubernetes writes it:
 * `ok`, or a line per check and `<endpoint> check failed`.
 */
export function healthAnswer(endpoint: string, checks: readonly HealthCheck[], q: HealthQuery): HealthAnswer {
  const ok = checks.every((c) => c.ok);
  const status = ok ? 200 : 503;
  if (q.json) {
    const body = `${JSON.stringify({ status: ok ? 'ok' : 'failed', checks })}\n`;
    return { status, contentType: 'application/json', body };
  }
  const lines = checks.map((c) => (c.ok ? `[+]${c.name} ok` : `[-]${c.name} failed: ${c.reason}`));
  const body =
    ok && !q.verbose
      ? 'ok\n'
      : `${lines.join('\n')}${lines.length > 0 ? '\n' : ''}${endpoint} check ${ok ? 'passed' : 'failed'}\n`;
  return { status, contentType: 'text/plain; charset=utf-8', body };
}
