import { describe, expect, it } from 'vitest';
import { resolveFsmConfig } from '../../src/bgp/fsm/index.js';
import { idleHoldSeconds, nextDampingLevel } from '../../src/bgp/fsm/timers.js';
import type { PeerConfig } from '../../src/config/index.js';
import { sessionPeerInit } from '../../src/speaker/session-init.js';
import { parse, problemLines, SPEAKER } from './support.js';

const PEER = `peers:
  - name: tor-a
    peer_ip: 198.18.1.2
    remote_as: 65001
`;

function peerOf(text: string): PeerConfig {
  return parse(text).config.peers[0];
}

/** The waits after `n` consecutive resets, as the FSM will arm them for this peer. */
function schedule(p: PeerConfig, n = 8): number[] {
  const fsm = resolveFsmConfig(sessionPeerInit(p));
  const out: number[] = [];
  let level = 0;
  for (let i = 0; i < n; i++) {
    out.push(idleHoldSeconds(fsm, level));
    level = nextDampingLevel(fsm, level);
  }
  return out;
}

describe('reconnect back-off (idle_hold_time, max_idle_hold_time, idle_hold_reset_time)', () => {
  it('defaults to 5 s doubling to 120 s, forgiven after 300 s Established', () => {
    const p = peerOf(`${SPEAKER}${PEER}`);
    expect(schedule(p)).toEqual([5, 10, 20, 40, 80, 120, 120, 120]);
    expect(resolveFsmConfig(sessionPeerInit(p)).dampResetTime).toBe(300);
  });

  it('peers inherit the speaker’s settings and may override them', () => {
    const text = `${SPEAKER}  idle_hold_time: 2\n  max_idle_hold_time: 16\n  idle_hold_reset_time: 60\n${PEER}  - name: tor-b\n    peer_ip: 198.18.1.3\n    remote_as: 65001\n    idle_hold_time: 30\n`;
    const [a, b] = parse(text).config.peers;
    expect(schedule(a, 5)).toEqual([2, 4, 8, 16, 16]);
    expect(resolveFsmConfig(sessionPeerInit(a)).dampResetTime).toBe(60);
    // A wait above the inherited cap raises the cap to it: a fixed 30 s.
    expect(schedule(b, 3)).toEqual([30, 30, 30]);
  });

  it('max_idle_hold_time equal to idle_hold_time is a fixed wait', () => {
    const p = peerOf(`${SPEAKER}${PEER}    idle_hold_time: 10\n    max_idle_hold_time: 10\n`);
    expect(schedule(p, 4)).toEqual([10, 10, 10, 10]);
    expect(resolveFsmConfig(sessionPeerInit(p)).dampPeerOscillations).toBe(false);
  });

  it('idle_hold_time 0 turns the wait and the back-off off', () => {
    const p = peerOf(`${SPEAKER}${PEER}    idle_hold_time: 0\n`);
    expect(schedule(p, 4)).toEqual([0, 0, 0, 0]);
  });

  it('names the field and the value when the cap is below the wait', () => {
    expect(problemLines(`${SPEAKER}${PEER}    idle_hold_time: 30\n    max_idle_hold_time: 20\n`)).toEqual([
      'config.yaml:10:5 peers[0].max_idle_hold_time: must be at least idle_hold_time 30, got 20',
    ]);
    expect(problemLines(`${SPEAKER}  idle_hold_time: -1\n`)).toEqual([
      'config.yaml:5:3 speaker.idle_hold_time: expected a whole number of seconds 0..65535, got -1',
    ]);
  });
});
