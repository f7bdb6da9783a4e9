import type { Socket } from 'node:net';

/** Resolves when `socket` can take more (drain) or is gone (close), whichever comes first. */
export function drained(socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      socket.off('drain', done);
      socket.off('close', done);
      resolve();
    };
    socket.on('drain', done);
    socket.on('close', done);
  });
}
