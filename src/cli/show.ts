/**
 * The operator commands that talk to a running speaker: `show …` and `neighbor PEER …`.
 * Arguments are read into an Invocation (pure), which is then called over the control socket
 * and printed; formatting lives in the format-*.ts modules.
 */
import { parseArgs } from 'node:util';
// The client, constants and types only: the API's index also loads the server and metrics.
import { ControlClientError, callControl } from '../api/client.js';
import { ApiDefaults, SOCKET_PATH_ENV } from '../api/constants.js';
import {
  ControlError,
  type ControlMethod,
  type ControlParams,
  type ControlResult,
  type NeighborActionResult,
  type PathView,
  type RibEntryView,
  type RibQuery,
} from '../api/types.js';
import { KindedError } from '../components/errors.js';
import { formatBmp } from './format-bmp.js';
import { formatNeighbors } from './format-neighbor.js';
import { formatOvn, formatOvnProblems, formatSinks } from './format-ovn.js';
import { formatAdjRib, formatRibDetail, formatRibTable } from './format-rib.js';
import { formatSummary } from './format-summary.js';
import { frrNeighbors, frrSummary } from './frr-json.js';
import { CONTROL_OPTIONS, CONTROL_USAGE } from './usage.js';

const SHOW_TOPICS = 'summary, neighbors, rib, advertised, received, ovn, sinks, bmp';

/**
 * `--json` of show rib, advertised and received, keyed by prefix as FRR's `show bgp ... json`
 * is: `{"routes": {"198.18.1.0/24": [path, ...]}}`, prefixes in address order, each path a
 * PathView. Scripts index it by prefix; this shape is part of the CLI's interface.
 */
export function routesJson(entries: readonly RibEntryView[]): {
  routes: Record<string, readonly PathView[]>;
} {
  const routes: Record<string, readonly PathView[]> = {};
  for (const e of entries) routes[e.prefix] = e.paths;
  return { routes };
}

export const EXIT = { OK: 0, FAILED: 1, USAGE: 2 } as const;

export class UsageError extends KindedError<'usage'> {
  constructor(message: string) {
    super('usage', message);
  }
}

/**
 * `--json` (or `--json=frr`): the shapes of FRR's vtysh json for summary, neighbors and the
 * route tables; `--json=native`: the answer exactly as the control socket returned it.
 */
export type JsonShape = 'frr' | 'native';

/** What to ask the speaker and how to print its answer. */
export interface Invocation {
  readonly socket: string;
  /** null: the text tables. */
  readonly json: JsonShape | null;
  readonly method: ControlMethod;
  readonly params: object;
  format(result: unknown): string;
  /** What `--json` prints: FRR's shape where vtysh has one, else the answer; `--json=native` skips it. */
  toJson(result: unknown): unknown;
  /** The exit status the answer calls for: a prefix that is not in the table is a failure. */
  status(result: unknown): number;
}

type Options = ReturnType<typeof readArgs>['values'];

/** `--json` alone means `--json=frr`: parseArgs reads an option as a flag or as a value, not both. */
const JSON_FLAG = '--json';

function readArgs(args: readonly string[]) {
  try {
    return parseArgs({
      args: args.map((a) => (a === JSON_FLAG ? `${JSON_FLAG}=frr` : a)),
      allowPositionals: true,
      strict: true,
      options: {
        socket: { type: 'string' },
        json: { type: 'string' },
        afi: { type: 'string' },
        limit: { type: 'string' },
        message: { type: 'string' },
      },
    });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/** Only the options a subcommand takes; `--socket` and `--json` go with every one. */
function allowOnly(what: string, values: Options, allowed: readonly (keyof Options)[]): void {
  for (const key of Object.keys(values) as (keyof Options)[]) {
    if (key !== 'socket' && key !== 'json' && !allowed.includes(key)) {
      throw new UsageError(`${what} does not take --${key}`);
    }
  }
}

function positionals(what: string, list: readonly string[], min: number, max: number): void {
  if (list.length < min) throw new UsageError(`${what}: missing argument`);
  if (list.length > max) throw new UsageError(`${what}: unexpected argument ${JSON.stringify(list[max])}`);
}

function ribQuery(values: Options, prefix: string | undefined): RibQuery {
  let afi: 4 | 6 | undefined;
  if (values.afi !== undefined) {
    if (values.afi !== '4' && values.afi !== '6') throw new UsageError('--afi must be 4 or 6');
    afi = Number(values.afi) as 4 | 6;
  }
  let limit: number | undefined;
  if (values.limit !== undefined) {
    limit = Number(values.limit);
    if (!/^\d+$/.test(values.limit) || limit < 1) throw new UsageError('--limit must be a positive integer');
  }
  return { ...(prefix !== undefined && { prefix }), ...(afi && { afi }), ...(limit && { limit }) };
}

function jsonShape(value: string | undefined): JsonShape | null {
  if (value === undefined) return null;
  if (value === 'frr' || value === 'native') return value;
  throw new UsageError(`--json=${value}: expected --json (FRR's shape), --json=frr or --json=native`);
}

function invocation<M extends ControlMethod>(
  common: { socket: string; json: JsonShape | null },
  method: M,
  params: ControlParams<M>,
  format: (result: ControlResult<M>) => string,
  status: (result: ControlResult<M>) => number = () => EXIT.OK,
  toJson: (result: ControlResult<M>) => unknown = (r) => r,
): Invocation {
  return {
    ...common,
    method,
    params,
    format: (r) => format(r as ControlResult<M>),
    status: (r) => status(r as ControlResult<M>),
    toJson: (r) => toJson(r as ControlResult<M>),
  };
}

const ACTION_TEXT: Readonly<Record<NeighborActionResult['action'], string>> = {
  reset: 'session reset',
  shutdown: 'shut down',
  enable: 'enabled',
  refresh: 'route refresh requested',
};
const formatAction = (r: NeighborActionResult) => `Neighbor ${r.peer}: ${ACTION_TEXT[r.action]}`;

/** `show …` and `neighbor PEER …` arguments read into what to call; throws UsageError. */
export function parseControlCommand(
  command: 'show' | 'neighbor',
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Invocation {
  const { values, positionals: rest } = readArgs(args);
  const common = {
    socket: values.socket ?? env[SOCKET_PATH_ENV] ?? ApiDefaults.SOCKET_PATH,
    json: jsonShape(values.json),
  };
  if (command === 'neighbor') {
    const [peer, verb, ...extra] = rest;
    if (peer === undefined || verb === undefined)
      throw new UsageError('neighbor: PEER and an action are required');
    positionals(`neighbor ${peer} ${verb}`, extra, 0, 0);
    allowOnly(`neighbor ${verb}`, values, verb === 'shutdown' ? ['message'] : []);
    switch (verb) {
      case 'reset':
        return invocation(common, 'neighbor.reset', { peer }, formatAction);
      case 'shutdown':
        return invocation(
          common,
          'neighbor.shutdown',
          { peer, ...(values.message !== undefined && { message: values.message }) },
          formatAction,
        );
      case 'enable':
        return invocation(common, 'neighbor.enable', { peer }, formatAction);
      case 'refresh':
        return invocation(common, 'neighbor.refresh', { peer }, formatAction);
      default:
        throw new UsageError(
          `neighbor: unknown action ${JSON.stringify(verb)} (reset, shutdown, enable, refresh)`,
        );
    }
  }
  const [what, ...more] = rest;
  switch (what) {
    case 'summary':
      positionals('show summary', more, 0, 0);
      allowOnly('show summary', values, []);
      return invocation(common, 'summary', {}, formatSummary, undefined, (r) => frrSummary(r, Date.now()));
    case 'neighbor':
    case 'neighbors':
      positionals('show neighbors', more, 0, 1);
      allowOnly('show neighbors', values, []);
      return invocation(
        common,
        'neighbors',
        more[0] === undefined ? {} : { peer: more[0] },
        formatNeighbors,
        undefined,
        (r) => frrNeighbors(r, Date.now()),
      );
    case 'rib': {
      positionals('show rib', more, 0, 1);
      allowOnly('show rib', values, ['afi', 'limit']);
      const query = ribQuery(values, more[0]);
      if (query.prefix === undefined)
        return invocation(common, 'rib', query, (r) => formatRibTable(r, query.limit), undefined, routesJson);
      return invocation(
        common,
        'rib',
        query,
        formatRibDetail,
        (r) => (r.length ? EXIT.OK : EXIT.FAILED),
        routesJson,
      );
    }
    case 'advertised':
    case 'received': {
      positionals(`show ${what} PEER`, more, 1, 2);
      allowOnly(`show ${what}`, values, ['afi', 'limit']);
      const [peer, prefix] = more;
      const query = ribQuery(values, prefix);
      return invocation(
        common,
        what,
        { peer, ...query },
        (r) => formatAdjRib(r, what, peer, query.limit),
        undefined,
        routesJson,
      );
    }
    case 'ovn': {
      positionals('show ovn', more, 0, 1);
      allowOnly('show ovn', values, []);
      if (more[0] === undefined) return invocation(common, 'ovn', {}, formatOvn);
      if (more[0] !== 'problems')
        throw new UsageError(`show ovn: unknown ${JSON.stringify(more[0])} (problems)`);
      return invocation(common, 'ovn', {}, formatOvnProblems);
    }
    case 'sinks':
      positionals('show sinks', more, 0, 0);
      allowOnly('show sinks', values, []);
      return invocation(common, 'sinks', {}, formatSinks);
    case 'bmp':
      positionals('show bmp', more, 0, 0);
      allowOnly('show bmp', values, []);
      return invocation(common, 'bmp', {}, formatBmp);
    case undefined:
      throw new UsageError(`show: what to show? (${SHOW_TOPICS})`);
    default:
      throw new UsageError(`show: unknown ${JSON.stringify(what)} (${SHOW_TOPICS})`);
  }
}

export interface CliIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** How the command reaches the speaker: over the socket, or in the speaker itself (serve.ts). */
export type ControlCaller = (socket: string, method: ControlMethod, params: object) => Promise<unknown>;

const overTheSocket: ControlCaller = (socket, method, params) => callControl(socket, method, params as never);

/** Runs a `show` or `neighbor` command; returns the exit status. */
export async function runControlCommand(
  command: 'show' | 'neighbor',
  args: readonly string[],
  io: CliIo,
  call: ControlCaller = overTheSocket,
): Promise<number> {
  let invocation: Invocation;
  try {
    invocation = parseControlCommand(command, args, io.env);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.err(`ovn-bgp-speaker: ${e.message}\n\nUsage:\n${CONTROL_USAGE}\n\n${CONTROL_OPTIONS}`);
    return EXIT.USAGE;
  }
  let result: unknown;
  try {
    result = await call(invocation.socket, invocation.method, invocation.params);
  } catch (e) {
    if (e instanceof ControlError || e instanceof ControlClientError) {
      io.err(`ovn-bgp-speaker: ${e.message}`);
      return EXIT.FAILED;
    }
    throw e;
  }
  if (invocation.json === null) io.out(invocation.format(result));
  else io.out(JSON.stringify(invocation.json === 'native' ? result : invocation.toJson(result), null, 2));
  return invocation.status(result);
}
