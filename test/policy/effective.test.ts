import { describe, expect, it } from 'vitest';
import { effectivePolicy, rfc8212Reason } from '../../src/policy/index.js';
import { accepted, attrs, attrs6, policy, run } from './helpers.js';

describe('RFC 8212 default policies', () => {
  it('an eBGP peer without policy receives nothing and sends nothing, and says why', () => {
    const peer = effectivePolicy({ id: '198.18.0.2', ebgp: true });
    const importReason =
      'RFC 8212: no import policy configured for eBGP peer 198.18.0.2: rejecting all routes';
    const exportReason =
      'RFC 8212: no export policy configured for eBGP peer 198.18.0.2: advertising no routes';
    expect(peer.warnings).toEqual([importReason, exportReason]);
    expect(peer.import.rejectsAll).toBe(true);
    expect(peer.export.rejectsAll).toBe(true);
    expect(run(peer.import, '198.18.0.0/24', attrs())).toEqual({ accept: false, reason: importReason });
    expect(run(peer.export, '2001:db8::/32', attrs6())).toEqual({ accept: false, reason: exportReason });
    expect(rfc8212Reason('198.18.0.2', 'import')).toBe(importReason);
  });

  it('an empty policy list counts as none', () => {
    const peer = effectivePolicy({ id: 'spine1', ebgp: true, import: [], export: [] });
    expect(peer.import.rejectsAll && peer.export.rejectsAll).toBe(true);
    expect(peer.warnings).toHaveLength(2);
  });

  it('only the direction without policy is closed', () => {
    const p = policy([{ action: 'accept' }]);
    const peer = effectivePolicy({ id: 'spine1', ebgp: true, import: [p] });
    expect(peer.import).toBe(p);
    expect(peer.import.rejectsAll).toBe(false);
    expect(run(peer.import, '198.18.0.0/24', attrs()).accept).toBe(true);
    expect(peer.export.rejectsAll).toBe(true);
    expect(peer.warnings).toEqual([
      'RFC 8212: no export policy configured for eBGP peer spine1: advertising no routes',
    ]);
  });

  it('an iBGP peer without policy accepts and sends everything unchanged', () => {
    const peer = effectivePolicy({ id: 'rr1', ebgp: false });
    expect(peer.warnings).toEqual([]);
    expect(peer.import.acceptsAll && peer.export.acceptsAll).toBe(true);
    const a = attrs();
    const r = run(peer.import, '198.18.0.0/24', a);
    expect(r).toEqual({ accept: true, attrs: a, nextHop: 'default' });
    expect(accepted(r)).toBe(a);
    expect(run(peer.import, '198.18.1.0/24', a)).toBe(r);
    expect(accepted(run(peer.export, '198.18.1.0/24', a))).toBe(a);
  });

  it('an iBGP peer with a policy uses it', () => {
    const p = policy([]);
    const peer = effectivePolicy({ id: 'rr1', ebgp: false, export: [p] });
    expect(peer.export).toBe(p);
    expect(run(peer.export, '198.18.0.0/24', attrs()).accept).toBe(false);
  });
});
