import { type PathAttributes, WireAttributes } from '../bgp/wire/index.js';
import { InternTable } from './intern-table.js';

/**
 * An intern table of attribute sets that keeps a wire-backed set's id on the set itself
 * (`internOwner`, `internId`) when this table is the first to number it: a full table's
 * 100k new sets would otherwise grow a Map entry by entry. Any other set uses the Map.
 */
export class WireInternTable extends InternTable<PathAttributes> {
  protected override idOf(v: PathAttributes): number | undefined {
    if (v instanceof WireAttributes && v.internOwner === this) return v.internId;
    return super.idOf(v);
  }

  protected override setId(v: PathAttributes, id: number): void {
    if (v instanceof WireAttributes && v.internOwner === null) {
      v.internOwner = this;
      v.internId = id;
    } else {
      super.setId(v, id);
    }
  }

  protected override clearId(v: PathAttributes): void {
    if (v instanceof WireAttributes && v.internOwner === this) {
      v.internOwner = null;
      v.internId = -1;
    } else {
      super.clearId(v);
    }
  }
}
