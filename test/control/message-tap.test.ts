import { describe, expect, it } from 'vitest';
import { newMessageStats } from '../../src/bgp/session/stats.js';
import { MessageType } from '../../src/bgp/wire/constants.js';
import { tapMessageStats } from '../../src/control/index.js';

describe('tapMessageStats', () => {
  it('reports every counted message once, by type, and the counts stay readable', () => {
    const stats = newMessageStats();
    stats.received.keepalive = 2; // before the tap: not reported
    const seen: string[] = [];
    tapMessageStats(stats, () => 'p', {
      messageReceived: (peer, type) => seen.push(`${peer} in ${type}`),
      messageSent: (peer, type) => seen.push(`${peer} out ${type}`),
    });
    stats.received.update++;
    stats.sent.update += 3;
    stats.received.keepalive++;
    expect(seen).toEqual([
      `p in ${MessageType.UPDATE}`,
      `p out ${MessageType.UPDATE}`,
      `p out ${MessageType.UPDATE}`,
      `p out ${MessageType.UPDATE}`,
      `p in ${MessageType.KEEPALIVE}`,
    ]);
    expect({ ...stats.received }).toMatchObject({ update: 1, keepalive: 3 });
  });
});
