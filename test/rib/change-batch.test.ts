import { describe, expect, it } from 'vitest';
import { Afi } from '../../src/bgp/wire/constants.js';
import { BestPathReason, ChangeBatch, Rib } from '../../src/rib/index.js';
import { attrs, EBGP_A, EBGP_B, LOCAL_AS, ROUTER_ID } from './routes.js';

describe('ChangeBatch.soleSource', () => {
  const rib = new Rib({ localAs: LOCAL_AS, routerId: ROUTER_ID });
  const a = rib.addPeer(EBGP_A).source;
  const b = rib.addPeer(EBGP_B).source;
  const words = Uint32Array.of(0xc6120100);
  const add = (batch: ChangeBatch, source: typeof a) =>
    batch.pushAdd(Afi.IPV4, words, 0, 24, attrs([65001]), source, 0, BestPathReason.FIRST, null);

  it('names the source every change shares, and none once two differ or the batch is emptied', () => {
    const batch = new ChangeBatch();
    expect(batch.soleSource).toBeNull();
    add(batch, a);
    batch.pushWithdraw(Afi.IPV4, words, 0, 24, a);
    expect(batch.soleSource).toBe(a);
    add(batch, b);
    expect(batch.soleSource).toBeNull();
    // Back to one source does not bring it back: the batch still holds b's change.
    add(batch, a);
    expect(batch.soleSource).toBeNull();
    batch.reset();
    expect(batch.soleSource).toBeNull();
    batch.pushWithdraw(Afi.IPV4, words, 0, 24, b);
    expect(batch.soleSource).toBe(b);
  });
});
