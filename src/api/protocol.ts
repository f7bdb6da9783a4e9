/**
 * The control protocol: one JSON object per line each way.
 *
 *   → {"id":1,"method":"neighbors","params":{"peer":"spine1"}}
 *   ← {"id":1,"result":[...]}            or   ← {"id":1,"error":{"code":"unknown-peer","message":"..."}}
 *
 * `id` is echoed as given (a number or a string; null when the request could not be read).
 */
import { CONTROL_API_VERSION } from './constants.js';
import {
  filePathParam,
  mrtNameParam,
  onlyKeys,
  type Params,
  paramsObject,
  peerParam,
  prefixParam,
  ribQueryParams,
  shutdownMessageParam,
  watchTopicsParam,
} from './params.js';
import {
  ControlError,
  type ControlErrorCode,
  type ControlMethod,
  type NeighborActionResult,
  type SpeakerControl,
} from './types.js';

export type RequestId = number | string | null;

export interface ControlRequest {
  readonly id: RequestId;
  readonly method: ControlMethod;
  readonly params: Params;
}

export type ControlResponse =
  | { readonly id: RequestId; readonly result: unknown }
  | { readonly id: RequestId; readonly error: { readonly code: ControlErrorCode; readonly message: string } };

type Handler = (control: SpeakerControl, params: Params) => unknown;

const RIB_KEYS = ['prefix', 'afi', 'limit'] as const;

async function action(
  params: Params,
  kind: NeighborActionResult['action'],
  run: (peer: string) => Promise<void>,
): Promise<NeighborActionResult> {
  const peer = peerParam(params, true);
  await run(peer);
  return { peer, action: kind };
}

/** Each method checks its params, then calls the speaker. */
const HANDLERS: Readonly<Record<ControlMethod, Handler>> = {
  summary: (c, p) => {
    onlyKeys(p, []);
    return c.summary();
  },
  neighbors: (c, p) => {
    onlyKeys(p, ['peer']);
    return c.neighbors(peerParam(p, false));
  },
  rib: (c, p) => {
    onlyKeys(p, RIB_KEYS);
    return c.rib(ribQueryParams(p));
  },
  advertised: (c, p) => {
    onlyKeys(p, ['peer', ...RIB_KEYS]);
    const { peer: _, ...query } = p;
    return c.advertised(peerParam(p, true), ribQueryParams(query));
  },
  received: (c, p) => {
    onlyKeys(p, ['peer', ...RIB_KEYS]);
    const { peer: _, ...query } = p;
    return c.received(peerParam(p, true), ribQueryParams(query));
  },
  'neighbor.reset': (c, p) => {
    onlyKeys(p, ['peer']);
    return action(p, 'reset', (peer) => c.resetNeighbor(peer));
  },
  'neighbor.shutdown': (c, p) => {
    onlyKeys(p, ['peer', 'message']);
    const message = shutdownMessageParam(p);
    return action(p, 'shutdown', (peer) => c.shutdownNeighbor(peer, message));
  },
  'neighbor.enable': (c, p) => {
    onlyKeys(p, ['peer']);
    return action(p, 'enable', (peer) => c.enableNeighbor(peer));
  },
  'neighbor.refresh': (c, p) => {
    onlyKeys(p, ['peer']);
    return action(p, 'refresh', (peer) => c.refreshNeighbor(peer));
  },
  sinks: (c, p) => {
    onlyKeys(p, []);
    return c.sinks();
  },
  ovn: (c, p) => {
    onlyKeys(p, []);
    return c.ovn();
  },
  bmp: (c, p) => {
    onlyKeys(p, []);
    return c.bmp?.() ?? { collectors: [] };
  },
  version: (_c, p) => {
    onlyKeys(p, []);
    return { api: CONTROL_API_VERSION, methods: CONTROL_METHODS };
  },
  'route.announce': (c, p) => {
    onlyKeys(p, ['route']);
    return c.announceRoute(p.route);
  },
  'route.withdraw': (c, p) => {
    onlyKeys(p, ['prefix']);
    return c.withdrawRoute(prefixParam(p));
  },
  routes: (c, p) => {
    onlyKeys(p, []);
    return c.apiRoutes();
  },
  'peer.add': (c, p) => {
    onlyKeys(p, ['peer']);
    return c.editPeer({ op: 'add', peer: p.peer });
  },
  'peer.change': (c, p) => {
    onlyKeys(p, ['peer']);
    return c.editPeer({ op: 'change', peer: p.peer });
  },
  'peer.remove': (c, p) => {
    onlyKeys(p, ['peer']);
    return c.editPeer({ op: 'remove', name: peerParam(p, true) });
  },
  'mrt.dump': (c, p) => {
    onlyKeys(p, ['path']);
    return c.dumpRib(filePathParam(p, 'path', false));
  },
  'mrt.inject': (c, p) => {
    onlyKeys(p, ['name', 'path']);
    return c.injectMrt(mrtNameParam(p), filePathParam(p, 'path', true)!);
  },
  'mrt.withdraw': (c, p) => {
    onlyKeys(p, ['name']);
    return c.withdrawMrt(mrtNameParam(p));
  },
  'mrt.list': (c, p) => {
    onlyKeys(p, []);
    return c.mrtInjections();
  },
  // The connection streams a watch (watch-stream.ts); answered here only for its params' sake.
  watch: (_c, p) => {
    onlyKeys(p, ['topics']);
    return { api: CONTROL_API_VERSION, topics: watchTopicsParam(p) };
  },
};

export const CONTROL_METHODS = Object.keys(HANDLERS) as readonly ControlMethod[];

function isMethod(m: unknown): m is ControlMethod {
  return typeof m === 'string' && Object.hasOwn(HANDLERS, m);
}

function isRequestId(id: unknown): id is RequestId {
  return id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
}

/** A request line read into a request, or the error response to send instead. */
export function parseRequest(line: string): ControlRequest | ControlResponse {
  let msg: unknown;
  try {
    msg = JSON.parse(line);
  } catch {
    return errorResponse(null, new ControlError('bad-request', 'request is not JSON'));
  }
  if (typeof msg !== 'object' || msg === null || Array.isArray(msg)) {
    return errorResponse(null, new ControlError('bad-request', 'request must be a JSON object'));
  }
  const { id = null, method, params } = msg as Record<string, unknown>;
  if (!isRequestId(id)) {
    return errorResponse(null, new ControlError('bad-request', '"id" must be a number or a string'));
  }
  if (!isMethod(method)) {
    const known = CONTROL_METHODS.join(', ');
    return errorResponse(
      id,
      new ControlError('bad-request', `unknown method ${JSON.stringify(method)} (known: ${known})`),
    );
  }
  try {
    return { id, method, params: paramsObject(params) };
  } catch (e) {
    return errorResponse(id, e);
  }
}

export function isResponse(r: ControlRequest | ControlResponse): r is ControlResponse {
  return 'result' in r || 'error' in r;
}

/** Runs one request against the speaker; never throws, every failure becomes an error response. */
export async function dispatch(control: SpeakerControl, request: ControlRequest): Promise<ControlResponse> {
  try {
    const result = await HANDLERS[request.method](control, request.params);
    return { id: request.id, result: result ?? null };
  } catch (e) {
    return errorResponse(request.id, e);
  }
}

/** ControlErrors keep their code; anything else the speaker threw is `internal`. */
export function errorResponse(id: RequestId, e: unknown): ControlResponse {
  if (e instanceof ControlError) return { id, error: { code: e.code, message: e.message } };
  const message = e instanceof Error ? e.message : String(e);
  return { id, error: { code: 'internal', message } };
}

/**
 * A response line in pieces: a long array result (a RIB dump) is serialised `sliceLength`
 * entries at a time, so the writer can yield to the event loop between pieces and keepalives
 * are never late behind a 100 000-prefix answer. Throws, like JSON.stringify, on an entry
 * JSON cannot carry; the first piece holds the first slice, so nothing was sent yet if it does.
 */
export function* encodeResponsePieces(response: ControlResponse, sliceLength: number): Generator<string> {
  if (!('result' in response) || !Array.isArray(response.result) || response.result.length <= sliceLength) {
    yield encodeResponse(response);
    return;
  }
  const items: readonly unknown[] = response.result;
  const head = `{"id":${JSON.stringify(response.id)},"result":[`;
  for (let i = 0; i < items.length; i += sliceLength) {
    // As JSON.stringify writes an array: what it cannot carry (undefined, a function) is null.
    const body = items
      .slice(i, i + sliceLength)
      .map((x) => JSON.stringify(x) ?? 'null')
      .join(',');
    yield `${i === 0 ? head : ','}${body}`;
  }
  yield ']}\n';
}

/** One response line; a result that JSON cannot carry (a bigint, a cycle) becomes an `internal` error. */
export function encodeResponse(response: ControlResponse): string {
  try {
    return `${JSON.stringify(response)}\n`;
  } catch (e) {
    return `${JSON.stringify(errorResponse(response.id, new Error(`result is not JSON: ${(e as Error).message}`)))}\n`;
  }
}
