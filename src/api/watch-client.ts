/**
 * Follows a speaker's `watch` stream over its control socket: the result first, then every
 * event, until `close()` or the speaker ends the stream. The client for scripts and tests.
 */
import { connect } from 'node:net';
import { ControlClientError, readResponse } from './client.js';
import { MAX_RESPONSE_BYTES } from './constants.js';
import { LineSplitter } from './framing.js';
import type { ControlResult, WatchEvent, WatchTopic } from './types.js';

const WATCH_ID = 1;

export interface Watch {
  /** The speaker's answer to the watch request; rejects on an error answer or no connection. */
  readonly started: Promise<ControlResult<'watch'>>;
  /** Settles when the stream ends: the speaker closed it, or `close()`. */
  readonly ended: Promise<void>;
  close(): void;
}

export function watchControl(
  path: string,
  topics: readonly WatchTopic[] | undefined,
  onEvent: (event: WatchEvent) => void,
): Watch {
  const socket = connect(path);
  const splitter = new LineSplitter(MAX_RESPONSE_BYTES);
  let started = false;
  let resolveStarted!: (r: ControlResult<'watch'>) => void;
  let rejectStarted!: (e: Error) => void;
  const startedPromise = new Promise<ControlResult<'watch'>>((res, rej) => {
    resolveStarted = res;
    rejectStarted = rej;
  });
  // A caller that only awaits `ended` must not see an unhandled rejection.
  startedPromise.catch(() => {});
  const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const fail = (e: Error) => {
    if (!started) rejectStarted(e);
    socket.destroy();
  };

  socket.once('connect', () => {
    socket.write(`${JSON.stringify({ id: WATCH_ID, method: 'watch', params: topics ? { topics } : {} })}\n`);
  });
  socket.on('data', (chunk: Buffer) => {
    const split = splitter.push(chunk);
    for (const line of split.lines) {
      if (!started) {
        try {
          resolveStarted(readResponse(path, line) as ControlResult<'watch'>);
          started = true;
        } catch (e) {
          fail(e as Error);
          return;
        }
        continue;
      }
      const msg = JSON.parse(line) as { event?: WatchEvent };
      if (msg.event) onEvent(msg.event);
    }
    if (split.kind === 'oversize')
      fail(new ControlClientError('protocol', `a line from ${path} is too long`));
  });
  socket.once('error', (e) =>
    fail(new ControlClientError('not-running', `cannot watch ${path}: ${e.message}`)),
  );
  socket.once('close', () => {
    if (!started)
      rejectStarted(new ControlClientError('protocol', `${path} closed the connection before answering`));
  });
  return { started: startedPromise, ended, close: () => socket.destroy() };
}
