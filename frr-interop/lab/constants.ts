/** Defaults of the lab, in one place. Times are milliseconds unless the name says seconds. */

export const BGP_PORT = 179;
/** gobgpd's gRPC API listens on loopback inside its own namespace, so one port serves every lab. */
export const GOBGP_API_PORT = 50051;

/** Session timers the lab's daemons use unless a neighbor spec says otherwise (short, so tests are quick). */
export const DEFAULT_HOLD_TIME_SECONDS = 9;
export const DEFAULT_KEEPALIVE_SECONDS = 3;
export const DEFAULT_CONNECT_RETRY_SECONDS = 2;
/** BIRD waits this long before its first connect attempt and after an error (its defaults are 5 s and 60 s). */
export const BIRD_CONNECT_DELAY_SECONDS = 1;
export const BIRD_ERROR_WAIT_SECONDS = { min: 1, max: 10 } as const;
/**
 * How long a BIRD started for graceful restart recovery (`bird -R`) waits for its protocols to
 * converge before it gives up waiting (its default, 240 s, would outlast a test).
 */
export const BIRD_GRACEFUL_RESTART_WAIT_SECONDS = 30;
/** gobgpd's idle time after an operator reset (its default is 30 s). */
export const GOBGP_IDLE_HOLD_AFTER_RESET_SECONDS = 1;
/** How many paths a neighbor with ADD-PATH send advertises per prefix, where the daemon asks for a number. */
export const ADD_PATH_SEND_MAX = 8;

/** Bounds of every wait. */
export const COMMAND_TIMEOUT = 10_000;
/** `show` commands that dump whole tables (a full Internet table takes a while to print). */
export const TABLE_QUERY_TIMEOUT = 120_000;
export const READY_TIMEOUT = 8_000;
export const READY_POLL_INTERVAL = 25;
/** FRR daemons and gobgpd take about 2 s to exit on SIGTERM; after this they get SIGKILL. */
export const STOP_GRACE = 3_000;
export const KILL_WAIT = 1_000;
export const STOP_POLL_INTERVAL = 50;
export const STATE_POLL_INTERVAL = 200;
export const DEFAULT_STATE_WAIT = 30_000;
/** Large `show` outputs (full tables) must still fit. */
export const MAX_OUTPUT_BYTES = 1 << 30;

export const FRR_DAEMON_DIR = '/usr/lib/frr';
export const FRR_USER = 'frr';

/** Every lab namespace is named `obs-<id>-<node>`; ids and node names carry no '-' so prefixes never overlap. */
export const NAMESPACE_PREFIX = 'obs-';
export const DEFAULT_LAB_ID = 'lab';
export const LAB_DIR_ROOT = '/tmp';
export const LAB_DIR_PREFIX = 'obs-lab-';
export const STATE_FILE = 'state.json';
export const SPEAKER_NODE = 'speaker';

/**
 * Address plan (RFC 5737 benchmarking space 198.18.0.0/15 and RFC 3849 documentation space 2001:db8::/32).
 * Speaker link i (1-based): 198.18.<i>.0/24 and 2001:db8:<i>::/64, speaker .1 / ::1, peer .2 / ::2.
 * Peer-to-peer link j (0-based): 198.18.<100+j>.0/24 and 2001:db8:ff<jj>::/64, first end .1, second end .2.
 */
export const MAX_PEERS = 99;
export const MAX_PEER_LINKS = 100;
export const PEER_LINK_OCTET_BASE = 100;
export const IPV4_LINK_PREFIX_LEN = 24;
export const IPV6_LINK_PREFIX_LEN = 64;
