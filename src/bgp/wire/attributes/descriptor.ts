import type { AttrContext } from '../update-context.js';
import type { Writer } from '../writer.js';
import type { MpReach, MutableAttributes, PathAttributes, UpdateAction } from './types.js';

/*
 * The shape of a row of the attribute table (table.ts). Types only, importing nothing that
 * imports the table, so the row kinds (row-kinds.ts) and the table can both read it.
 */

/** What exporting a route's attributes to one peer depends on (RFC 4271 5.1, RFC 4456 8). */
export interface AttrExportContext {
  /** The peer is external. */
  readonly ebgp: boolean;
  /** The route was learned from an external peer. */
  readonly fromEbgp: boolean;
  /** We reflect the route: learned over iBGP and sent to an iBGP peer (RFC 4456 section 8). */
  readonly reflecting: boolean;
  /** eBGP: pass on the MED of a route from another AS anyway ("attribute-unchanged med"). */
  readonly medUnchanged: boolean;
  readonly localAs: number;
  /** RFC 4456 CLUSTER_ID, prepended to CLUSTER_LIST when reflecting. */
  readonly clusterId: number;
  /** LOCAL_PREF sent to iBGP peers for routes that have none. */
  readonly defaultLocalPref: number;
  /** ORIGINATOR_ID of a reflected route that has none: the router id of the peer it came from. */
  readonly sourceRouterId: number;
  /**
   * The next hop the caller chose (RFC 4271 section 5.1.3 and RFC 2545 / 8950 decide it from
   * the session, not from the attribute): NEXT_HOP as a u32, or MP_REACH_NLRI's.
   */
  readonly nextHop: number | MpReach;
}

/**
 * One row per attribute we interpret (BIRD's attribute table, GoBGP's matched pairs): its
 * whole life, from the wire to a peer and to `show`. The update decoder's single loop owns
 * flags, duplicates, lengths and missing-mandatory checks; `check` judges only its own value.
 */
export interface AttrDescriptor {
  readonly code: number;
  readonly name: string;
  /** The field of PathAttributes it fills. */
  readonly field: keyof PathAttributes;
  /** The Optional and Transitive bits this attribute must carry (RFC 4271 section 5). */
  readonly flags: number;
  /**
   * RFC 7606 section 7: what a malformed instance costs. Only MP_REACH/UNREACH reset the
   * session (7.11), and the decoder's loop checks those itself: they have no row.
   */
  readonly onMalformed: Exclude<UpdateAction, 'ok'>;
  /** RFC 4271 section 6.3 subcode for the issue record or the NOTIFICATION. */
  readonly subcode: number;
  /**
   * Scalars are decoded as soon as an attribute set is first seen; lists and paths only when
   * somebody reads them (most are never read before the next hop decides the route).
   */
  readonly lazy: boolean;
  /** True when the value is well-formed. Allocates nothing. */
  check(buf: Uint8Array, pos: number, end: number, ctx: AttrContext): boolean;
  /** Sets the field from a value that `check` accepted. */
  decode(buf: Uint8Array, pos: number, end: number, a: MutableAttributes, ctx: AttrContext): void;
  has(a: PathAttributes): boolean;
  /** Writes the value (not the attribute header). */
  encode(w: Writer, a: PathAttributes, ctx: AttrContext): void;
  /**
   * Sets the attribute on a route sent to a peer (`out`) from the route's own (`a`), or leaves
   * it out: RFC 4271 section 5.1 per attribute, RFC 4456 section 8 when reflecting.
   */
  export(a: PathAttributes, x: AttrExportContext, out: MutableAttributes): void;
  /**
   * Lists whose members each say whether they may leave the AS (RFC 4360 section 6, RFC 5701):
   * the members that may, the value itself when all may, undefined when none may.
   */
  readonly leavingAs?: (a: PathAttributes) => Uint8Array | undefined;
  /** The value as `show` prints it: one text per member of a list, none when absent. */
  format(a: PathAttributes): readonly string[];
}
