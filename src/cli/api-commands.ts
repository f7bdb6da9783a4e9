/**
 * The commands that change a running speaker through its control API (`route`, `peer`),
 * and the generic ones a script uses (`call`, `watch`). Each answer is printed as JSON.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parse as parseYaml } from 'yaml';
import {
  ApiDefaults,
  CONTROL_METHODS,
  ControlClientError,
  ControlError,
  type ControlMethod,
  callControl,
  SOCKET_PATH_ENV,
  type WatchTopic,
  watchControl,
} from '../api/index.js';
import { dumpRequest, mrtRequest } from './mrt-commands.js';
import { EXIT, UsageError } from './show.js';
import { API_USAGE } from './usage.js';

export interface ApiIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Where `peer add -` reads from; default stdin. */
  readonly readFile?: (path: string) => string;
  /** Resolves when the operator wants `watch` to stop (SIGINT); default never. */
  readonly interrupted?: Promise<void>;
}

const MRT_TIMEOUT_MS = 10 * 60 * 1000;

interface Request {
  readonly socket: string;
  readonly method: ControlMethod;
  readonly params: Record<string, unknown>;
}

function readArgs(args: readonly string[]) {
  return parseArgs({
    args: [...args],
    allowPositionals: true,
    options: {
      socket: { type: 'string' },
      'next-hop': { type: 'string' },
      origin: { type: 'string' },
      med: { type: 'string' },
      'local-pref': { type: 'string' },
      community: { type: 'string', multiple: true },
      'large-community': { type: 'string', multiple: true },
      name: { type: 'string' },
    },
  });
}

function integerOption(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text)) throw new UsageError(`--${name} must be a non-negative integer, got ${text}`);
  return Number(text);
}

function routeRequest(words: readonly string[], values: ReturnType<typeof readArgs>['values']) {
  const [action, prefix, ...extra] = words;
  if (extra.length > 0) throw new UsageError(`route: unexpected ${extra.join(' ')}`);
  switch (action) {
    case 'announce': {
      if (!prefix) throw new UsageError('route announce: which prefix?');
      const route = {
        prefix,
        ...(values['next-hop'] !== undefined && { next_hop: values['next-hop'] }),
        ...(values.origin !== undefined && { origin: values.origin }),
        ...(values.med !== undefined && { med: integerOption('med', values.med) }),
        ...(values['local-pref'] !== undefined && {
          local_pref: integerOption('local-pref', values['local-pref']),
        }),
        ...(values.community && { communities: values.community }),
        ...(values['large-community'] && { large_communities: values['large-community'] }),
      };
      return { method: 'route.announce' as const, params: { route } };
    }
    case 'withdraw':
      if (!prefix) throw new UsageError('route withdraw: which prefix?');
      return { method: 'route.withdraw' as const, params: { prefix } };
    case 'list':
      if (prefix) throw new UsageError(`route list: unexpected ${prefix}`);
      return { method: 'routes' as const, params: {} };
    default:
      throw new UsageError('route: announce, withdraw or list?');
  }
}

function peerRequest(words: readonly string[], readFile: (path: string) => string) {
  const [action, arg, ...extra] = words;
  if (extra.length > 0 || !arg) throw new UsageError(`peer ${action ?? ''}: one argument expected`);
  switch (action) {
    case 'add':
    case 'change': {
      let peer: unknown;
      try {
        peer = parseYaml(readFile(arg));
      } catch (e) {
        throw new UsageError(`peer ${action}: cannot read ${arg}: ${(e as Error).message}`);
      }
      return {
        method: action === 'add' ? ('peer.add' as const) : ('peer.change' as const),
        params: { peer },
      };
    }
    case 'remove':
      return { method: 'peer.remove' as const, params: { peer: arg } };
    default:
      throw new UsageError('peer: add, change or remove?');
  }
}

function callRequest(words: readonly string[]) {
  const [method, paramsText, ...extra] = words;
  if (!method || extra.length > 0) throw new UsageError('call: METHOD [PARAMS-JSON]');
  if (!(CONTROL_METHODS as readonly string[]).includes(method)) {
    throw new UsageError(`call: unknown method ${method} (known: ${CONTROL_METHODS.join(', ')})`);
  }
  let params: unknown = {};
  if (paramsText !== undefined) {
    try {
      params = JSON.parse(paramsText);
    } catch {
      throw new UsageError('call: PARAMS must be JSON');
    }
  }
  return { method: method as ControlMethod, params: params as Record<string, unknown> };
}

export type ApiCommand = 'route' | 'peer' | 'call' | 'mrt' | 'dump';

/** Reads the arguments of `route`, `peer`, `call`, `mrt` or `dump` into one control request (pure but for reading a peer file). */
export function parseApiCommand(
  command: ApiCommand,
  args: readonly string[],
  env: ApiIo['env'],
  readFile: (path: string) => string = (p) => readFileSync(p === '-' ? 0 : p, 'utf8'),
): Request {
  let parsed: ReturnType<typeof readArgs>;
  try {
    parsed = readArgs(args);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const { values, positionals } = parsed;
  const socket = values.socket ?? env[SOCKET_PATH_ENV] ?? ApiDefaults.SOCKET_PATH;
  const request =
    command === 'route'
      ? routeRequest(positionals, values)
      : command === 'peer'
        ? peerRequest(positionals, readFile)
        : command === 'mrt'
          ? mrtRequest(positionals, values.name)
          : command === 'dump'
            ? dumpRequest(positionals)
            : callRequest(positionals);
  const own = command === 'mrt' ? ['socket', 'name'] : ['socket'];
  if (command !== 'route' && Object.keys(values).some((k) => !own.includes(k))) {
    throw new UsageError(`${command}: only --socket is an option here`);
  }
  return { socket, ...request };
}

function usage(io: ApiIo, e: UsageError): number {
  io.err(`ovn-bgp-speaker: ${e.message}\n\nUsage:\n${API_USAGE}`);
  return EXIT.USAGE;
}

function failed(io: ApiIo, e: unknown): number {
  if (e instanceof ControlError || e instanceof ControlClientError) {
    io.err(`ovn-bgp-speaker: ${e.message}`);
    return EXIT.FAILED;
  }
  throw e;
}

/** Runs `route`, `peer`, `call`, `mrt` or `dump`; returns the exit status. */
export async function runApiCommand(command: ApiCommand, args: readonly string[], io: ApiIo) {
  let request: Request;
  try {
    request = parseApiCommand(command, args, io.env, io.readFile);
  } catch (e) {
    if (e instanceof UsageError) return usage(io, e);
    throw e;
  }
  try {
    // A dump or an injection of a full table takes longer than a show.
    const slow = command === 'mrt' || command === 'dump';
    const result = await callControl(
      request.socket,
      request.method,
      request.params as never,
      slow ? { timeoutMs: MRT_TIMEOUT_MS } : {},
    );
    io.out(JSON.stringify(result, null, 2));
    return EXIT.OK;
  } catch (e) {
    return failed(io, e);
  }
}

/** `watch`: prints each event as one JSON line until interrupted or the speaker ends the stream. */
export async function runWatchCommand(args: readonly string[], io: ApiIo): Promise<number> {
  let socket: string;
  let topics: WatchTopic[] | undefined;
  try {
    const { values, positionals } = parseArgs({
      args: [...args],
      allowPositionals: true,
      options: { socket: { type: 'string' } },
    });
    socket = values.socket ?? io.env[SOCKET_PATH_ENV] ?? ApiDefaults.SOCKET_PATH;
    for (const t of positionals) {
      if (t !== 'bestpath' && t !== 'sessions')
        throw new UsageError(`watch: unknown topic ${t} (bestpath, sessions)`);
    }
    topics = positionals.length > 0 ? (positionals as WatchTopic[]) : undefined;
  } catch (e) {
    return usage(io, e instanceof UsageError ? e : new UsageError((e as Error).message));
  }
  const open = () => watchControl(socket, topics, (event) => io.out(JSON.stringify(event)));
  let watch = open();
  // A `busy` socket (every slot held) is asked again, as callControl does, until its timeout.
  const deadline = Date.now() + ApiDefaults.CALL_TIMEOUT_MS;
  for (
    let pause: number = ApiDefaults.BUSY_RETRY_MS;
    ;
    pause = Math.min(2 * pause, ApiDefaults.BUSY_RETRY_MAX_MS)
  ) {
    try {
      await watch.started;
      break;
    } catch (e) {
      const busy = e instanceof ControlError && e.code === 'busy';
      if (!busy || deadline - Date.now() <= pause) return failed(io, e);
      await new Promise((resolve) => setTimeout(resolve, pause));
      watch = open();
    }
  }
  await Promise.race([watch.ended, io.interrupted ?? new Promise<void>(() => {})]);
  watch.close();
  return EXIT.OK;
}
