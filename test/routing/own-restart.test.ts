import { describe, expect, it } from 'vitest';
import { Afi } from '../../src/bgp/wire/constants.js';
import type { Negotiated } from '../../src/bgp/wire/negotiate.js';
import { silentLogger } from '../../src/components/index.js';
import {
  advertisedGracefulRestart,
  OwnRestart,
  type OwnRestartComponents,
  type RouteFlow,
  type SessionExports,
} from '../../src/routing/index.js';
import { FakeScheduler } from '../bgp/session/support.js';

// RFC 4724 section 4.1, our side: what waits while we restart, and what our OPENs say.

const GR = { enabled: true, restartTime: 120 };

function setup(peers: string[]) {
  const clock = new FakeScheduler();
  const steps: string[] = [];
  const exports = {
    hold: () => steps.push('hold exports'),
    release: () => steps.push('release exports'),
  } as unknown as SessionExports;
  const components: OwnRestartComponents = {
    clock,
    log: silentLogger,
    flow: { flush: () => steps.push('flush') } as unknown as RouteFlow,
    exports,
    releaseSinks: () => steps.push('release sinks'),
  };
  const restart = new OwnRestart(
    { peers, waitForOvn: false, seconds: 5, kept: new Set([Afi.IPV4]) },
    components,
  );
  return { clock, steps, restart };
}

const turn = () => new Promise((r) => setImmediate(r));

describe('OwnRestart', () => {
  it('holds the sessions at once, then decides, releases the sinks and the sessions a turn after the last End-of-RIB', async () => {
    const { steps, restart } = setup(['a']);
    expect(steps).toEqual(['hold exports']);
    restart.established('a', {
      families: [{ afi: 1, safi: 1 }],
      gracefulRestart: { restartTime: 120, families: [] },
    } as unknown as Negotiated);
    restart.endOfRib('a', 1, 1);
    expect(restart.active).toBe(true);
    await turn();
    expect(steps).toEqual(['hold exports', 'flush', 'release sinks', 'release exports']);
    expect(restart.active).toBe(false);
  });

  it('ends on the deferral timer, and a cancel before the end releases nothing', async () => {
    const timed = setup(['a']);
    timed.clock.advance(5000);
    await turn();
    expect(timed.steps.at(-1)).toBe('release exports');
    const cancelled = setup(['a']);
    cancelled.clock.advance(5000);
    cancelled.restart.cancel();
    await turn();
    expect(cancelled.steps).toEqual(['hold exports']);
  });

  it('advertises R while restarting and F only for what the kernel kept, then F for every family', async () => {
    const { restart } = setup([]);
    expect(advertisedGracefulRestart(GR, true, restart)).toEqual({
      restartTime: 120,
      restarting: true,
      forwarding: new Set(['ipv4-unicast']),
    });
    await turn();
    expect(advertisedGracefulRestart(GR, true, restart)).toEqual({
      restartTime: 120,
      restarting: false,
      forwarding: new Set(['ipv4-unicast', 'ipv6-unicast']),
    });
    expect(advertisedGracefulRestart(GR, false, null)?.forwarding).toEqual(new Set());
    expect(advertisedGracefulRestart({ ...GR, enabled: false }, true, restart)).toBeNull();
  });
});
