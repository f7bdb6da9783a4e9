import { EventEmitter } from 'node:events';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RunStatus, runSpeaker, type Speaker } from '../../src/speaker/index.js';
import { NotifyListener } from '../service/notify-listener.js';
import { ACCEPT_ALL, Probe, probePeer, speakerSection, tempDir, until, yamlOf } from './support.js';

// `run --config FILE` under a service manager: the sd_notify datagrams a unix socket bound in
// the abstract namespace (as systemd's own is) receives over the speaker's life.

let cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

/** WATCHDOG_USEC 400 ms: a ping every 200 ms. */
const WATCHDOG_USEC = 400_000;
const PING_S = WATCHDOG_USEC / 2 / 1e6;

describe('runSpeaker under systemd (sd_notify)', () => {
  it('READY once it serves, WATCHDOG while it runs, RELOADING/READY around SIGHUP, STOPPING on SIGTERM', async () => {
    const a = await Probe.start('127.0.0.2', 65001, '198.18.0.12');
    cleanups.push(() => a.close());
    const t = tempDir();
    cleanups.push(t.cleanup);
    const target = `@ovn-bgp-speaker-notify-${process.pid}-${Date.now()}`;
    const manager = await NotifyListener.start(target);
    cleanups.push(() => manager.close());

    const file = join(t.dir, 'speaker.yaml');
    const doc = {
      speaker: speakerSection(t.dir),
      peers: [probePeer(a, { import: ['all'], export: ['all'] })],
      routes: [{ prefix: '198.18.190.0/24' }],
      policies: { all: ACCEPT_ALL },
    };
    writeFileSync(file, yamlOf(doc));
    const signals = new EventEmitter();
    let speaker: Speaker | undefined;
    let servingAtStart = false;
    const exit = runSpeaker(file, {
      signals,
      env: { NOTIFY_SOCKET: target, WATCHDOG_USEC: String(WATCHDOG_USEC), WATCHDOG_PID: String(process.pid) },
      logDestination: { write: () => {} },
      onStarted: (s) => {
        speaker = s;
        // What READY=1 promises: the listener and the control socket are up.
        servingAtStart = s.listenAddress !== null && existsSync(s.controlSocket!);
      },
    });
    const has = (re: RegExp) => manager.messages.some((m) => re.test(m));
    await until(() => has(/^READY=1/), 'READY=1');
    expect(servingAtStart).toBe(true);
    expect(manager.messages[0]).toBe('STATUS=starting');
    expect(manager.messages[1]).toMatch(/^READY=1\nSTATUS=[01]\/1 sessions Established, \d+ routes/);

    // The watchdog: a ping every half WATCHDOG_USEC, never sooner (a timer never fires early).
    const pings = () => manager.received.filter((d) => d.message === 'WATCHDOG=1');
    await until(() => pings().length >= 6, 'six watchdog pings', 20_000);
    const gaps = pings()
      .slice(1)
      .map((d, i) => d.at - pings()[i]!.at);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(PING_S * 0.9);

    await until(() => speaker !== undefined && a.established, 'the session up');
    writeFileSync(file, yamlOf({ ...doc, routes: [{ prefix: '198.18.191.0/24' }] }));
    signals.emit('SIGHUP');
    await until(() => has(/configuration reloaded/), 'READY=1 after the reload');
    const reloading = manager.received.find((d) => d.message.startsWith('RELOADING=1'))!;
    const [, usec] = /\nMONOTONIC_USEC=(\d+)\n/.exec(reloading.message)!;
    // CLOCK_MONOTONIC, the listener's clock too: sent just before it was received.
    const lead = reloading.at * 1e6 - Number(usec);
    expect(lead).toBeGreaterThanOrEqual(0);
    expect(lead).toBeLessThan(60e6);
    expect(reloading.message).toMatch(/STATUS=reloading .*speaker\.yaml$/);
    // After the READY of the start: RELOADING, then READY once the reload is applied.
    const order = manager.messages.filter((m) => /^(RELOADING|READY)=1/.test(m)).slice(1);
    expect(order.map((m) => m.split('=')[0])).toEqual(['RELOADING', 'READY']);
    expect(order[1]).toMatch(/^READY=1\nSTATUS=configuration reloaded; 1\/1 sessions Established/);

    // A file that does not load: READY=1 again, the status says so.
    writeFileSync(file, 'speaker: [');
    signals.emit('SIGHUP');
    await until(() => has(/configuration not reloaded/), 'the refused reload in the status');

    signals.emit('SIGTERM');
    expect(await exit).toBe(RunStatus.OK);
    await until(() => has(/^STOPPING=1/), 'STOPPING=1');
    const stoppingAt = manager.messages.findIndex((m) => m.startsWith('STOPPING=1'));
    expect(manager.messages[stoppingAt]).toBe('STOPPING=1\nSTATUS=stopping: Cease to every peer');
    // No ping after STOPPING: the watchdog is off while the speaker winds down.
    await new Promise((r) => setTimeout(r, PING_S * 3 * 1000));
    expect(manager.messages.slice(stoppingAt + 1)).toEqual([]);
  });
});
