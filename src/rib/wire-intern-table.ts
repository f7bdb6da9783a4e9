import { type PathAttributes, WireAttributes } from '../bgp/wire/index.js';
import { InternTable } from './intern-table.js';

/**
 * An intern table of attribute sets that keeps a wire-backed set's id on the set itself
 * (`internId`) when no table has numbered it there yet: a full table's 100k new sets would
 * otherwise grow a Map entry by entry. Any other set uses the Map. The set does not say which
 * table numbered it: a table whose slot `internId` holds the set did (two tables that hold a
 * set under the same number are both right to read it), and a table forgets a set through its
 * Map first, so it never clears a number another table wrote.
 */
export class WireInternTable extends InternTable<PathAttributes> {
  protected override idOf(v: PathAttributes): number | undefined {
    if (v instanceof WireAttributes) {
      const id = v.internId;
      if (id >= 0 && this.heldAt(id) === v) return id;
    }
    return super.idOf(v);
  }

  protected override setId(v: PathAttributes, id: number): void {
    if (v instanceof WireAttributes && v.internId < 0) v.internId = id;
    else super.setId(v, id);
  }

  protected override clearId(v: PathAttributes): boolean {
    if (super.clearId(v)) return true;
    if (v instanceof WireAttributes && v.internId >= 0 && this.heldAt(v.internId) === v) {
      v.internId = -1;
      return true;
    }
    return false;
  }
}
