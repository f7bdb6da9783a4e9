/**
 * Calls the speaker over its control socket: one request, one answer, one connection.
 * API errors come back as ControlError (the speaker's code); failing to reach the speaker or
 * to read its answer is a ControlClientError that says what to check.
 */
import { connect } from 'node:net';
import { KindedError } from '../components/index.js';
import { ApiDefaults, MAX_RESPONSE_BYTES } from './constants.js';
import { LineSplitter } from './framing.js';
import {
  ControlError,
  type ControlErrorCode,
  type ControlMethod,
  type ControlParams,
  type ControlResult,
} from './types.js';

export type ControlClientErrorKind = 'not-running' | 'permission-denied' | 'timeout' | 'protocol';

export class ControlClientError extends KindedError<ControlClientErrorKind> {
  constructor(kind: ControlClientErrorKind, message: string) {
    super(kind, message);
  }
}

export interface CallOptions {
  readonly timeoutMs?: number;
  readonly maxResponseBytes?: number;
}

/** The id of the client's one request; readResponse checks the answer echoes it. */
export const REQUEST_ID = 1;
const ERROR_CODES: readonly ControlErrorCode[] = [
  'unknown-peer',
  'unknown-route',
  'bad-request',
  'not-established',
  'unsupported',
  'internal',
  'timeout',
  'busy',
];

function connectError(path: string, e: NodeJS.ErrnoException): ControlClientError {
  switch (e.code) {
    case 'ENOENT':
    case 'ECONNREFUSED':
      return new ControlClientError(
        'not-running',
        `cannot connect to ${path}: is the speaker running? (${e.code})`,
      );
    case 'EACCES':
    case 'EPERM':
      return new ControlClientError(
        'permission-denied',
        `cannot connect to ${path}: permission denied (run as the speaker's user or root)`,
      );
    default:
      return new ControlClientError('not-running', `cannot connect to ${path}: ${e.message}`);
  }
}

/** The answer line read into a result, or the error it carries. */
export function readResponse(path: string, line: string): unknown {
  let msg: unknown;
  try {
    msg = JSON.parse(line);
  } catch {
    throw new ControlClientError('protocol', `${path} answered something that is not JSON`);
  }
  if (typeof msg !== 'object' || msg === null)
    throw new ControlClientError('protocol', `${path} answered a non-object`);
  const { id, result, error } = msg as {
    id?: unknown;
    result?: unknown;
    error?: { code?: unknown; message?: unknown };
  };
  if (error !== undefined) {
    const code = ERROR_CODES.includes(error?.code as ControlErrorCode)
      ? (error.code as ControlErrorCode)
      : 'internal';
    throw new ControlError(code, typeof error?.message === 'string' ? error.message : 'no message');
  }
  if (id !== REQUEST_ID || !('result' in (msg as object))) {
    throw new ControlClientError('protocol', `${path} answered a different request`);
  }
  return result;
}

/**
 * One request, one answer. A `busy` speaker (every connection slot held, say by a flood of
 * bad clients) is asked again after a short, growing pause until the call's time is up.
 */
export async function callControl<M extends ControlMethod>(
  path: string,
  method: M,
  params: ControlParams<M>,
  options: CallOptions = {},
): Promise<ControlResult<M>> {
  const timeoutMs = options.timeoutMs ?? ApiDefaults.CALL_TIMEOUT_MS;
  const deadline = Date.now() + timeoutMs;
  for (
    let pause: number = ApiDefaults.BUSY_RETRY_MS;
    ;
    pause = Math.min(2 * pause, ApiDefaults.BUSY_RETRY_MAX_MS)
  ) {
    const left = deadline - Date.now();
    try {
      return await callOnce(path, method, params, left, timeoutMs, options.maxResponseBytes);
    } catch (e) {
      const busy = e instanceof ControlError && e.code === 'busy';
      if (!busy || deadline - Date.now() <= pause) throw e;
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}

function callOnce<M extends ControlMethod>(
  path: string,
  method: M,
  params: ControlParams<M>,
  waitMs: number,
  timeoutMs: number,
  maxResponseBytes: number | undefined,
): Promise<ControlResult<M>> {
  const splitter = new LineSplitter(maxResponseBytes ?? MAX_RESPONSE_BYTES);
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    let connected = false;
    let settled = false;
    const finish = (outcome: { result: unknown } | { error: Error }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if ('error' in outcome) reject(outcome.error);
      else resolve(outcome.result as ControlResult<M>);
    };
    const timer = setTimeout(() => {
      const what = connected ? 'no answer from' : 'cannot connect to';
      finish({ error: new ControlClientError('timeout', `${what} ${path} within ${timeoutMs} ms`) });
    }, waitMs);

    socket.once('connect', () => {
      connected = true;
      socket.write(`${JSON.stringify({ id: REQUEST_ID, method, params })}\n`);
    });
    socket.on('data', (chunk: Buffer) => {
      const split = splitter.push(chunk);
      if (split.kind === 'oversize') {
        finish({
          error: new ControlClientError('protocol', `answer from ${path} is larger than the client reads`),
        });
      } else if (split.lines.length > 0) {
        try {
          finish({ result: readResponse(path, split.lines[0]) });
        } catch (error) {
          finish({ error: error as Error });
        }
      }
    });
    socket.once('error', (e: NodeJS.ErrnoException) => {
      finish({
        error: connected
          ? new ControlClientError('protocol', `${path}: ${e.message}`)
          : connectError(path, e),
      });
    });
    socket.once('close', () => {
      finish({ error: new ControlClientError('protocol', `${path} closed the connection before answering`) });
    });
  });
}
