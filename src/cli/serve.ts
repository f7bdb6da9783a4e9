/**
 * The CLI's show and neighbor commands run inside the speaker, for the control socket's `cli`
 * requests (src/api/cli-framing.ts): the very code the Node client runs, with the output
 * captured instead of printed and the request answered in-process instead of over the socket,
 * so a client needs no Node to print what the Node client prints (vtysh relays bgpd's text so).
 */
import type { CliReply, CliRunner, CliWrite } from '../api/cli-framing.js';
import { runControlCommand } from './show.js';
import { asksForHelp } from './usage.js';

/** The status quick.ts sets when a command throws something it did not expect. */
const FAILED = 1;

export const runCliInSpeaker: CliRunner = async (argv, call): Promise<CliReply | null> => {
  const [command, ...rest] = argv;
  // Help and every other command stay with the client, as the installed command has it.
  if ((command !== 'show' && command !== 'neighbor') || asksForHelp(rest)) return null;
  const writes: CliWrite[] = [];
  // No environment: it only chooses the socket, and this is the socket.
  const io = {
    out: (text: string) => writes.push({ fd: 1, text }),
    err: (text: string) => writes.push({ fd: 2, text }),
    env: {},
  };
  try {
    const status = await runControlCommand(command, rest, io, (_socket, method, params) =>
      call(method, params),
    );
    return { writes, status };
  } catch (e) {
    writes.push({ fd: 2, text: `ovn-bgp-speaker: ${(e as Error).message}` });
    return { writes, status: FAILED };
  }
};
