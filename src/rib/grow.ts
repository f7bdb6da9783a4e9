type Growable = Int32Array | Int16Array | Uint32Array | Uint8Array | Float64Array;

/** A copy of `a` with room for `cap` elements (the RIB's columns grow by doubling). */
export function grown<T extends Growable>(a: T, cap: number): T {
  const b = new (a.constructor as new (n: number) => T)(cap);
  b.set(a);
  return b;
}
