/**
 * The usage text of every command, kept apart from the commands themselves so `--help` and
 * usage errors load nothing else (the entry imports a command's module only to run it).
 */
import { ApiDefaults, SOCKET_PATH_ENV } from '../api/constants.js';

export const RUN_USAGE = `  ovn-bgp-speaker run --config FILE        run the speaker: BGP sessions, routes, control socket;
                                           SIGHUP reloads FILE, SIGTERM/SIGINT stop it (Cease);
                                           with graceful_restart, SIGTERM stops for a restart`;
const DECODE_USAGE = `  ovn-bgp-speaker decode [FILE|-]          decode BGP messages given as hex (a capture, or stdin)`;
const ROUNDTRIP_USAGE = `  ovn-bgp-speaker roundtrip [-v] PATH      decode and re-encode captured sessions (a .json file
                                           or a folder of them), compare the bytes`;
export const CHECK_CONFIG_USAGE = `  ovn-bgp-speaker check-config [--config] FILE
                                           check a configuration file: one line per problem, and
                                           a warning per setting accepted but not acted on yet`;

export const SHOW_USAGE = `  ovn-bgp-speaker show summary             sessions and prefix counts (\`show bgp summary\`)
  ovn-bgp-speaker show neighbors [PEER]    session details (\`show bgp neighbors\`): our, the peer's
                                           and the negotiated capabilities
  ovn-bgp-speaker show rib [PREFIX] [--afi 4|6] [--limit N]
                                           the Loc-RIB; with a PREFIX or an address, every
                                           path and the best path selection reason
  ovn-bgp-speaker show advertised PEER [PREFIX] [--afi 4|6] [--limit N]
                                           what was sent to one neighbor (after export policy)
  ovn-bgp-speaker show received PEER [PREFIX] [--afi 4|6] [--limit N]
                                           every path the neighbor sent, before import policy,
                                           each marked accepted, rejected by policy or denied
                                           (a loop); > marks the one the Loc-RIB chose
  ovn-bgp-speaker show ovn [problems]      routes derived from OVN, each with its OVN row
                                           and why its next hop; or what could not be
  ovn-bgp-speaker show sinks               the forwarding planes routes are installed into
  ovn-bgp-speaker show bmp                 BMP collectors: connection, peers told, drops`;
export const NEIGHBOR_USAGE = `  ovn-bgp-speaker neighbor PEER reset      close the session and start it again
  ovn-bgp-speaker neighbor PEER shutdown [--message TEXT]
                                           shut the session down (RFC 9003 message)
  ovn-bgp-speaker neighbor PEER enable     undo shutdown
  ovn-bgp-speaker neighbor PEER refresh    ask for the routes again (ROUTE-REFRESH)`;
export const CONTROL_USAGE = `${SHOW_USAGE}\n${NEIGHBOR_USAGE}`;

export const CONTROL_OPTIONS = `Options of show and neighbor (PEER is a neighbor's name or address):
  --socket PATH   the control socket; default $${SOCKET_PATH_ENV}, else
                  ${ApiDefaults.SOCKET_PATH}
  --json          print the answer as JSON in FRR's shape where vtysh has one: show
                  summary and neighbors as \`show bgp summary|neighbors json\` (keyed by
                  neighbor address; our own fields under "ovnBgpSpeaker"), show rib,
                  advertised and received as {"routes": {PREFIX: [path, ...]}}; the
                  others as the control socket returned them
  --json=native   the answer exactly as the control socket returned it`;

export const ROUTE_USAGE = `  ovn-bgp-speaker route announce PREFIX [--next-hop ADDR] [--origin igp|egp|incomplete]
                  [--med N] [--local-pref N] [--community C]... [--large-community C]...
                                           originate a route (the api origin)
  ovn-bgp-speaker route withdraw PREFIX    withdraw a route announced so
  ovn-bgp-speaker route list               the routes announced through the API`;
export const PEER_USAGE = `  ovn-bgp-speaker peer add|change FILE     a peer as the file's peers section writes one (YAML
                                           or JSON; - for stdin), checked like the file
  ovn-bgp-speaker peer remove PEER         remove a peer (Cease, Peer De-configured)`;
export const CALL_USAGE =
  '  ovn-bgp-speaker call METHOD [PARAMS]     one control API request, PARAMS as JSON';
export const WATCH_USAGE = `  ovn-bgp-speaker watch [bestpath] [sessions]
                                           the state, then every change, one JSON event per line`;
export const MRT_USAGE = `  ovn-bgp-speaker dump rib [FILE]          the Loc-RIB as an MRT TABLE_DUMP_V2 file (default
                                           mrt.dump.path; %Y%m%d%H%M%S in FILE become the time)
  ovn-bgp-speaker mrt inject FILE [--name NAME]
                                           originate an MRT file's routes with its attributes
                                           (the mrt origin; NAME defaults to the file's name)
  ovn-bgp-speaker mrt withdraw NAME        withdraw every route of an injected file
  ovn-bgp-speaker mrt list                 the injected files`;
export const API_USAGE = `${ROUTE_USAGE}\n${PEER_USAGE}\n${CALL_USAGE}\n${WATCH_USAGE}\n${MRT_USAGE}`;

const EXIT_STATUS = `Exit status: 0 on success, 1 when a message fails to decode or re-encode, the speaker cannot be
reached or answers with an error (an unknown peer, a prefix not in the table), 2 on usage errors.`;

export const USAGE = `ovn-bgp-speaker: a BGP-4 speaker for OVN clouds

Usage:
${RUN_USAGE}
${DECODE_USAGE}
${ROUNDTRIP_USAGE}
${CHECK_CONFIG_USAGE}
${CONTROL_USAGE}
${API_USAGE}
  ovn-bgp-speaker version
  ovn-bgp-speaker help [COMMAND]           this text, or one command's (also COMMAND --help)

${CONTROL_OPTIONS}

${EXIT_STATUS}`;

const VERSION_USAGE = '  ovn-bgp-speaker version                  print the version';

/** Each command's own usage, for `COMMAND --help` and `help COMMAND`. */
export const COMMAND_USAGE: Readonly<Record<string, string>> = {
  run: RUN_USAGE,
  decode: DECODE_USAGE,
  roundtrip: ROUNDTRIP_USAGE,
  'check-config': CHECK_CONFIG_USAGE,
  show: `${SHOW_USAGE}\n\n${CONTROL_OPTIONS}`,
  neighbor: `${NEIGHBOR_USAGE}\n\n${CONTROL_OPTIONS}`,
  route: ROUTE_USAGE,
  peer: PEER_USAGE,
  call: CALL_USAGE,
  watch: WATCH_USAGE,
  mrt: MRT_USAGE,
  dump: MRT_USAGE,
  version: VERSION_USAGE,
};

/** `COMMAND --help`, or null when the command is unknown. */
export function commandHelp(command: string): string | null {
  const usage = COMMAND_USAGE[command];
  return usage === undefined ? null : `Usage:\n${usage}\n\n${EXIT_STATUS}`;
}

/** A help flag anywhere in the arguments; `--` ends the options (a file may be named -h). */
export function asksForHelp(args: readonly string[]): boolean {
  for (const a of args) {
    if (a === '--') return false;
    if (a === '--help' || a === '-h') return true;
  }
  return false;
}
