/**
 * Wall-clock milliseconds with sub-millisecond resolution. Every process of the benchmark
 * (the runner, the replayer, the counter, our speaker) stamps events with it, so a time seen
 * in one process can be compared with a time seen in another on the same machine.
 */
export const wallClock = (): number => performance.timeOrigin + performance.now();

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
