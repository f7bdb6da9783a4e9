/** Settings of the UPDATE-throughput benchmark, in one place. Times are milliseconds unless named otherwise. */

/**
 * AS numbers. The generated AS paths (bench/gen/table-shapes.ts) hold ASNs 1..23455 and
 * 131072..401071 after the replayer's own AS, so every AS here lies outside them: no receiver
 * drops a route as a loop.
 */
export const BenchAs = {
  REPLAYER: 64600,
  FRR: 64601,
  GOBGP: 64602,
  BIRD: 64603,
  OURS: 64604,
  FRR10: 64605,
  BIRD3: 64606,
  COUNTER: 64610,
} as const;

/** Session timers every participant uses (the "hold time 9 s"). */
export const HOLD_TIME_SECONDS = 9;
export const KEEPALIVE_SECONDS = 3;

/** Lab id: namespaces are obs-tput-<node>, files under /tmp/obs-lab-tput. */
export const LAB_ID = 'tput';
export const HUB_ROUTER_ID = '198.18.0.1';

/**
 * Our speaker's link to the hub (the lab's speaker namespace, where the replayer and the
 * counter run): it is numbered as the lab would number a ninth peer's link, past the daemons'
 * (bench-lab.ts checks that none has it).
 */
export const OURS_LINK = {
  hubIfname: 'to-ours',
  oursIfname: 'to-speaker',
  hubIpv4: '198.18.9.1',
  oursIpv4: '198.18.9.2',
  hubIpv6: '2001:db8:9::1',
  oursIpv6: '2001:db8:9::2',
  ipv4PrefixLen: 24,
  ipv6PrefixLen: 64,
} as const;
/** The counter's source address on a link: host .3 of the link's /24 (the lab uses .1 and .2). */
export const COUNTER_HOST = 3;

/** Defaults of the command line. */
export const DEFAULT_PREFIXES = 1_000_000;
/** The cold-start cell: a table this size received by a fresh process. */
export const DEFAULT_SMALL_PREFIXES = 100_000;
export const DEFAULT_IPV6_PREFIXES = 0;
export const DEFAULT_RUNS = 3;
export const DEFAULT_OUT_DIR = 'bench-results';
/**
 * Bound of one receive or send measurement (and of a loaded sender going quiet). FRR 10.3
 * takes about 40 s to receive 1M prefixes on an idle machine, twice that under load.
 */
export const DEFAULT_MEASURE_TIMEOUT = 150_000;
/**
 * Bound of the whole benchmark; a cell whose worst case no longer fits is reported as skipped.
 * One run of both shapes with the five default implementations took 6 minutes at 1M with a
 * load average of 9 (2.5 skewed, 3.7 transit), so three runs take about 20.
 */
export const DEFAULT_TOTAL_BUDGET = 60 * 60_000;

/** How often a receiver is asked how many prefixes it holds (the full table). */
export const POLL_INTERVAL = 100;
/** The same for the cold-start cell, which lasts a fraction of a second: a finer clock. */
export const SMALL_POLL_INTERVAL = 25;
/** How often the counter reports progress. */
export const COUNTER_REPORT_INTERVAL = 100;
/** Table generation's seed: every run and every implementation get the same tables. */
export const TABLE_SEED = 1;
/** The pre-encoded stream is written to the socket in message-aligned chunks of about this size. */
export const STREAM_CHUNK_BYTES = 64 * 1024;

/** Bounds of the child programs and of waiting for sessions. */
export const CHILD_READY_TIMEOUT = 60_000;
export const CHILD_EXIT_WAIT = 5_000;
export const ESTABLISH_TIMEOUT = 30_000;
export const CONNECT_RETRY = 250;
export const STATUS_TIMEOUT = 10_000;
/** After the last prefix arrived, the session is watched this long more (keepalives must still flow). */
export const SETTLE_AFTER_DONE = 1_000;
/**
 * A loaded sender counts as quiet (done with the table it received) below this share of one
 * core, sampled every QUIET_SAMPLE ms, QUIET_SAMPLES times in a row.
 */
export const QUIET_CPU_SHARE = 0.05;
export const QUIET_SAMPLE = 250;
export const QUIET_SAMPLES = 2;
/** Prefixes our speaker takes from its Adj-RIB-Out per packing round (then it yields). */
export const EXPORT_TAKE = 20_000;

/** Targets of the issue, as ratios to figures measured in the same run, per table shape. */
export const Targets = {
  /** Receive the full table in at most 0.7 x BIRD 2.0's time. */
  RECEIVE_VS_BIRD2: 0.7,
  /** A fresh process receives the small table in no more than BIRD 2.0's time. */
  COLD_VS_BIRD2: 1,
  /** Send the full table in at most 0.3 x the time of the fastest FRR or BIRD measured. */
  SEND_VS_BEST: 0.3,
  /** Peak RSS (VmHWM) after receiving the full table no higher than BIRD 2.0's. */
  RSS_VS_BIRD2: 1,
} as const;
