import { type PathAttributes, type PrefixList, Safi, type UpdateMessage } from '../bgp/wire/index.js';

/** Where the routes of an UPDATE go: the RIB itself, or an import policy in front of it. */
export interface UpdateTarget<C> {
  withdrawList(ctx: C, list: PrefixList): void;
  announceList(ctx: C, list: PrefixList, attrs: PathAttributes): void;
}

/**
 * The one place that says how an UPDATE becomes route changes (RFC 4271 section 9):
 * withdrawals first, then announcements (a prefix at both ends is announced); RFC 7606
 * treat-as-withdraw turns the announcements into withdrawals; families other than IPv4/IPv6
 * unicast (MP_REACH/MP_UNREACH of another SAFI) are left alone.
 */
export function applyUpdateRules<C>(u: UpdateMessage, to: UpdateTarget<C>, ctx: C): void {
  if (u.withdrawn.count > 0) to.withdrawList(ctx, u.withdrawn);
  if (u.mpUnreach && u.mpUnreach.safi === Safi.UNICAST) to.withdrawList(ctx, u.mpUnreach.withdrawn);
  const mpNlri = u.mpNlri && u.attrs?.mpReach?.safi === Safi.UNICAST ? u.mpNlri : null;
  if (u.action === 'treat-as-withdraw' || !u.attrs) {
    to.withdrawList(ctx, u.nlri);
    if (mpNlri) to.withdrawList(ctx, mpNlri);
    return;
  }
  to.announceList(ctx, u.nlri, u.attrs);
  if (mpNlri) to.announceList(ctx, mpNlri, u.attrs);
}
