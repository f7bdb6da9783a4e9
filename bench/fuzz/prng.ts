/**
 * A small seeded generator (mulberry32), so a fuzz case is the same bytes every time its seed
 * is given again. Not for anything but test inputs.
 */
export class Prng {
  #s: number;

  constructor(seed: number) {
    this.#s = seed >>> 0;
  }

  /** Uniform in [0, 2^32). */
  u32(): number {
    this.#s = (this.#s + 0x6d2b79f5) >>> 0;
    let t = this.#s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** Uniform integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + (this.u32() % (hi - lo + 1));
  }

  pick<T>(list: readonly T[]): T {
    if (list.length === 0) throw new Error('pick from an empty list');
    return list[this.u32() % list.length]!;
  }

  chance(p: number): boolean {
    return this.u32() / 2 ** 32 < p;
  }
}

/** The seed of case `index` of lane `lane` in a run seeded with `run`: independent of the other lanes. */
export function caseSeed(run: number, lane: number, index: number): number {
  const p = new Prng((run ^ Math.imul(lane + 1, 0x9e3779b1)) >>> 0);
  for (let i = 0; i < 3; i++) p.u32();
  return (p.u32() ^ Math.imul(index + 1, 0x85ebca6b)) >>> 0;
}
