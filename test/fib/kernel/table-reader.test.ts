/**
 * KernelTableReader on the fake kernel and a fake clock: the sync of a table's protocol-84
 * routes, bursts as one call, a metric move as one replace, other tables and protocols
 * ignored, notifications during a dump applied on top of it, a dump after lost notifications
 * reporting only the difference (and at most one a resyncIntervalMs), a failed dump tried
 * again with the news held, a table switch reporting the difference, and a clean close.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  KernelError,
  type KernelRoute,
  KernelTableReader,
  NlmFlag,
  NlmsgType,
  Rtn,
  type RtnlSocketFactory,
  type TableChange,
  type TableReaderInit,
  type TableRoute,
} from '../../../src/fib/kernel/index.js';
import { parsePrefix } from '../../../src/rib/index.js';
import { FakeClock } from '../../components/fake-clock.js';
import { FakeKernel } from './fake-kernel.js';

const TABLE = 7;
const OVN = 84;

/** A route as ovn-controller writes it (the fake encodes a device where ovn-controller sends none). */
function ovn(prefix: string, metric: number, table = TABLE, protocol = OVN): KernelRoute {
  return {
    prefix: parsePrefix(prefix),
    table,
    protocol,
    scope: 0,
    type: Rtn.BLACKHOLE,
    flags: 0,
    priority: metric,
    nexthops: [{ ifindex: 1, weight: 1, flags: 0 }],
  };
}

const shown = (routes: readonly TableRoute[]) =>
  routes.map((r) => `${r.prefix} [${r.metrics.join(',')}]`).sort();
const described = (changes: readonly TableChange[]) =>
  changes.map((c) => `${c.kind} ${c.prefix} [${c.before.join(',')}] -> [${c.metrics.join(',')}]`).sort();

function isDump(d: Uint8Array): boolean {
  const v = new DataView(d.buffer, d.byteOffset, d.byteLength);
  return (
    v.getUint16(4, true) === NlmsgType.GETROUTE && (v.getUint16(6, true) & NlmFlag.DUMP) === NlmFlag.DUMP
  );
}

interface Setup {
  kernel: FakeKernel;
  clock: FakeClock;
  reader: KernelTableReader;
  syncs: { routes: readonly TableRoute[]; table: number }[];
  batches: { changes: readonly TableChange[]; table: number; at: number }[];
  errors: string[];
  /** Dump requests sent; `afterDump` runs right after the next one reached the kernel. */
  dumps: () => number;
  afterDump: (fn: () => void) => void;
}

const readers: KernelTableReader[] = [];
afterEach(async () => {
  for (const r of readers.splice(0)) await r.close();
});

function setup(init: Partial<TableReaderInit> = {}, kernel = new FakeKernel()): Setup {
  const clock = new FakeClock();
  const syncs: Setup['syncs'] = [];
  const batches: Setup['batches'] = [];
  const errors: string[] = [];
  let dumps = 0;
  let after: (() => void) | undefined;
  const openSocket: RtnlSocketFactory = (o) => {
    const s = kernel.factory(o);
    const send = s.send.bind(s);
    return Object.assign(s, {
      send(d: Uint8Array, done: (e?: Error) => void) {
        send(d, done);
        if (!isDump(d)) return;
        dumps++;
        const fn = after;
        after = undefined;
        fn?.();
      },
    });
  };
  const nothing = () => {};
  const reader = new KernelTableReader(
    { table: TABLE, ...init },
    {
      sync: (routes, table) => syncs.push({ routes, table }),
      change: (changes, table) => batches.push({ changes, table, at: clock.now() }),
    },
    {
      openSocket,
      clock,
      logger: { debug: nothing, info: nothing, warn: nothing, error: (_o, m) => errors.push(String(m)) },
    },
  );
  readers.push(reader);
  return {
    kernel,
    clock,
    reader,
    syncs,
    batches,
    errors,
    dumps: () => dumps,
    afterDump: (fn) => {
      after = fn;
    },
  };
}

function withTable(): FakeKernel {
  const kernel = new FakeKernel();
  kernel.addQuietly(ovn('198.18.1.0/24', 100));
  kernel.addQuietly(ovn('198.18.1.0/24', 1000));
  kernel.addQuietly(ovn('198.18.2.10/32', 1000));
  kernel.addQuietly(ovn('2001:db8:1::/64', 100));
  // Not ours to read: another protocol in the table (a route we learned), another table.
  kernel.addQuietly(ovn('198.18.3.0/24', 20, TABLE, 186));
  kernel.addQuietly(ovn('198.18.4.0/24', 100, 8));
  return kernel;
}

describe('KernelTableReader: start and follow', () => {
  it('syncs the table whole: protocol 84 in table 7, both families, each prefix with its metrics', async () => {
    const s = setup({}, withTable());
    await s.reader.start();
    expect(s.syncs).toHaveLength(1);
    expect(s.syncs[0].table).toBe(TABLE);
    expect(shown(s.syncs[0].routes)).toEqual([
      '198.18.1.0/24 [100,1000]',
      '198.18.2.10/32 [1000]',
      '2001:db8:1::/64 [100]',
    ]);
    expect(s.batches).toEqual([]);
    const st = s.reader.status();
    expect(st).toMatchObject({
      open: true,
      table: TABLE,
      protocols: [OVN],
      prefixes: 3,
      routes: 4,
      syncs: 1,
    });
    expect(st.lastSync).toMatchObject({ reason: 'start', routes: 4, changes: 0 });
    expect(st.monitor.on).toBe(true);
    // The kernel filtered the dump by table and protocol (strict check): one per family.
    expect(s.dumps()).toBe(2);
  });

  it('reports a burst as one call after settleMs of quiet, and nothing of other tables or protocols', async () => {
    const s = setup({}, withTable());
    await s.reader.start();
    for (let i = 0; i < 200; i++) s.kernel.externalAdd(ovn(`198.18.10.${i}/32`, 100));
    s.kernel.externalAdd(ovn('2001:db8:2::/64', 1000));
    s.kernel.externalDelete(TABLE, '198.18.2.10/32', 1000);
    s.kernel.externalAdd(ovn('198.18.5.0/24', 100, 8));
    s.kernel.externalAdd(ovn('198.18.6.0/24', 100, TABLE, 186));
    await s.clock.advance(4);
    expect(s.batches).toEqual([]);
    await s.clock.advance(1);
    expect(s.batches).toHaveLength(1);
    const d = described(s.batches[0].changes);
    expect(d).toHaveLength(202);
    expect(d).toContain('add 198.18.10.7/32 [] -> [100]');
    expect(d).toContain('add 2001:db8:2::/64 [] -> [1000]');
    expect(d).toContain('remove 198.18.2.10/32 [1000] -> []');
    expect(s.reader.status()).toMatchObject({ batches: 1, changes: 202, pending: 0, prefixes: 203 });
    expect(s.reader.status().monitor.otherTables).toBeGreaterThanOrEqual(1);
    await s.clock.advance(1000);
    expect(s.batches).toHaveLength(1);
  });

  it("turns ovn-controller's metric move (a delete, then an add) into one replace, never a withdrawal", async () => {
    const s = setup({}, withTable());
    await s.reader.start();
    s.kernel.externalDelete(TABLE, '2001:db8:1::/64', 100);
    s.kernel.externalAdd(ovn('2001:db8:1::/64', 1000));
    // Both metrics at once, then the old one leaves in the next burst.
    s.kernel.externalAdd(ovn('198.18.2.10/32', 100));
    await s.clock.advance(10);
    s.kernel.externalDelete(TABLE, '198.18.2.10/32', 1000);
    await s.clock.advance(10);
    expect(s.batches.map((b) => described(b.changes))).toEqual([
      ['replace 198.18.2.10/32 [1000] -> [100,1000]', 'replace 2001:db8:1::/64 [100] -> [1000]'],
      ['replace 198.18.2.10/32 [100,1000] -> [100]'],
    ]);
  });

  it('a replace by another protocol at a key of ours is checked with a dump, which finds ours gone', async () => {
    const s = setup({ resyncDelayMs: 20, resyncIntervalMs: 1000 }, withTable());
    await s.reader.start();
    await s.clock.advance(1000);
    const dumps = s.dumps();
    s.kernel.externalAdd(ovn('198.18.2.10/32', 1000, TABLE, 186), NlmFlag.CREATE | NlmFlag.REPLACE);
    await s.clock.advance(30);
    expect(s.dumps()).toBe(dumps + 2);
    expect(s.batches.map((b) => described(b.changes))).toEqual([['remove 198.18.2.10/32 [1000] -> []']]);
    expect(s.reader.status().lastSync?.reason).toBe('verify');
  });

  it('an IPv6 next hop deleted alone from a multipath route leaves the route: a dump says so', async () => {
    const s = setup({ resyncDelayMs: 20, resyncIntervalMs: 1000 });
    await s.reader.start();
    await s.clock.advance(1000);
    const hops = ['2001:db8:40::2', '2001:db8:40::3'].map((gateway) => ({
      gateway,
      ifindex: 3,
      weight: 1,
      flags: 0,
    }));
    s.kernel.externalAdd({ ...ovn('2001:db8:7::/64', 100), nexthops: hops });
    await s.clock.advance(10);
    s.kernel.externalDeleteNexthop(TABLE, '2001:db8:7::/64', 100, '2001:db8:40::2');
    await s.clock.advance(30);
    expect(s.reader.status()).toMatchObject({ prefixes: 1, syncs: 2 });
    // Now one route with one next hop: its delete is exact, no dump needed.
    s.kernel.externalDelete(TABLE, '2001:db8:7::/64', 100);
    await s.clock.advance(10);
    expect(s.batches.map((b) => described(b.changes))).toEqual([
      ['add 2001:db8:7::/64 [] -> [100]'],
      ['remove 2001:db8:7::/64 [100] -> []'],
    ]);
    expect(s.reader.status().syncs).toBe(2);
  });

  it('a table that keeps changing is still reported every maxHoldMs', async () => {
    const s = setup({ settleMs: 5, maxHoldMs: 50 });
    await s.reader.start();
    const first = s.clock.now();
    for (let i = 0; i < 40; i++) {
      s.kernel.externalAdd(ovn(`198.18.20.${i}/32`, 100));
      await s.clock.advance(3);
    }
    await s.clock.advance(10);
    // Changes 3 ms apart from 0 to 117 ms: never 5 ms of quiet until the last, so a call at
    // 50 ms, one 50 ms after the next change (51), and one 5 ms after the last.
    expect(s.batches.map((b) => b.at - first)).toEqual([50, 101, 122]);
    expect(s.batches.flatMap((b) => b.changes)).toHaveLength(40);
  });

  it('ten thousand routes written at once arrive in one call, complete', async () => {
    const s = setup();
    await s.reader.start();
    for (let i = 0; i < 10_000; i++)
      s.kernel.externalAdd(ovn(`198.18.${(i >> 8) + 100}.${i & 255}/32`, i % 2 ? 1000 : 100));
    await s.clock.advance(5);
    expect(s.batches).toHaveLength(1);
    expect(s.batches[0].changes).toHaveLength(10_000);
    expect(s.reader.status().routes).toBe(10_000);
  });

  it('applies the notifications that come during a dump on top of it', async () => {
    const s = setup({}, withTable());
    // The IPv4 dump has its answers on their way when these happen: it cannot show them.
    s.afterDump(() => {
      s.kernel.externalDelete(TABLE, '198.18.1.0/24', 1000);
      s.kernel.externalAdd(ovn('198.18.9.0/24', 100));
    });
    await s.reader.start();
    expect(shown(s.syncs[0].routes)).toEqual([
      '198.18.1.0/24 [100]',
      '198.18.2.10/32 [1000]',
      '198.18.9.0/24 [100]',
      '2001:db8:1::/64 [100]',
    ]);
    await s.clock.advance(100);
    expect(s.batches).toEqual([]);
  });

  it('reads several protocols when asked: the kernel then sends all and the reader keeps its own', async () => {
    const s = setup({ protocols: [OVN, 186] }, withTable());
    await s.reader.start();
    expect(shown(s.syncs[0].routes)).toContain('198.18.3.0/24 [20]');
    expect(s.syncs[0].routes).toHaveLength(4);
  });
});

describe('KernelTableReader: lost notifications', () => {
  it('dumps again and reports only the prefixes that differ', async () => {
    const kernel = withTable();
    for (let i = 0; i < 100; i++) kernel.addQuietly(ovn(`198.18.50.${i}/32`, 100));
    const s = setup({ dropCheckMs: 250, resyncDelayMs: 20, resyncIntervalMs: 1000 }, kernel);
    await s.reader.start();
    await s.clock.advance(1000);
    // Seen: one add. Lost: the rest.
    s.kernel.externalAdd(ovn('198.18.60.1/32', 100));
    await s.clock.advance(10);
    s.kernel.addQuietly(ovn('198.18.60.2/32', 1000));
    s.kernel.deleteQuietly(TABLE, '198.18.50.7/32', 100);
    s.kernel.deleteQuietly(TABLE, '2001:db8:1::/64', 100);
    s.kernel.addQuietly(ovn('2001:db8:1::/64', 1000));
    // Lost, but put back as it was before anyone read it: nothing to report.
    s.kernel.deleteQuietly(TABLE, '198.18.50.8/32', 100);
    s.kernel.addQuietly(ovn('198.18.50.8/32', 100));
    s.kernel.overrunMonitors(5);
    const dumps = s.dumps();
    await s.clock.advance(300);
    expect(s.dumps()).toBe(dumps + 2);
    expect(s.batches.map((b) => described(b.changes))).toEqual([
      ['add 198.18.60.1/32 [] -> [100]'],
      [
        'add 198.18.60.2/32 [] -> [1000]',
        'remove 198.18.50.7/32 [100] -> []',
        'replace 2001:db8:1::/64 [100] -> [1000]',
      ],
    ]);
    const st = s.reader.status();
    expect(st.lastSync).toMatchObject({ reason: 'lost', changes: 3 });
    expect(st.monitor).toMatchObject({ overruns: 1, dropped: 5 });
    expect(st.syncs).toBe(2);
  });

  it('a loss while a dump runs is followed by another dump', async () => {
    const s = setup({ resyncIntervalMs: 1000 }, withTable());
    s.afterDump(() => {
      // After the IPv4 dump's snapshot, and its notification lost (ENOBUFS on the monitor).
      s.kernel.addQuietly(ovn('198.18.77.0/24', 100));
      s.kernel.sockets
        .find((k) => k.groups.length > 0)
        ?.fail({ name: 'Error', message: 'x', code: 'ENOBUFS' });
    });
    await s.reader.start();
    expect(shown(s.syncs[0].routes)).not.toContain('198.18.77.0/24 [100]');
    await s.clock.advance(1000);
    expect(s.batches.map((b) => described(b.changes))).toEqual([['add 198.18.77.0/24 [] -> [100]']]);
    expect(s.reader.status().syncs).toBe(2);
  });

  it('dumps at most once per resyncIntervalMs however often notifications are lost', async () => {
    const s = setup({ dropCheckMs: 100, resyncDelayMs: 20, resyncIntervalMs: 1000 }, withTable());
    await s.reader.start();
    // The start's dump just ended: the first resync waits for the interval too.
    for (let i = 0; i < 30; i++) {
      s.kernel.overrunMonitors(1);
      await s.clock.advance(100);
    }
    // 3 s of losses: a dump at 1 s, 2 s and 3 s after the start's.
    expect(s.reader.status().syncs).toBe(1 + 3);
    expect(s.reader.status().monitor.overruns).toBe(30);
  });

  it('a dump that fails is tried again, the news that came meanwhile held for it', async () => {
    const s = setup({ dropCheckMs: 100, resyncDelayMs: 20, resyncIntervalMs: 1000, requestTimeoutMs: 500 });
    await s.reader.start();
    await s.clock.advance(1000);
    s.kernel.silent = true;
    s.kernel.overrunMonitors(1);
    await s.clock.advance(130);
    // The dump is out, unanswered; a route comes meanwhile.
    s.kernel.externalAdd(ovn('198.18.70.0/24', 100));
    await s.clock.advance(600);
    expect(s.reader.status().lastError).toMatch(/timeout/);
    expect(s.batches).toEqual([]);
    s.kernel.silent = false;
    s.kernel.addQuietly(ovn('198.18.71.0/24', 100));
    await s.clock.advance(1000);
    expect(s.batches.map((b) => described(b.changes))).toEqual([
      ['add 198.18.70.0/24 [] -> [100]', 'add 198.18.71.0/24 [] -> [100]'],
    ]);
    expect(s.reader.status().syncs).toBe(2);
  });
});

describe('KernelTableReader: table switch, errors, close', () => {
  it('moves to another table and reports how it differs; the old one is no longer followed', async () => {
    const kernel = withTable();
    kernel.addQuietly(ovn('198.18.1.0/24', 100, 9));
    kernel.addQuietly(ovn('198.18.1.0/24', 1000, 9));
    kernel.addQuietly(ovn('2001:db8:1::/64', 1000, 9));
    kernel.addQuietly(ovn('198.18.90.0/24', 100, 9));
    const s = setup({}, kernel);
    await s.reader.start();
    await s.reader.setTable(9);
    expect(s.reader.table).toBe(9);
    expect(s.batches).toHaveLength(1);
    expect(s.batches[0].table).toBe(9);
    expect(described(s.batches[0].changes)).toEqual([
      'add 198.18.90.0/24 [] -> [100]',
      'remove 198.18.2.10/32 [1000] -> []',
      'replace 2001:db8:1::/64 [100] -> [1000]',
    ]);
    s.kernel.externalAdd(ovn('198.18.91.0/24', 100, TABLE));
    s.kernel.externalAdd(ovn('198.18.92.0/24', 100, 9));
    await s.clock.advance(10);
    expect(described(s.batches[1].changes)).toEqual(['add 198.18.92.0/24 [] -> [100]']);
    expect(s.reader.status()).toMatchObject({ table: 9, syncs: 2, prefixes: 4 });
    expect(s.reader.status().lastSync?.reason).toBe('table');
    // The old table's monitor is closed; one monitor and the request socket are open.
    expect(s.kernel.sockets.filter((k) => !k.closed)).toHaveLength(2);
  });

  it('a handler that throws does not stop the reader', async () => {
    const kernel = new FakeKernel();
    const clock = new FakeClock();
    const seen: string[] = [];
    const errors: string[] = [];
    const nothing = () => {};
    const reader = new KernelTableReader(
      { table: TABLE },
      {
        sync: nothing,
        change: (changes) => {
          seen.push(...described(changes));
          if (seen.length === 1) throw new Error('consumer failed');
        },
      },
      {
        openSocket: kernel.factory,
        clock,
        logger: { debug: nothing, info: nothing, warn: nothing, error: (_o, m) => errors.push(String(m)) },
      },
    );
    readers.push(reader);
    await reader.start();
    kernel.externalAdd(ovn('198.18.1.0/24', 100));
    await clock.advance(10);
    kernel.externalAdd(ovn('198.18.2.0/24', 100));
    await clock.advance(10);
    expect(seen).toEqual(['add 198.18.1.0/24 [] -> [100]', 'add 198.18.2.0/24 [] -> [100]']);
    expect(errors).toEqual(['kernel table: the change handler threw']);
    expect(reader.status().lastError).toBe('change handler: consumer failed');
  });

  it('does not start when the monitor cannot be kept from aborting on an overrun', async () => {
    const kernel = new FakeKernel();
    kernel.noEnobufs = false;
    const s = setup({}, kernel);
    await expect(s.reader.start()).rejects.toMatchObject({ kind: 'socket' });
    expect(s.kernel.sockets.every((k) => k.closed)).toBe(true);
    expect(s.reader.status().open).toBe(false);
  });

  it('refuses table 0 (a dump of every table) and protocols out of a u8', () => {
    const nothing = () => {};
    const h = { sync: nothing, change: nothing };
    expect(() => new KernelTableReader({ table: 0 }, h)).toThrow(KernelError);
    expect(() => new KernelTableReader({ table: 7, protocols: [256] }, h)).toThrow(/protocol 256/);
    expect(() => new KernelTableReader({ table: 7, protocols: [] }, h)).toThrow(/no protocol/);
  });

  it('closes cleanly: sockets closed, no timer left, nothing reported after', async () => {
    const s = setup({}, withTable());
    await s.reader.start();
    s.kernel.externalAdd(ovn('198.18.80.0/24', 100));
    await s.clock.advance(0);
    expect(s.clock.pending.timers).toBeGreaterThan(0);
    await s.reader.close();
    expect(s.clock.pending.timers).toBe(0);
    expect(s.kernel.sockets.every((k) => k.closed)).toBe(true);
    await s.clock.advance(1000);
    expect(s.batches).toEqual([]);
    expect(s.reader.status().open).toBe(false);
    await expect(s.reader.setTable(9)).rejects.toMatchObject({ kind: 'closed' });
  });
});
