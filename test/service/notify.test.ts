import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/components/index.js';
import {
  encodeSockaddrUn,
  NotifySocketError,
  notifyMessage,
  ServiceNotifier,
  UnixDatagramSender,
  watchdogPingMs,
} from '../../src/service/index.js';
import { FakeClock } from '../components/fake-clock.js';
import { tempDir } from '../speaker/support.js';
import { NotifyListener } from './notify-listener.js';

// sd_notify(3): the address, the messages, the watchdog's cadence, and datagrams a real unix
// socket receives (a path and an abstract name).

let cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

describe('encodeSockaddrUn', () => {
  it('writes a path with its NUL and an abstract name after a leading NUL, the length exact', () => {
    const path = encodeSockaddrUn('/run/systemd/notify');
    expect(path.readUInt16LE(0)).toBe(1);
    expect(path.subarray(2).toString('latin1')).toBe('/run/systemd/notify\0');
    const abstract = encodeSockaddrUn('@sd-test');
    expect(abstract.subarray(2).toString('latin1')).toBe('\0sd-test');
  });

  it('refuses a relative path, a name too long for sun_path, a NUL inside', () => {
    expect(() => encodeSockaddrUn('run/notify')).toThrow(NotifySocketError);
    expect(() => encodeSockaddrUn(`/${'x'.repeat(106)}`)).not.toThrow();
    expect(() => encodeSockaddrUn(`/${'x'.repeat(107)}`)).toThrow(/does not fit sun_path/);
    expect(() => encodeSockaddrUn('@a\0b')).toThrow(/no NUL inside/);
  });
});

describe('watchdogPingMs', () => {
  it('pings at half WATCHDOG_USEC, only for the pid systemd named', () => {
    expect(watchdogPingMs({ WATCHDOG_USEC: '30000000' }, 42)).toBe(15_000);
    expect(watchdogPingMs({ WATCHDOG_USEC: '400000', WATCHDOG_PID: '42' }, 42)).toBe(200);
    expect(watchdogPingMs({ WATCHDOG_USEC: '400000', WATCHDOG_PID: '43' }, 42)).toBeNull();
    expect(watchdogPingMs({}, 42)).toBeNull();
    for (const bad of ['0', '-5', '1e6', 'x', ''])
      expect(watchdogPingMs({ WATCHDOG_USEC: bad }, 42)).toBeNull();
  });
});

describe('notifyMessage', () => {
  it('writes KEY=value lines; a STATUS stays one line', () => {
    expect(
      notifyMessage([
        ['READY', 1],
        ['STATUS', 'a\nb\r\nc'],
      ]),
    ).toBe('READY=1\nSTATUS=a b c');
  });
});

function recorded(pingMs: number | null) {
  const sent: string[] = [];
  const errnos: number[] = [];
  const warnings: unknown[] = [];
  const clock = new FakeClock();
  const logger = { ...silentLogger, warn: (o: unknown) => warnings.push(o) };
  const notifier = new ServiceNotifier(
    {
      send: (m) => {
        sent.push(m.toString());
        return errnos.shift() ?? 0;
      },
      close: () => sent.push('(closed)'),
    },
    pingMs,
    { clock, logger, monotonicUsec: () => 123n },
  );
  return { sent, errnos, warnings, clock, notifier };
}

describe('ServiceNotifier', () => {
  it('sends READY, RELOADING with MONOTONIC_USEC, STOPPING, and a STATUS only when it changed', () => {
    const { sent, notifier } = recorded(null);
    notifier.ready('up');
    notifier.status('up');
    notifier.status('2/2 sessions');
    notifier.reloading('reloading');
    notifier.ready('reloaded');
    notifier.stopping('bye');
    notifier.close();
    notifier.status('after close');
    expect(sent).toEqual([
      'READY=1\nSTATUS=up',
      'STATUS=2/2 sessions',
      'RELOADING=1\nMONOTONIC_USEC=123\nSTATUS=reloading',
      'READY=1\nSTATUS=reloaded',
      'STOPPING=1\nSTATUS=bye',
      '(closed)',
    ]);
  });

  it('pings WATCHDOG=1 every half interval until stopping', async () => {
    const { sent, clock, notifier } = recorded(200);
    notifier.startWatchdog();
    notifier.startWatchdog();
    await clock.advance(1000);
    expect(sent.filter((m) => m === 'WATCHDOG=1')).toHaveLength(6);
    notifier.stopping('bye');
    await clock.advance(1000);
    expect(sent.filter((m) => m === 'WATCHDOG=1')).toHaveLength(6);
    expect(clock.pending.timers).toBe(0);
  });

  it('logs a refused message once per cause, and goes on sending', async () => {
    const { sent, errnos, warnings, clock, notifier } = recorded(100);
    errnos.push(111, 111, 11);
    notifier.startWatchdog();
    await clock.advance(400);
    expect(sent.filter((m) => m === 'WATCHDOG=1')).toHaveLength(5);
    expect(warnings).toEqual([
      { errno: 111, message: 'WATCHDOG' },
      { errno: 11, message: 'WATCHDOG' },
    ]);
  });
});

describe('UnixDatagramSender', () => {
  it.each([
    ['a path', (dir: string) => `${dir}/notify.sock`],
    ['an abstract name', () => `@ovn-bgp-speaker-test-${process.pid}-${Date.now()}`],
  ])('reaches a listener bound to %s', async (_what, target) => {
    const t = tempDir();
    cleanups.push(t.cleanup);
    const where = target(t.dir);
    const listener = await NotifyListener.start(where);
    cleanups.push(() => listener.close());
    const sender = new UnixDatagramSender(encodeSockaddrUn(where));
    cleanups.push(() => sender.close());
    expect(sender.send(Buffer.from('READY=1\nSTATUS=hello'))).toBe(0);
    expect(sender.send(Buffer.from('WATCHDOG=1'))).toBe(0);
    const deadline = Date.now() + 10_000;
    while (listener.received.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(listener.messages).toEqual(['READY=1\nSTATUS=hello', 'WATCHDOG=1']);
  });

  it('answers ECONNREFUSED when nobody listens, without blocking or throwing', () => {
    const t = tempDir();
    cleanups.push(t.cleanup);
    const sender = new UnixDatagramSender(
      encodeSockaddrUn(`@ovn-bgp-speaker-nobody-${process.pid}-${Date.now()}`),
    );
    cleanups.push(() => sender.close());
    // ECONNREFUSED (111) on Linux for an abstract name nobody bound.
    expect(sender.send(Buffer.from('READY=1'))).toBe(111);
  });
});
