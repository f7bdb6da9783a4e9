/* What every measured implementation offers the benchmark, whatever runs it. */
import type { BenchLink, Impl } from './bench-lab.js';

export interface Held {
  readonly count: number;
  /** RFC 4271 state name as the implementation reports it. */
  readonly state: string;
}

export interface Target {
  readonly impl: Impl;
  readonly label: string;
  readonly link: BenchLink;
  /** A fresh process (the previous one, if any, is stopped first). */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The process whose CPU and memory are measured (FRR: bgpd, not zebra). */
  pid(): number;
  /** Prefixes accepted from the neighbor at `address`. */
  held(address: string): Promise<Held>;
  /** Extra lines for a failure report (logs). */
  diagnostics(): string;
}
