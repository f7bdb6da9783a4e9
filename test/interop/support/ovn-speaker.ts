/**
 * One of our speakers as the ovn-frr lab runs it: `ovn-bgp-speaker run --config FILE` in its
 * own namespace, one eBGP session to the router carrying IPv4 and IPv6 unicast, an `ovn`
 * section; read through its control socket and its log, stopped by PID.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import {
  isRunning,
  type ProcessRecord,
  spawnDetached,
  stopProcesses,
} from '../../../frr-interop/lab/index.js';
import { callControl, type OvnView, type SummaryView } from '../../../src/api/index.js';
import { type LogLine, parseLogLines } from '../../speaker/lab-speaker.js';

const REPO = resolve(import.meta.dirname, '../../..');
const MAIN = join(REPO, 'src/cli/main.ts');
const CONTROL_MS = 5000;

export const SPEAKER_AS = 65000;
export const ROUTER_AS = 65001;

export interface SpeakerPlan {
  /** 1-based: names it `s<i>`, and its files in `dir`. */
  readonly index: number;
  readonly ns: string;
  readonly dir: string;
  readonly address: { readonly ipv4: string; readonly ipv6: string };
  readonly routerAddress: string;
  /** Our AS and the router's, when not SPEAKER_AS and ROUTER_AS. */
  readonly localAs?: number;
  readonly routerAs?: number;
  /** The `ovn` section, nb and sb included. */
  readonly ovn: Record<string, unknown>;
}

/** The configuration file, as an operator writes it. */
function configDoc(p: SpeakerPlan, socket: string): Record<string, unknown> {
  return {
    speaker: {
      name: `s${p.index}`,
      local_as: p.localAs ?? SPEAKER_AS,
      router_id: p.address.ipv4,
      listen: { address: '::', port: 179 },
      hold_time: 9,
      connect_retry: 1,
      control_socket: socket,
      log: { level: 'info' },
    },
    peers: [
      {
        name: 'router',
        peer_ip: p.routerAddress,
        remote_as: p.routerAs ?? ROUTER_AS,
        families: ['ipv4-unicast', 'ipv6-unicast'],
        // We learn nothing from the router; everything we have goes to it (RFC 8212).
        import: ['none'],
        export: ['all'],
      },
    ],
    policies: {
      all: { statements: [{ action: 'accept' }] },
      none: { statements: [{ action: 'reject' }] },
    },
    ovn: p.ovn,
  };
}

export class SpeakerProcess {
  readonly ns: string;
  readonly address: { readonly ipv4: string; readonly ipv6: string };
  readonly socket: string;
  readonly logFile: string;
  #record: ProcessRecord | undefined;

  private constructor(plan: SpeakerPlan, record: ProcessRecord, socket: string, logFile: string) {
    this.ns = plan.ns;
    this.address = plan.address;
    this.socket = socket;
    this.logFile = logFile;
    this.#record = record;
  }

  /** Writes the config and starts the process; `track` records its PID. Does not wait. */
  static spawn(plan: SpeakerPlan, track: (r: ProcessRecord) => void): SpeakerProcess {
    const name = `s${plan.index}`;
    const socket = join(plan.dir, `${name}.sock`);
    const file = join(plan.dir, `${name}.yaml`);
    const logFile = join(plan.dir, `${name}.log`);
    writeFileSync(file, stringify(configDoc(plan, socket)));
    const argv = [process.execPath, '--import', 'tsx', MAIN, 'run', '--config', file];
    const p = spawnDetached(['ip', 'netns', 'exec', plan.ns, ...argv], `speaker ${name}`, logFile);
    track(p.record);
    return new SpeakerProcess(plan, p.record, socket, logFile);
  }

  get running(): boolean {
    return this.#record !== undefined && isRunning(this.#record);
  }

  ovn(): Promise<OvnView | null> {
    return callControl(this.socket, 'ovn', {}, { timeoutMs: CONTROL_MS });
  }

  summary(): Promise<SummaryView> {
    return callControl(this.socket, 'summary', {}, { timeoutMs: CONTROL_MS });
  }

  /** The speaker's OVN routes: prefix → next hop. */
  async ovnRoutes(): Promise<Map<string, string>> {
    const view = await this.ovn();
    return new Map((view?.routes ?? []).map((r) => [r.prefix, r.nextHop]));
  }

  /** True once the watcher says synced and both database clients are synced. */
  async ovnSynced(): Promise<boolean> {
    const v = await this.ovn();
    return v !== null && /\(synced\)/.test(v.mode) && v.nb.startsWith('synced') && v.sb.startsWith('synced');
  }

  #lines(): string[] {
    return existsSync(this.logFile) ? readFileSync(this.logFile, 'utf8').split('\n') : [];
  }

  /** The log's length in lines: pass it to `logLines` to look only at what comes after. */
  logMark(): number {
    return Math.max(0, this.#lines().length - 1);
  }

  /** The speaker's log lines from line `since` on (pino JSON; other lines skipped). */
  logLines(since = 0): LogLine[] {
    return parseLogLines(this.#lines().slice(since));
  }

  logTail(lines = 30): string {
    return this.#lines().slice(-lines).join('\n');
  }

  /** SIGTERM, as an operator stops it (the speaker sends Cease); SIGKILL past a bound. */
  async stop(): Promise<void> {
    const rec = this.#record;
    this.#record = undefined;
    if (rec) await stopProcesses([rec]);
  }
}
