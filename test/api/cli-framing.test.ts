import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type CliReply,
  encodeCliReply,
  encodeCliRequest,
  isCliRequest,
  parseCliRequest,
} from '../../src/api/cli-framing.js';
import { LineSplitter } from '../../src/api/framing.js';

/** What the reply lines put on each stream, as the installed command's awk reads them. */
function decodeReply(pieces: readonly string[]): { out: string; err: string; status: number | undefined } {
  let out = '';
  let err = '';
  let status: number | undefined;
  for (const line of pieces.join('').split('\n').slice(0, -1)) {
    if (line.startsWith('1 ')) out += `${line.slice(2)}\n`;
    else if (line.startsWith('2 ')) err += `${line.slice(2)}\n`;
    else if (/^exit \d+$/.test(line)) status = Number(line.slice(5));
    else throw new Error(`not a reply line: ${JSON.stringify(line)}`);
  }
  return { out, err, status };
}

/** Any text, weighted to what the framing must escape or could mistake for itself. */
const TEXT = fc.string({
  unit: fc.oneof(
    fc.constantFrom(' ', '"', '\\', '\n', '\r', '\t', '1 ', '2 ', 'exit 0', '{', 'cli'),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  ),
  maxLength: 40,
});

describe('the CLI request line', () => {
  it.each([
    { line: 'cli', argv: [] },
    { line: 'cli "show" "summary"', argv: ['show', 'summary'] },
    { line: 'cli ""', argv: [''] },
    { line: 'cli "a b" "c\\"d" "e\\\\f"', argv: ['a b', 'c"d', 'e\\f'] },
    { line: 'cli "x\\ny\\rz\\tw"', argv: ['x\ny\rz\tw'] },
    { line: 'cli "née" "字"', argv: ['née', '字'] },
  ])('reads $line', ({ line, argv }) => {
    expect(parseCliRequest(line)).toEqual(argv);
    expect(encodeCliRequest(argv)).toBe(`${line}\n`);
  });

  it.each([
    ['clix "a"', 'another first word'],
    ['cli a', 'an unquoted argument'],
    ['cli  "a"', 'two spaces'],
    ['cli "a""b"', 'no space between arguments'],
    ['cli "a" ', 'a trailing space'],
    ['cli "a', 'an unterminated quote'],
    ['cli "a\\"', 'an escaped closing quote'],
    ['cli "\\x"', 'an escape it does not know'],
    ['cli "a\\', 'a backslash at the end'],
  ])('refuses %j (%s)', (line) => {
    expect(parseCliRequest(line)).toBeUndefined();
  });

  it('is told apart from a JSON request by its first word', () => {
    expect(isCliRequest('cli "show"')).toBe(true);
    expect(isCliRequest('cli')).toBe(true);
    expect(isCliRequest('{"id":1,"method":"summary"}')).toBe(false);
    expect(isCliRequest('client')).toBe(false);
  });

  it('carries any argv on one line, read back as it was', () => {
    fc.assert(
      fc.property(fc.array(TEXT, { maxLength: 8 }), (argv) => {
        const line = encodeCliRequest(argv);
        expect(line.endsWith('\n')).toBe(true);
        // One line whatever the arguments hold, and the socket's line splitter gives it back whole.
        const split = new LineSplitter(1 << 20).push(Buffer.from(line));
        expect(split.lines).toHaveLength(1);
        expect(parseCliRequest(split.lines[0]!)).toEqual(argv);
      }),
    );
  });
});

describe('the CLI reply', () => {
  it('tags each line with its stream and ends with the status', () => {
    const reply: CliReply = {
      writes: [
        { fd: 1, text: 'Neighbor  AS\nspine1    65001' },
        { fd: 2, text: 'ovn-bgp-speaker: careful' },
        { fd: 1, text: '' },
      ],
      status: 2,
    };
    expect([...encodeCliReply(reply, 100)].join('')).toBe(
      '1 Neighbor  AS\n1 spine1    65001\n2 ovn-bgp-speaker: careful\n1 \nexit 2\n',
    );
  });

  it('comes in pieces of at most the slice, status last', () => {
    const text = Array.from({ length: 10 }, (_, i) => `line ${i}`).join('\n');
    const pieces = [...encodeCliReply({ writes: [{ fd: 1, text }], status: 0 }, 3)];
    expect(pieces.map((p) => p.split('\n').length - 1)).toEqual([3, 3, 3, 2]);
    expect(pieces.at(-1)).toBe('1 line 9\nexit 0\n');
  });

  it('gives each stream exactly what the command printed (console.log adds the newline)', () => {
    const write = fc.record({ fd: fc.constantFrom(1 as const, 2 as const), text: TEXT });
    fc.assert(
      fc.property(
        fc.array(write, { maxLength: 6 }),
        fc.nat(255),
        fc.integer({ min: 1, max: 4 }),
        (writes, status, slice) => {
          const decoded = decodeReply([...encodeCliReply({ writes, status }, slice)]);
          const printed = (fd: 1 | 2) =>
            writes
              .filter((w) => w.fd === fd)
              .map((w) => `${w.text}\n`)
              .join('');
          expect(decoded).toEqual({ out: printed(1), err: printed(2), status });
        },
      ),
    );
  });
});
