import { grown } from './grow.js';

/**
 * Finds an object equal by content to one already held, for tables that intern by content.
 * `add` and `remove` keep it in step with the table's ids.
 */
export interface ContentIndex<T> {
  /** The id of a held object equal to `v`, if any. */
  find(v: T): number | undefined;
  /** `v` is held under `id` now (called right after a `find(v)` that found nothing). */
  add(id: number, v: T): void;
  /** The object under `id` is released. */
  remove(id: number): void;
}

/**
 * Numbers shared objects (attribute sets) with small ids and counts references to them, so
 * the RIBs store a 4-byte id per route in a typed array instead of a pointer, and an entry
 * is forgotten the moment no route uses it. Optionally interns by content: two equal
 * objects built apart get one id and the first object stays the canonical one.
 */
export class InternTable<T extends object> {
  private objects: (T | undefined)[] = [];
  private readonly byObject = new Map<T, number>();
  private readonly content: ContentIndex<T> | null;
  private refs = new Int32Array(64);
  private free: number[] = [];
  private live = 0;
  /** The last object interned and its id: runs of routes share one object, so skip the Map. */
  private lastObject: T | undefined;
  private lastId = -1;

  constructor(content?: ContentIndex<T>) {
    this.content = content ?? null;
  }

  /** Distinct objects held. */
  get size(): number {
    return this.live;
  }

  /**
   * The id of `v` (or of an equal object when interning by content). A new entry starts with
   * no references: take one with `ref` before anything else can drop it.
   */
  intern(v: T): number {
    // Still live under that id? (It may have been released and the id reused since.)
    if (v === this.lastObject && this.objects[this.lastId] === v) return this.lastId;
    const known = this.idOf(v);
    if (known !== undefined) {
      this.lastObject = v;
      this.lastId = known;
      return known;
    }
    if (this.content) {
      const same = this.content.find(v);
      if (same !== undefined) return same;
    }
    const id = this.free.length ? this.free.pop()! : this.objects.length;
    if (id === this.objects.length) this.objects.push(v);
    else this.objects[id] = v;
    if (id >= this.refs.length) {
      this.refs = grown(this.refs, this.refs.length * 2);
      this.growColumns(this.refs.length);
    }
    this.refs[id] = 0;
    this.setId(v, id);
    this.content?.add(id, v);
    this.live++;
    this.added(id, v);
    return id;
  }

  /** The object behind a live id. */
  get(id: number): T {
    const v = this.objects[id];
    if (v === undefined) throw new Error(`intern table: id ${id} is not live`);
    return v;
  }

  has(id: number): boolean {
    return id >= 0 && this.objects[id] !== undefined;
  }

  refCount(id: number): number {
    return this.refs[id];
  }

  ref(id: number): void {
    this.refs[id]++;
  }

  /** Drops one reference; the entry is forgotten when none is left. */
  unref(id: number): void {
    if (--this.refs[id] > 0) return;
    if (this.refs[id] < 0) throw new Error(`intern table: id ${id} released more often than taken`);
    const v = this.objects[id]!;
    this.clearId(v);
    this.content?.remove(id);
    this.objects[id] = undefined;
    this.free.push(id);
    this.live--;
    this.freed(id);
  }

  /** The id this table gave `v`, if any (subclasses may keep it on the object instead). */
  protected idOf(v: T): number | undefined {
    return this.byObject.get(v);
  }

  protected setId(v: T, id: number): void {
    this.byObject.set(v, id);
  }

  /** Forgets the id this table gave `v`; false when the Map did not hold it. */
  protected clearId(v: T): boolean {
    return this.byObject.delete(v);
  }

  /** The object held under `id`, if any (no throw, unlike `get`). */
  protected heldAt(id: number): T | undefined {
    return this.objects[id];
  }

  /** Subclasses keep columns per id: called when ids may reach `capacity`. */
  protected growColumns(_capacity: number): void {}
  protected added(_id: number, _v: T): void {}
  protected freed(_id: number): void {}

  /** Current id capacity. */
  protected get capacity(): number {
    return this.refs.length;
  }
}
