import { describe, expect, it } from 'vitest';
import type { Negotiated } from '../../src/bgp/wire/negotiate.js';
import { silentLogger } from '../../src/components/index.js';
import { RestartDeferral } from '../../src/routing/index.js';
import { FakeScheduler } from '../bgp/session/support.js';

// RFC 4724 section 4.1 on our side: selection waits for every peer's End-of-RIB, or a timer.

const v4 = { afi: 1, safi: 1 };
const v6 = { afi: 2, safi: 1 };

function negotiated(gr: { restartState: boolean } | null, families = [v4, v6]): Negotiated {
  return {
    families,
    gracefulRestart: gr && {
      restartState: gr.restartState,
      notification: true,
      notificationExchanged: true,
      restartTime: 120,
      families: families.map((f) => ({ ...f, forwardingState: true })),
    },
  } as unknown as Negotiated;
}

function setup(peers: string[], waitForOvn = false, seconds = 120) {
  const clock = new FakeScheduler();
  const done: string[] = [];
  const d = new RestartDeferral({ peers, waitForOvn, seconds }, { clock, log: silentLogger }, (why) =>
    done.push(why),
  );
  return { d, clock, done };
}

describe('RestartDeferral', () => {
  it('waits for every peer’s End-of-RIB for every family it negotiated', () => {
    const { d, done, clock } = setup(['a', 'b']);
    d.established('a', negotiated({ restartState: false }));
    d.endOfRib('a', 1, 1);
    d.endOfRib('a', 2, 1);
    expect(done).toEqual([]);
    expect(d.status().peers).toEqual(['b']);
    d.established('b', negotiated({ restartState: false }, [v4]));
    // A family it did not negotiate, or another SAFI, counts for nothing.
    d.endOfRib('b', 2, 1);
    d.endOfRib('b', 1, 2);
    expect(done).toEqual([]);
    d.endOfRib('b', 1, 1);
    expect(done).toEqual(['every peer sent its End-of-RIBs']);
    expect(d.finished).toBe(true);
    expect(clock.pending()).toEqual([]);
  });

  it('does not wait for peers without graceful restart; waits for those with the R bit too', () => {
    const { d, done } = setup(['plain', 'restarting']);
    d.established('plain', negotiated(null));
    expect(done).toEqual([]);
    // FRR sets R in every OPEN with `bgp graceful-restart`: its routes are still to come.
    d.established('restarting', negotiated({ restartState: true }));
    expect(done).toEqual([]);
    d.endOfRib('restarting', 1, 1);
    d.endOfRib('restarting', 2, 1);
    expect(done).toHaveLength(1);
  });

  it('a peer that never comes, or never sends End-of-RIB, is waited for until the timer', () => {
    const { d, done, clock } = setup(['a', 'down'], false, 5);
    d.established('a', negotiated({ restartState: false }));
    expect(d.status()).toEqual({ peers: ['a', 'down'], ovn: false, deadline: 5000 });
    clock.advance(4999);
    expect(done).toEqual([]);
    clock.advance(1);
    expect(done).toEqual(['deferral timer (5 s) expired']);
    // Nothing more once done.
    d.endOfRib('a', 1, 1);
    d.removed('down');
    expect(done).toHaveLength(1);
  });

  it('a peer that comes back again waits for its new session’s End-of-RIBs', () => {
    const { d, done } = setup(['a']);
    d.established('a', negotiated({ restartState: false }));
    d.endOfRib('a', 1, 1);
    d.established('a', negotiated({ restartState: false }));
    d.endOfRib('a', 2, 1);
    expect(done).toEqual([]);
    d.endOfRib('a', 1, 1);
    expect(done).toHaveLength(1);
  });

  it('waits for OVN’s first derivation too when OVN is configured; a removed peer is not waited for', () => {
    const { d, done } = setup(['gone'], true);
    d.removed('gone');
    expect(done).toEqual([]);
    expect(d.status().ovn).toBe(true);
    d.ovnReady();
    expect(done).toHaveLength(1);
  });

  it('with no peer to wait for and no OVN it is done at once; a cancelled one never calls back', () => {
    expect(setup([]).done).toHaveLength(1);
    const { d, done, clock } = setup(['a'], false, 1);
    d.cancel();
    clock.advance(5000);
    expect(done).toEqual([]);
  });
});
