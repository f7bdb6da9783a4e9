import { afterEach, describe, expect, it } from 'vitest';
import type { FibChange, FibRoute, FibTarget } from '../../src/fib/index.js';
import type { SinkName } from '../../src/speaker/forwarding.js';
import { Speaker } from '../../src/speaker/index.js';
import { configFrom, speakerSection, tempDir, until } from './support.js';

/** A forwarding plane in memory: what the speaker installed, by prefix. */
class MemoryTarget implements FibTarget {
  readonly routes = new Map<string, string[]>();
  closed = false;
  constructor(readonly name: string) {}
  async apply(changes: readonly FibChange[]): Promise<void> {
    for (const c of changes) {
      if (c.kind === 'add')
        this.routes.set(
          c.route.prefix.toString(),
          c.route.nextHops.map((h) => h.address),
        );
      else this.routes.delete(c.prefix.toString());
    }
  }
  async reconcile(all: readonly FibRoute[]): Promise<void> {
    this.routes.clear();
    for (const r of all)
      this.routes.set(
        r.prefix.toString(),
        r.nextHops.map((h) => h.address),
      );
  }
  async close(): Promise<void> {
    this.closed = true;
  }
}

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('the speaker and its sinks', () => {
  it('installs best paths into each configured sink, narrowed by its install policy, and rebuilds only the changed one on reload', async () => {
    const t = tempDir();
    cleanups.push(t.cleanup);
    const built: MemoryTarget[] = [];
    const doc = (table: number) => ({
      speaker: speakerSection(t.dir),
      routes: [
        { prefix: '198.18.100.0/24', next_hop: '198.18.0.50' },
        { prefix: '198.18.101.0/24', next_hop: '198.18.0.51' },
      ],
      prefix_lists: { only100: [{ action: 'permit', prefix: '198.18.100.0/24' }] },
      policies: { 'only-100': { statements: [{ match: { prefix_list: 'only100' }, action: 'accept' }] } },
      sinks: { kernel: { table, install: ['only-100'] }, zebra: {} },
    });
    const speaker = await Speaker.start(configFrom(doc(100)), {
      sinkTargets: (name: SinkName) => {
        const target = new MemoryTarget(name);
        built.push(target);
        return target;
      },
    });
    cleanups.push(() => speaker.close());
    const [kernel, zebra] = built;
    await until(() => zebra.routes.size === 2 && kernel.routes.size === 1, 'routes in both sinks');
    expect(Object.fromEntries(kernel.routes)).toEqual({ '198.18.100.0/24': ['198.18.0.50'] });
    expect(speaker.sinks().map((s) => [s.name, s.state])).toEqual([
      ['kernel', 'in-sync'],
      ['zebra', 'in-sync'],
    ]);
    const { ConfigStore, parseConfig } = await import('../../src/config/index.js');
    let text = JSON.stringify(doc(100));
    const store = ConfigStore.open('speaker.yaml', { load: (f) => parseConfig(text, { file: f }) });
    text = JSON.stringify(doc(101));
    await speaker.reload(store.reload());
    expect(kernel.closed).toBe(true);
    expect(zebra.closed).toBe(false);
    const rebuilt = built[2];
    await until(() => rebuilt.routes.size === 1, 'the rebuilt kernel sink reconciled');
    await speaker.close();
    expect(zebra.closed).toBe(true);
  });
});
