import { EventEmitter } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { Framer, MessageDecoder } from '../../src/bgp/wire/index.js';
import { RunStatus, runSpeaker, type Speaker } from '../../src/speaker/index.js';
import { warmUp } from '../../src/speaker/warm-up.js';
import { warmUpTable } from '../../src/speaker/warm-up-table.js';
import { ACCEPT_ALL, freePort, Probe, probePeer, speakerSection, tempDir, until, yamlOf } from './support.js';

// The warm-up before the listener opens: real work on throwaway instances, nothing left behind.

let cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

/** Prefixes announced and withdrawn by a stream of UPDATEs, through the real framer and decoder. */
function countPrefixes(stream: Uint8Array): { announced: number; withdrawn: number } {
  const framer = new Framer();
  const decoder = new MessageDecoder();
  framer.push(stream);
  let announced = 0;
  let withdrawn = 0;
  for (let m = framer.next(); m !== null; m = framer.next()) {
    const u = decoder.decode(m);
    if (u.type !== 'update') continue;
    announced += u.nlri.count + (u.mpNlri?.count ?? 0);
    withdrawn += u.withdrawn.count + (u.mpUnreach?.withdrawn.count ?? 0);
  }
  return { announced, withdrawn };
}

describe('warmUpTable', () => {
  it('announces every prefix asked for, split between the families, and withdraws each again', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (n, share) => {
          const t = warmUpTable(n, share);
          expect(countPrefixes(t.announce)).toEqual({ announced: n, withdrawn: 0 });
          expect(countPrefixes(t.withdraw)).toEqual({ announced: 0, withdrawn: n });
        },
      ),
      { numRuns: 25 },
    );
  });

  it('has IPv4 prefixes of every address size the decoder reads apart, distinct, all in 198.18.0.0/15, and KEEPALIVEs', () => {
    const framer = new Framer();
    const decoder = new MessageDecoder();
    framer.push(warmUpTable(3000, 0).announce);
    const seen = new Set<string>();
    let keepalives = 0;
    for (let m = framer.next(); m !== null; m = framer.next()) {
      const u = decoder.decode(m);
      if (u.type === 'keepalive') keepalives++;
      if (u.type !== 'update') continue;
      for (const p of u.nlri.toArray()) {
        expect(p.len).toBeGreaterThanOrEqual(15);
        expect(p.addr.startsWith('198.18.') || p.addr.startsWith('198.19.')).toBe(true);
        seen.add(`${p.addr}/${p.len}`);
      }
    }
    expect(seen.size).toBe(3000);
    const octets = new Set([...seen].map((p) => Math.ceil(Number(p.split('/')[1]) / 8)));
    expect([...octets].sort()).toEqual([2, 3, 4]);
    expect(keepalives).toBeGreaterThan(0);
  });

  it('carries what a transit table carries: 4-octet ASNs, prepends, several communities, large communities, MEDs, INCOMPLETE', () => {
    const framer = new Framer();
    const decoder = new MessageDecoder();
    framer.push(warmUpTable(3000, 0.25).announce);
    const seen = new Set<string>();
    for (let m = framer.next(); m !== null; m = framer.next()) {
      const u = decoder.decode(m);
      if (u.type !== 'update' || !u.attrs) continue;
      const a = u.attrs;
      const asns = a.asPath?.flatMap((seg) => [...seg.asns]) ?? [];
      if (asns.some((x) => x > 0xffff)) seen.add('4-octet ASN');
      if (asns.some((x, i) => i > 0 && x === asns[i - 1])) seen.add('prepend');
      if ((a.communities?.length ?? 0) > 1) seen.add('communities');
      if ((a.largeCommunities?.length ?? 0) > 0) seen.add('large communities');
      if (a.med !== undefined) seen.add('MED');
      if (a.origin === 2) seen.add('INCOMPLETE');
      if (asns.length >= 7) seen.add('long path');
    }
    expect([...seen].sort()).toEqual(
      ['4-octet ASN', 'INCOMPLETE', 'MED', 'communities', 'large communities', 'long path', 'prepend'].sort(),
    );
  });
});

describe('warmUp', () => {
  it('takes every prefix of the table into a RIB in each round', () => {
    // The RIB held them all between announce and withdraw: the table went the whole way.
    expect(warmUp({ prefixes: 500, rounds: 3, ipv6Share: 0.5 })).toMatchObject({ prefixes: 1500, rounds: 3 });
  });
});

type Line = Record<string, unknown> & { level: number; msg: string };
const DEBUG = 20;

/** One run of the speaker process with a peer; what the peer, the RIB, the metrics and the log show. */
async function runOnce(warm: boolean) {
  const a = await Probe.start('127.0.0.2', 65001, '198.18.0.12');
  const t = tempDir();
  try {
    const port = await freePort('127.0.0.1');
    const file = join(t.dir, 'speaker.yaml');
    const speaker = speakerSection(t.dir, {
      log: { level: 'debug' },
      metrics: { listen: `127.0.0.1:${port}` },
      ...(warm ? {} : { warm_up: false }),
    });
    const doc = {
      speaker,
      peers: [probePeer(a, { import: ['all'], export: ['all'] })],
      policies: { all: ACCEPT_ALL },
    };
    writeFileSync(file, yamlOf(doc));
    const lines: Line[] = [];
    const signals = new EventEmitter();
    let s: Speaker | undefined;
    const exit = runSpeaker(file, {
      signals,
      logDestination: { write: (x: string) => lines.push(JSON.parse(x) as Line) },
      onStarted: (x) => {
        s = x;
      },
    });
    await until(
      () => s !== undefined && a.established && a.rec.endOfRib.length === 2,
      'the End-of-RIBs at a',
    );
    const metrics = await (await fetch(s!.metricsUrl!)).text();
    const seen = {
      rib: s!.summary().rib,
      updatesAtPeer: a.rec.updates.filter((u) => u.nlri.count + (u.mpNlri?.count ?? 0) > 0).length,
      // The speaker's own series; times and the process's CPU and memory differ from run to run.
      metrics: metrics
        .split('\n')
        .filter((l) => l.startsWith('bgp_') && !/seconds|keepalive/.test(l))
        .sort(),
      lines,
    };
    signals.emit('SIGTERM');
    expect(await exit).toBe(RunStatus.OK);
    return seen;
  } finally {
    await a.close();
    t.cleanup();
  }
}

describe('the speaker process with the warm-up', () => {
  it('starts with nothing of the synthetic table in its RIB, metrics, peers or log but one debug line', async () => {
    const cold = await runOnce(false);
    const warm = await runOnce(true);
    expect(warm.rib).toEqual({ 'ipv4-unicast': 0, 'ipv6-unicast': 0 });
    expect(warm.rib).toEqual(cold.rib);
    expect(warm.updatesAtPeer).toBe(0);
    expect(warm.metrics.length).toBeGreaterThan(5);
    expect(warm.metrics).toEqual(cold.metrics);
    const about = (l: Line[]) => l.filter((x) => /warm/i.test(JSON.stringify(x)));
    expect(about(cold.lines)).toEqual([]);
    expect(about(warm.lines)).toEqual([
      expect.objectContaining({ level: DEBUG, msg: 'receive path warmed up', prefixes: 16_000 }),
    ]);
    expect(warm.lines.filter((x) => x.level > 30)).toEqual(cold.lines.filter((x) => x.level > 30));
  });
});
