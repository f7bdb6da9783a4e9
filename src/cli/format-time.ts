/** Durations as FRR's peer_uptime prints them in `show bgp summary`. */

const MINUTE = 60;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;

const two = (n: number) => String(n).padStart(2, '0');

/** "00:03:21" under a day, "2d04h05m" under a week, "3w2d04h" beyond. */
export function formatUpDown(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < DAY)
    return `${two(Math.floor(s / HOUR))}:${two(Math.floor((s % HOUR) / MINUTE))}:${two(s % MINUTE)}`;
  if (s < WEEK)
    return `${Math.floor(s / DAY)}d${two(Math.floor((s % DAY) / HOUR))}h${two(Math.floor((s % HOUR) / MINUTE))}m`;
  return `${Math.floor(s / WEEK)}w${Math.floor((s % WEEK) / DAY)}d${two(Math.floor((s % DAY) / HOUR))}h`;
}
