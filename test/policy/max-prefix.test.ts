import { describe, expect, it } from 'vitest';
import { Afi, CeaseSubcode, ErrorCode, Safi } from '../../src/bgp/wire/constants.js';
import {
  checkMaxPrefixConfig,
  INITIAL_MAX_PREFIX_STATE,
  type MaxPrefixAction,
  type MaxPrefixConfig,
  type MaxPrefixFamily,
  MaxPrefixGuard,
  maxPrefixData,
  PolicyError,
  stepMaxPrefix,
} from '../../src/policy/index.js';

const V4: MaxPrefixFamily = { afi: Afi.IPV4, safi: Safi.UNICAST };
const V6: MaxPrefixFamily = { afi: Afi.IPV6, safi: Safi.UNICAST };

/** The action types for a sequence of counts. */
function trace(config: MaxPrefixConfig, counts: number[], family = V4): MaxPrefixAction[] {
  const guard = new MaxPrefixGuard(config, family);
  return counts.map((n) => guard.update(n));
}
const types = (actions: MaxPrefixAction[]) =>
  actions.map((a) => (a.type === 'warn' ? `warn:${a.reason}` : a.type));

describe('max-prefix', () => {
  it('warns once past the threshold (75% by default), then ceases past the limit', () => {
    const actions = trace({ limit: 100 }, [10, 75, 76, 80, 100, 101, 150]);
    expect(types(actions)).toEqual(['none', 'none', 'warn:threshold', 'none', 'none', 'cease', 'none']);
    expect(actions[2]).toMatchObject({
      count: 76,
      limit: 100,
      message: '76 IPV4 UNICAST prefixes exceed 75% of the limit of 100',
    });
  });

  it('sends Cease / Maximum Number of Prefixes Reached with AFI, SAFI and the limit (RFC 4486 section 4)', () => {
    const cease = trace({ limit: 10000 }, [10001], V6)[0];
    expect(cease).toMatchObject({
      type: 'cease',
      code: ErrorCode.CEASE,
      subcode: CeaseSubcode.MAXIMUM_NUMBER_OF_PREFIXES_REACHED,
      count: 10001,
      limit: 10000,
    });
    if (cease.type !== 'cease') throw new Error('no cease');
    expect([...cease.data]).toEqual([0x00, 0x02, 0x01, 0x00, 0x00, 0x27, 0x10]);
    expect(cease.restartAfterSeconds).toBeUndefined();
    expect(cease.message).toBe(
      '10001 IPV6 UNICAST prefixes exceed the limit of 10000: closing the session (RFC 4486 Cease/1)',
    );
    expect(maxPrefixData(V4, 0xffffffff)).toEqual(Uint8Array.of(0, 1, 1, 0xff, 0xff, 0xff, 0xff));
  });

  it('asks for a restart after the configured time', () => {
    const cease = trace({ limit: 5, restartAfterSeconds: 300 }, [6])[0];
    expect(cease).toMatchObject({ type: 'cease', restartAfterSeconds: 300 });
    expect(cease.type === 'cease' && cease.message).toContain('restart in 300 s');
  });

  it('in warning-only mode warns at the threshold and at the limit, once each', () => {
    const actions = trace({ limit: 100, warningOnly: true }, [80, 90, 101, 200, 300]);
    expect(types(actions)).toEqual(['warn:threshold', 'none', 'warn:limit', 'none', 'none']);
    expect(actions[2]).toMatchObject({
      message: '101 IPV4 UNICAST prefixes exceed the limit of 100 (warning only)',
    });
  });

  it('warns again only after the count fell back below the mark', () => {
    const actions = trace({ limit: 100, warningOnly: true }, [80, 50, 80, 101, 99, 101, 10, 101]);
    expect(types(actions)).toEqual([
      'warn:threshold',
      'none',
      'warn:threshold',
      'warn:limit',
      'none',
      'warn:limit',
      'none',
      'warn:limit',
    ]);
  });

  it('a jump straight past the limit ceases without a threshold warning first', () => {
    expect(types(trace({ limit: 10 }, [0, 500]))).toEqual(['none', 'cease']);
  });

  it('uses the configured threshold and FRR rounding (limit x percent / 100, rounded down)', () => {
    expect(types(trace({ limit: 10, warningThresholdPercent: 50 }, [5, 6]))).toEqual([
      'none',
      'warn:threshold',
    ]);
    expect(types(trace({ limit: 3, warningThresholdPercent: 50 }, [1, 2]))).toEqual([
      'none',
      'warn:threshold',
    ]);
    expect(types(trace({ limit: 10, warningThresholdPercent: 100 }, [10, 11]))).toEqual(['none', 'cease']);
  });

  it('stays quiet after a cease until reset, then starts afresh', () => {
    const guard = new MaxPrefixGuard({ limit: 2 }, V4);
    expect(guard.update(3).type).toBe('cease');
    expect(guard.update(3).type).toBe('none');
    expect(guard.update(0).type).toBe('none');
    expect(guard.state.ceased).toBe(true);
    guard.reset();
    expect(guard.state).toEqual(INITIAL_MAX_PREFIX_STATE);
    expect(guard.update(3).type).toBe('cease');
  });

  it('is a pure step function underneath', () => {
    const r1 = stepMaxPrefix({ limit: 4 }, V4, INITIAL_MAX_PREFIX_STATE, 4);
    expect(r1.action.type).toBe('warn');
    const again = stepMaxPrefix({ limit: 4 }, V4, INITIAL_MAX_PREFIX_STATE, 4);
    expect(again).toEqual(r1);
    expect(INITIAL_MAX_PREFIX_STATE).toEqual({ thresholdWarned: false, limitExceeded: false, ceased: false });
  });

  const bad: [string, MaxPrefixConfig, string][] = [
    ['a zero limit', { limit: 0 }, 'maxPrefix.limit'],
    ['a fractional limit', { limit: 1.5 }, 'maxPrefix.limit'],
    ['a threshold of 0%', { limit: 10, warningThresholdPercent: 0 }, 'maxPrefix.warningThresholdPercent'],
    [
      'a threshold above 100%',
      { limit: 10, warningThresholdPercent: 101 },
      'maxPrefix.warningThresholdPercent',
    ],
    ['a restart of 0 s', { limit: 10, restartAfterSeconds: 0 }, 'maxPrefix.restartAfterSeconds'],
    ['warningOnly not a boolean', { limit: 10, warningOnly: 'yes' as never }, 'maxPrefix.warningOnly'],
  ];
  for (const [what, config, path] of bad) {
    it(`refuses ${what}`, () => {
      expect(() => checkMaxPrefixConfig(config)).toThrow(PolicyError);
      try {
        checkMaxPrefixConfig(config);
      } catch (e) {
        expect((e as PolicyError).path).toBe(path);
      }
    });
  }
});
