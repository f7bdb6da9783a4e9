import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CheckStatus,
  ConfigError,
  checkConfigFile,
  formatProblem,
  loadConfig,
  notActedOnWarnings,
  validateConfig,
} from '../../src/config/index.js';
import { filePathOf, policyCompileProblem } from '../../src/config/policy-compile.js';
import { FILE, parse, problemLines, SPEAKER } from './support.js';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'obs-config-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function write(name: string, text: string, mode?: number): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  if (mode !== undefined) chmodSync(path, mode); // explicit: the umask would otherwise decide
  return path;
}

const MD5_PEER = (passwordFile: string) =>
  `${SPEAKER}peers:\n  - { name: a, peer_ip: 198.18.1.2, remote_as: 65000, auth_type: md5, password_file: ${passwordFile} }\n`;

describe('loading from files', () => {
  it('a relative password_file is read from the configuration file directory, one newline dropped', () => {
    mkdirSync(join(dir, 'secrets'), { recursive: true });
    write('secrets/a.pw', 'from-a-file\n', 0o600);
    const loaded = loadConfig(write('relative.yaml', MD5_PEER('secrets/a.pw')));
    expect(loaded.config.peers[0].auth).toEqual({
      type: 'md5',
      password: 'from-a-file',
      passwordFile: join(dir, 'secrets/a.pw'),
    });
  });

  it('a password_file that is a directory, or holds two lines, is a problem naming it', () => {
    write('two-lines.pw', 'one\ntwo\n', 0o600);
    const dirProblem = () => loadConfig(write('dir.yaml', MD5_PEER('secrets')));
    expect(dirProblem).toThrow(
      `peers[0].password_file: cannot read ${join(dir, 'secrets')}: it is a directory`,
    );
    const twoLines = () => loadConfig(write('two.yaml', MD5_PEER('two-lines.pw')));
    expect(twoLines).toThrow(`peers[0].password_file: ${join(dir, 'two-lines.pw')} holds more than one line`);
  });

  it.each([0o644, 0o640, 0o604, 0o620, 0o602])(
    'a password_file with mode %o (group or others have access) is refused, naming file and mode',
    (mode) => {
      const pw = write(`open-${mode.toString(8)}.pw`, 'hunter2-in-a-file\n', mode);
      let error: unknown;
      try {
        loadConfig(write(`open-${mode.toString(8)}.yaml`, MD5_PEER(pw)));
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConfigError);
      const text = (error as ConfigError).message;
      expect(text).toContain(
        `peers[0].password_file: ${pw} has mode 0${mode.toString(8)}: group and others must have no access to a password file (chmod 600 ${pw})`,
      );
      expect(text).not.toContain('hunter2-in-a-file');
    },
  );

  it('a password_file only its owner can read (0600 or 0400) is accepted', () => {
    for (const mode of [0o600, 0o400]) {
      const pw = write(`private-${mode.toString(8)}.pw`, 'owner-only\n', mode);
      const loaded = loadConfig(write(`private-${mode.toString(8)}.yaml`, MD5_PEER(pw)));
      expect(loaded.config.peers[0].auth).toEqual({ type: 'md5', password: 'owner-only', passwordFile: pw });
    }
  });

  it('a missing configuration file is kind "unreadable"', () => {
    const missing = join(dir, 'nope.yaml');
    let error: unknown;
    try {
      loadConfig(missing);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).kind).toBe('unreadable');
    expect((error as ConfigError).message).toBe(
      `${missing}: 1 problem\n${missing}: cannot read: no such file`,
    );
  });

  it('problems are listed in file order with the file name given', () => {
    const path = write('two-problems.yaml', `${SPEAKER.replace('65000', 'x')}  hold_time: 1\n`);
    expect(() => loadConfig(path)).toThrow(
      [
        `${path}: 2 problems`,
        `${path}:3:3 speaker.local_as: expected an AS number 1..4294967295, got "x"`,
        `${path}:5:3 speaker.hold_time: expected 0 or a whole number of seconds 3..65535, got 1`,
      ].join('\n'),
    );
  });
});

describe('warnings: legal, but probably not meant', () => {
  it('an eBGP peer without policies exchanges nothing (RFC 8212)', () => {
    const { warnings } = parse(
      `${SPEAKER}peers:\n  - name: a\n    peer_ip: 198.18.1.2\n    remote_as: 65001\n`,
    );
    expect(warnings.map((w) => formatProblem(w, FILE))).toEqual([
      'config.yaml:6:5 peers[0].import: eBGP peer without import policy: no routes are accepted from it (RFC 8212)',
      'config.yaml:6:5 peers[0].export: eBGP peer without export policy: no routes are sent to it (RFC 8212)',
    ]);
  });

  it('an OVSDB remote without a port gets OVSDB default, not the OVN one', () => {
    const { warnings, config } = parse(
      `${SPEAKER}ovn:\n  nb: tcp:198.18.0.10\n  sb: unix:/run/ovn/ovnsb_db.sock\n`,
    );
    expect(config.ovn?.nb).toEqual([
      { method: 'tcp', host: '198.18.0.10', port: 6640, portGiven: false, text: 'tcp:198.18.0.10' },
    ]);
    expect(warnings.map((w) => formatProblem(w, FILE))).toEqual([
      "config.yaml:6:3 ovn.nb: tcp:198.18.0.10 has no port: OVSDB's default 6640 is used (OVN listens on 6641 for NB, 6642 for SB)",
    ]);
  });

  it('an unknown YAML tag is a warning from the parser, with its position', () => {
    const { warnings } = parse(`${SPEAKER}  log: { level: !loud info }\n`);
    expect(warnings.map((w) => formatProblem(w, FILE))).toEqual(['config.yaml:5:17 Unresolved tag: !loud']);
  });
});

describe('positions', () => {
  it('a problem in an aliased value points at the anchored value', () => {
    const lines = problemLines(
      `${SPEAKER}peers:\n  - { name: a, peer_ip: 198.18.1.2, remote_as: 65001, families: &f [ipv4-anycast] }\n  - { name: b, peer_ip: 198.18.1.3, remote_as: 65001, families: *f }\n`,
    );
    expect(lines).toEqual([
      'config.yaml:6:69 peers[0].families[0]: expected one of ipv4-unicast, ipv6-unicast, got "ipv4-anycast"',
      'config.yaml:6:69 peers[1].families[0]: expected one of ipv4-unicast, ipv6-unicast, got "ipv4-anycast"',
    ]);
  });

  it('validation without a file has paths and values but no positions', () => {
    const result = validateConfig({ speaker: { name: 's', local_as: 'x', router_id: '198.18.0.1' } });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toEqual([
      {
        path: 'speaker.local_as',
        segments: ['speaker', 'local_as'],
        value: 'x',
        message: 'expected an AS number 1..4294967295, got "x"',
      },
    ]);
  });

  it('a password_file without a file reader is a problem, not a crash', () => {
    const result = validateConfig({
      speaker: { name: 's', local_as: 65000, router_id: '198.18.0.1' },
      peers: [{ name: 'a', peer_ip: '198.18.1.2', remote_as: 65000, auth_type: 'md5', password_file: '/x' }],
    });
    expect(result.ok ? [] : result.problems.map((p) => `${p.path}: ${p.message}`)).toEqual([
      'peers[0].password_file: cannot read /x: no file reader to read /x',
    ]);
  });
});

describe('the policy compiler has the last word', () => {
  it.each([
    ['prefixLists[pl].entries[2].le', { prefix_lists: { pl: [] } }, ['prefix_lists', 'pl', 2, 'le']],
    [
      'prefixLists[pl].entries[0].prefix',
      { prefix_lists: { pl: { family: 'ipv4', entries: [] } } },
      ['prefix_lists', 'pl', 'entries', 0, 'prefix'],
    ],
    [
      'policies[tor.in].statements[1].match.largeCommunityList',
      {},
      ['policies', 'tor.in', 'statements', 1, 'match', 'large_community_list'],
    ],
    ['communityLists[cl].entries[0].communities[3]', {}, ['community_lists', 'cl', 0, 'communities', 3]],
  ])('%s is %j in the file', (modelPath, raw, want) => {
    expect(filePathOf(modelPath, raw)).toEqual(want);
  });

  it('what the compiler refuses becomes a problem at the field it names', () => {
    // The checks before it would catch this; a configuration built by hand shows the net holds.
    const { config } = parse(SPEAKER);
    const policies = [
      { name: 'p', statements: [{ match: { prefixList: 'nope' }, action: 'accept' as const }] },
    ];
    const refused = policyCompileProblem({ ...config, policy: { ...config.policy, policies } }, {});
    expect(refused).toEqual({
      path: 'policies.p.statements[0].match.prefix_list',
      segments: ['policies', 'p', 'statements', 0, 'match', 'prefix_list'],
      message: 'no prefix list named nope',
    });
    expect(policyCompileProblem(config, {})).toBeUndefined();
  });
});

describe('check-config', () => {
  it('exits 0 and says what it found for a good file; warnings are printed', () => {
    const out: string[] = [];
    const path = write(
      'good.yaml',
      `${SPEAKER}peers:\n  - { name: a, peer_ip: 198.18.1.2, remote_as: 65001 }\n`,
    );
    expect(checkConfigFile(path, (l) => out.push(l))).toBe(CheckStatus.OK);
    expect(out).toEqual([
      `warning: ${path}:6:5 peers[0].import: eBGP peer without import policy: no routes are accepted from it (RFC 8212)`,
      `warning: ${path}:6:5 peers[0].export: eBGP peer without export policy: no routes are sent to it (RFC 8212)`,
      `${path}: ok (speaker s1, 1 peer, 0 routes)`,
    ]);
  });

  it('warns about graceful_restart, which is accepted but not acted on yet', () => {
    const out: string[] = [];
    const path = write(
      'gr.yaml',
      `${SPEAKER}  graceful_restart: true\npeers:\n  - { name: a, peer_ip: 198.18.1.2, remote_as: 65000 }\n`,
    );
    expect(checkConfigFile(path, (l) => out.push(l))).toBe(CheckStatus.OK);
    expect(out).toEqual([
      `warning: ${path}: ${notActedOnWarnings(loadConfig(path).config)[0]}`,
      `${path}: ok (speaker s1, 1 peer, 0 routes)`,
    ]);
    expect(out[0]).toMatch(
      /graceful_restart is not supported yet: the capability \(RFC 4724\) is not advertised/,
    );
  });

  it('exits non-zero with one line per problem for a bad file', () => {
    const out: string[] = [];
    const path = write('bad.yaml', `${SPEAKER}peers:\n  - { name: a, peer_ip: 198.18.1.2 }\nnetwork: []\n`);
    expect(checkConfigFile(path, (l) => out.push(l))).toBe(CheckStatus.INVALID);
    expect(out).toEqual([
      `${path}: 2 problems`,
      `${path}:6:5 peers[0].remote_as: required key is missing`,
      `${path}:7:1 network: unknown key (did you mean networks?)`,
    ]);
  });
});
