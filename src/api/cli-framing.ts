/**
 * The control socket's plain-text framing for the CLI, made to be spoken by a POSIX shell with
 * a unix-socket connector and one awk (the installed command does, src/cli/ovn-bgp-speaker.sh):
 *
 *   → cli "show" "rib" "--limit" "5"
 *   ← 1 Prefix               Next Hop ...        a line the command wrote to stdout
 *   ← 2 ovn-bgp-speaker: ...                    a line it wrote to stderr
 *   ← exit 0                                    its exit status; the speaker then closes
 *
 * A request is the keyword `cli` and each argument double-quoted, `\\`, `\"`, `\n`, `\r` and `\t`
 * escaped, nothing else; it never starts with `{`, so it is told apart from a JSON request by
 * its first word. The reply is tagged line by line, so any text (an empty line, one that looks
 * like a tag) goes through; the command's output always ends with a newline (it writes whole
 * lines), and the last `exit` line is what tells a complete answer from a cut one.
 */

/** The first word of a CLI request line. */
export const CLI_KEYWORD = 'cli';

/** The tag of a reply line: the stream it goes to (as the fd numbers), or the exit status. */
export const CliTag = { STDOUT: '1', STDERR: '2', EXIT: 'exit' } as const;

/** What the command wrote, in order, to stdout (1) or stderr (2). */
export interface CliWrite {
  readonly fd: 1 | 2;
  readonly text: string;
}

export interface CliReply {
  readonly writes: readonly CliWrite[];
  readonly status: number;
}

const ESCAPES: Readonly<Record<string, string>> = { '\\': '\\', '"': '"', n: '\n', r: '\r', t: '\t' };
const QUOTED = /[\\"\n\r\t]/g;
const QUOTE_OF: Readonly<Record<string, string>> = {
  '\\': '\\\\',
  '"': '\\"',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};

/** Whether a request line is meant as a CLI request (it may still be malformed). */
export function isCliRequest(line: string): boolean {
  return line === CLI_KEYWORD || line.startsWith(`${CLI_KEYWORD} `);
}

/** The request line for an argv, newline included. */
export function encodeCliRequest(argv: readonly string[]): string {
  let line = CLI_KEYWORD;
  for (const arg of argv) line += ` "${arg.replace(QUOTED, (c) => QUOTE_OF[c]!)}"`;
  return `${line}\n`;
}

/** The argv of a CLI request line (without its newline), or undefined when it is malformed. */
export function parseCliRequest(line: string): string[] | undefined {
  if (!isCliRequest(line)) return undefined;
  const argv: string[] = [];
  let i = CLI_KEYWORD.length;
  while (i < line.length) {
    // Exactly one space, then a quoted argument.
    if (line[i] !== ' ' || line[i + 1] !== '"') return undefined;
    i += 2;
    let arg = '';
    for (;;) {
      if (i >= line.length) return undefined;
      const c = line[i]!;
      if (c === '"') break;
      if (c === '\\') {
        const escaped = ESCAPES[line[i + 1] ?? ''];
        if (escaped === undefined) return undefined;
        arg += escaped;
        i += 2;
      } else {
        arg += c;
        i += 1;
      }
    }
    argv.push(arg);
    i += 1;
  }
  return argv;
}

/**
 * The reply in pieces of at most `sliceLines` lines, so the writer can yield to the event loop
 * between them: a `show rib` of a full table is megabytes of text.
 */
export function* encodeCliReply(reply: CliReply, sliceLines: number): Generator<string> {
  let piece = '';
  let lines = 0;
  for (const { fd, text } of reply.writes) {
    const tag = fd === 1 ? CliTag.STDOUT : CliTag.STDERR;
    // Each write is whole lines: console.log adds the newline the text does not end with.
    let start = 0;
    for (;;) {
      const nl = text.indexOf('\n', start);
      const end = nl === -1 ? text.length : nl;
      piece += `${tag} ${text.slice(start, end)}\n`;
      if (++lines >= sliceLines) {
        yield piece;
        piece = '';
        lines = 0;
      }
      if (nl === -1) break;
      start = nl + 1;
    }
  }
  yield `${piece}${CliTag.EXIT} ${reply.status}\n`;
}

/** One control request made in the speaker's own process: the answer's result, or it throws ControlError. */
export type InProcessCall = (method: string, params: object) => Promise<unknown>;

/**
 * Runs a CLI command in the speaker, for a `cli` request: what it wrote and its exit status, or
 * null when it is not a command the control socket runs (the client then runs it itself).
 */
export type CliRunner = (argv: readonly string[], call: InProcessCall) => Promise<CliReply | null>;
