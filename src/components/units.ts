/** Milliseconds per second: timers run in milliseconds, protocols and configuration speak seconds. */
export const MS_PER_SECOND = 1000;
