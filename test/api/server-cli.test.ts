import { describe, expect, it } from 'vitest';
import { encodeCliRequest } from '../../src/api/cli-framing.js';
import type { RibEntryView } from '../../src/api/index.js';
import { runCliInSpeaker } from '../../src/cli/serve.js';
import { runControlCommand } from '../../src/cli/show.js';
import { fakeControl, RIB } from './fake-control.js';
import { controlServers, exchange, request } from './support.js';

const fx = controlServers('control.sock', { cli: runCliInSpeaker });

const start = fx.start;

/** The reply lines read back into the streams, as the installed command's awk does. */
function streams(lines: readonly string[]): { out: string; err: string; status: number } {
  const pick = (tag: string) =>
    lines
      .filter((l) => l.startsWith(tag))
      .map((l) => `${l.slice(2)}\n`)
      .join('');
  const last = lines.at(-1) ?? '';
  expect(last).toMatch(/^exit \d+$/);
  return { out: pick('1 '), err: pick('2 '), status: Number(last.slice(5)) };
}

/** FRR's epoch fields count whole seconds from now: two runs may fall on either side of one. */
function sameSecond<T extends { out: string }>(r: T): T {
  return { ...r, out: r.out.replace(/("(?:peerUptime|bgpTimerUp)EstablishedEpoch": )\d+/g, '$1N') };
}

/** The same command through the Node client over the socket, printed as console.log prints. */
async function overTheSocket(argv: readonly string[]): Promise<{ out: string; err: string; status: number }> {
  let out = '';
  let err = '';
  const [command, ...rest] = argv;
  const status = await runControlCommand(command as 'show' | 'neighbor', [...rest, '--socket', fx.path], {
    out: (t) => {
      out += `${t}\n`;
    },
    err: (t) => {
      err += `${t}\n`;
    },
    env: {},
  });
  return { out, err, status };
}

describe('a cli request on the control socket', () => {
  it('is answered with the command’s output, tagged by stream, its status, and the connection closed', async () => {
    await start();
    // No half-close: a client that cannot (nc without -N) still learns the answer is complete.
    const { lines, closed } = await exchange(fx.path, encodeCliRequest(['show', 'summary']), 0);
    expect(closed).toBe(true);
    expect(lines[0]).toBe('1 BGP router identifier 198.18.0.1, local AS number 64512');
    expect(lines.at(-1)).toBe('exit 0');
  });

  it.each([
    [['show', 'summary']],
    [['show', 'summary', '--json']],
    [['show', 'neighbors', '--json']],
    [['show', 'neighbors', 'spine1']],
    [['show', 'rib']],
    [['show', 'rib', '198.18.1.0/24']],
    [['show', 'rib', '198.18.99.0/24']],
    [['show', 'rib', '--limit', '1', '--json=native']],
    [['show', 'advertised', 'spine1']],
    [['show', 'ovn']],
    [['show', 'sinks']],
    [['show', 'bmp']],
    [['neighbor', 'spine1', 'shutdown', '--message', 'maintenance "window" 2\\3']],
    [['neighbor', 'spine9', 'reset']],
    [['show', 'rib', '--afi', '5']],
    [['show', 'everything']],
    [['show', 'summary', '--json=yaml']],
  ])('prints %j as the Node client does over the socket: same bytes, stderr and status', async (argv) => {
    await start();
    const { lines } = await exchange(fx.path, encodeCliRequest(argv), 0);
    expect(sameSecond(streams(lines))).toEqual(sameSecond(await overTheSocket(argv)));
  });

  it('answers the JSON requests before it on the connection first, and none after it', async () => {
    await start();
    const data = `${request(7, 'version')}${encodeCliRequest(['show', 'sinks'])}${request(8, 'version')}`;
    const { lines, closed } = await exchange(fx.path, data, 0);
    expect(closed).toBe(true);
    expect(JSON.parse(lines[0]!)).toMatchObject({ id: 7, result: { api: 1 } });
    expect(lines.slice(1).every((l) => /^(1 |2 |exit \d+$)/.test(l))).toBe(true);
    expect(lines.at(-1)).toBe('exit 0');
  });

  it.each([
    ['a malformed line', 'cli "show" summary\n', 'malformed cli request'],
    ['another command', encodeCliRequest(['version']), 'not a command the control socket runs'],
    ['help', encodeCliRequest(['show', '--help']), 'not a command the control socket runs'],
  ])('refuses %s with one JSON error line, and closes', async (_what, data, message) => {
    await start();
    const { lines, closed } = await exchange(fx.path, data, 0);
    expect(closed).toBe(true);
    expect(lines.map((l) => JSON.parse(l))).toEqual([{ id: null, error: { code: 'bad-request', message } }]);
  });

  it('is refused the same way by a server that runs no CLI (the client then runs the command)', async () => {
    await start({ cli: undefined });
    const { lines, closed } = await exchange(fx.path, encodeCliRequest(['show', 'summary']), 0);
    expect(closed).toBe(true);
    expect(JSON.parse(lines[0]!)).toEqual({
      id: null,
      error: { code: 'bad-request', message: 'not a command the control socket runs' },
    });
  });

  it('hands an answer longer than it formats back to the client, with one JSON error line', async () => {
    await start({ cliMaxResultEntries: 3 });
    const short = await exchange(fx.path, encodeCliRequest(['show', 'rib', '--limit', '3']), 0);
    expect(short.lines.at(-1)).toBe('exit 0');
    const long = await exchange(fx.path, encodeCliRequest(['show', 'rib']), 0);
    expect(long.closed).toBe(true);
    expect(long.lines.map((l) => JSON.parse(l))).toEqual([
      {
        id: null,
        error: {
          code: 'bad-request',
          message: 'an answer of more than 3 entries is formatted by the client',
        },
      },
    ]);
  });

  it('sends a long answer in slices, the event loop turning between them', async () => {
    const entries: RibEntryView[] = Array.from({ length: 5000 }, (_, i) => ({
      ...RIB[0]!,
      prefix: `10.${i >> 8}.${i & 255}.0/24`,
    }));
    await start({
      control: fakeControl({ rib: () => entries }),
      responseSliceEntries: 100,
      cliMaxResultEntries: 5000,
    });
    let turns = 0;
    let counting = true;
    const count = () => {
      turns += 1;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    const { lines } = await exchange(fx.path, encodeCliRequest(['show', 'rib', '--limit', '5000']), 0);
    counting = false;
    const { out, status } = streams(lines);
    expect(status).toBe(0);
    expect(out).toContain('10.19.135.0/24');
    // The result serialised 100 entries at a time and the text written 100 lines at a time,
    // a turn of the loop after each: one blocking write would leave a handful.
    expect(turns).toBeGreaterThan(50);
  });
});
