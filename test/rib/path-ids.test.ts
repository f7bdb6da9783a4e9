import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FIRST_SENT_PATH_ID, PathIds, pathKey } from '../../src/rib/path-ids.js';

describe('PathIds', () => {
  it('gives each path the lowest free id and keeps it while the path stays', () => {
    const ids = new PathIds();
    expect(ids.assign('a', 1)).toBe(FIRST_SENT_PATH_ID);
    expect(ids.assign('b', 1)).toBe(2);
    expect(ids.assign('a', 2)).toBe(1);
    expect(ids.idOf('b')).toBe(2);
  });

  it('does not hand out an id again in the turn its withdrawal is packed, only after', () => {
    const ids = new PathIds();
    ids.assign('a', 1);
    ids.assign('b', 1);
    expect(ids.release('a', 5)).toBe(1);
    expect(ids.assign('c', 5)).toBe(3);
    expect(ids.assign('d', 6)).toBe(1);
  });

  it('releasing a path it does not know is a no-op', () => {
    const ids = new PathIds();
    expect(ids.release('x', 1)).toBeUndefined();
    expect(ids.size).toBe(0);
  });

  it('keys a path by where it came from and the id it came with', () => {
    expect(pathKey('tor-a', 0)).not.toBe(pathKey('tor-a', 1));
    expect(pathKey('tor-a', 1)).not.toBe(pathKey('tor-b', 1));
  });

  it('random add/remove turns: ids unique, stable for surviving paths, never reused in the turn freed', () => {
    const op = fc.record({ add: fc.boolean(), path: fc.integer({ min: 0, max: 7 }) });
    fc.assert(
      fc.property(fc.array(fc.array(op, { maxLength: 6 }), { maxLength: 30 }), (turns) => {
        const ids = new PathIds();
        const held = new Map<string, number>();
        turns.forEach((turn, gen) => {
          const freed = new Set<number>();
          for (const { add, path } of turn) {
            const key = `p${path}`;
            if (add) {
              const id = ids.assign(key, gen);
              if (held.has(key)) expect(id).toBe(held.get(key));
              else expect(freed.has(id)).toBe(false);
              held.set(key, id);
            } else {
              const id = ids.release(key, gen);
              expect(id).toBe(held.get(key));
              if (id !== undefined) freed.add(id);
              held.delete(key);
            }
          }
          const values = [...held.values()];
          expect(new Set(values).size).toBe(values.length);
          expect(Object.fromEntries(ids.entries())).toEqual(Object.fromEntries(held));
        });
      }),
    );
  });
});
