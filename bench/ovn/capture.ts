/**
 * The speaker's UPDATEs as they leave it: dumpcap on its end of the veth (port 179), read
 * back with tshark. Splits a commit → FRR latency into the speaker's part (commit → UPDATE on
 * the wire) and FRR's (wire → its RIB). Capture timestamps are the kernel's wall clock;
 * commits are timed with performance.now(), turned into wall time with performance.timeOrigin.
 */
import { existsSync, statSync } from 'node:fs';
import { type ProcessRecord, spawnDetached, stopProcesses } from '../../frr-interop/lab/process.js';
import { run } from '../../test/support/ovsdb-lab.js';

const START_MS = 10_000;
const TSHARK_MS = 300_000;

/** Per prefix (address text, all /32 here): the wall times (ms) it was announced and withdrawn. */
export type WireLog = Map<string, { announced: number[]; withdrawn: number[] }>;

/** Wall-clock ms of a performance.now() reading. */
export const wallOf = (perfMs: number): number => performance.timeOrigin + perfMs;

export class WireCapture {
  readonly file: string;
  readonly #record: ProcessRecord;
  readonly #source: string;
  readonly #ns: string;

  private constructor(file: string, record: ProcessRecord, source: string, ns: string) {
    this.file = file;
    this.#record = record;
    this.#source = source;
    this.#ns = ns;
  }

  /**
   * Captures BGP sent by `source` on `ifname` in namespace `ns` into `file`; resolves once
   * dumpcap writes. `pings`: echo requests from `source` too, so flush() works.
   */
  static async start(
    ns: string,
    ifname: string,
    source: string,
    file: string,
    log: string,
    opts: { readonly pings?: boolean } = {},
  ): Promise<WireCapture> {
    const p = spawnDetached(
      [
        'ip',
        'netns',
        'exec',
        ns,
        'dumpcap',
        '-q',
        '-i',
        ifname,
        '-f',
        `${opts.pings ? '(tcp port 179 or icmp)' : 'tcp port 179'} and src host ${source}`,
        '-w',
        file,
      ],
      'dumpcap',
      log,
    );
    const end = Date.now() + START_MS;
    // dumpcap writes the pcapng section header as soon as it captures.
    while (!(existsSync(file) && statSync(file).size > 0)) {
      if (Date.now() > end) {
        await stopProcesses([p.record]);
        throw new Error(`dumpcap did not start on ${ns}/${ifname} (see ${log})`);
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    return new WireCapture(file, p.record, source, ns);
  }

  /**
   * dumpcap keeps the last packets it captured to itself until another one comes (its ring's
   * block is handed over then), and a speaker that has sent its last UPDATE may send nothing
   * for a minute (FRR's keepalives): three pings to `to` bring them out before stop().
   */
  async flush(to: string): Promise<void> {
    await run(
      'ip',
      ['netns', 'exec', this.#ns, 'ping', '-q', '-c', '3', '-i', '0.2', '-W', '1', to],
      10_000,
    ).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 500));
  }

  async stop(): Promise<void> {
    await stopProcesses([this.#record]);
  }

  /** Every UPDATE in the capture, by prefix. */
  async updates(): Promise<WireLog> {
    const out = await run(
      'tshark',
      [
        '-r',
        this.file,
        '-Y',
        `bgp.type == 2 && ip.src == ${this.#source}`,
        '-T',
        'fields',
        '-E',
        'separator=\t',
        '-E',
        'occurrence=a',
        '-E',
        'aggregator=,',
        '-e',
        'frame.time_epoch',
        '-e',
        'bgp.nlri_prefix',
        '-e',
        'bgp.withdrawn_prefix',
      ],
      TSHARK_MS,
    );
    const log: WireLog = new Map();
    const at = (p: string) => {
      let e = log.get(p);
      if (!e) {
        e = { announced: [], withdrawn: [] };
        log.set(p, e);
      }
      return e;
    };
    for (const line of out.split('\n')) {
      const [epoch, nlri, withdrawn] = line.split('\t');
      if (!epoch) continue;
      const ms = Number(epoch) * 1000;
      for (const p of (nlri ?? '').split(',').filter(Boolean)) at(p).announced.push(ms);
      for (const p of (withdrawn ?? '').split(',').filter(Boolean)) at(p).withdrawn.push(ms);
    }
    return log;
  }
}

/**
 * The first time in `times` minus `fromWall` (ms); NaN when none. The benchmarks announce and
 * withdraw each sample prefix once, so the first is the sample's. Negative would mean the
 * UPDATE left before this process saw the commit: the skew of the two clocks, shown as is.
 */
export function firstAfter(times: readonly number[] | undefined, fromWall: number): number {
  return times && times.length > 0 ? Math.min(...times) - fromWall : Number.NaN;
}
