import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { problemLines, SPEAKER } from './support.js';

/** A speaker with one eBGP peer whose `bfd` is the given YAML value; extra top-level text after. */
function withBfd(value: string, extra = ''): string {
  return `${SPEAKER}peers:\n  - { name: tor-a, peer_ip: 198.18.1.2, remote_as: 65001, bfd: ${value} }\n${extra}`;
}

describe('peers[].bfd and bfd_profiles', () => {
  it.each([
    ['false', undefined],
    ['true', { minRx: 300, minTx: 300, multiplier: 3, profile: undefined }],
    ['{ min_rx: 50 }', { minRx: 50, minTx: 300, multiplier: 3, profile: undefined }],
    [
      '{ min_rx: 100, min_tx: 200, multiplier: 5 }',
      { minRx: 100, minTx: 200, multiplier: 5, profile: undefined },
    ],
    ['fast', { minRx: 100, minTx: 100, multiplier: 2, profile: 'fast' }],
    ['slow', { minRx: 300, minTx: 1000, multiplier: 3, profile: 'slow' }],
  ])('bfd: %s', (value, want) => {
    const profiles =
      'bfd_profiles:\n  fast: { min_rx: 100, min_tx: 100, multiplier: 2 }\n  slow: { min_tx: 1000 }\n';
    const { config } = parseConfig(withBfd(value, profiles));
    expect(config.peers[0]!.bfd).toEqual(want);
  });

  it('is off when absent', () => {
    const { config } = parseConfig(
      `${SPEAKER}peers:\n  - { name: a, peer_ip: 198.18.1.2, remote_as: 65001 }\n`,
    );
    expect(config.peers[0]!.bfd).toBeUndefined();
  });

  it.each([
    [
      'an unknown profile, naming the defined ones',
      withBfd('fsat', 'bfd_profiles:\n  fast: {}\n'),
      ['config.yaml:6:59 peers[0].bfd: no BFD profile named "fsat" (defined: fast)'],
    ],
    [
      'a profile when none is defined',
      withBfd('fast'),
      ['config.yaml:6:59 peers[0].bfd: no BFD profile named "fast" (bfd_profiles defines none)'],
    ],
    [
      'an interval under 10 ms',
      withBfd('{ min_rx: 5 }'),
      ['config.yaml:6:66 peers[0].bfd.min_rx: expected milliseconds 10..60000, got 5'],
    ],
    [
      'a multiplier of 0',
      withBfd('{ multiplier: 0 }'),
      ['config.yaml:6:66 peers[0].bfd.multiplier: expected a count 1..255, got 0'],
    ],
    [
      'a number',
      withBfd('300'),
      [
        'config.yaml:6:59 peers[0].bfd: expected true, false, a bfd_profiles name or a mapping of BFD timers, got 300',
      ],
    ],
    [
      'an unknown key in a profile',
      withBfd('true', 'bfd_profiles:\n  fast: { min_tx: 100, echo: true }\n'),
      ['config.yaml:8:24 bfd_profiles.fast.echo: unknown key (expected one of: min_rx, min_tx, multiplier)'],
    ],
  ])('refuses %s', (_name, text, want) => {
    expect(problemLines(text)).toEqual(want);
  });
});
