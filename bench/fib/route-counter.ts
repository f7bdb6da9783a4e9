/**
 * The BGP-to-kernel bench's stopwatch, run in the receiver's namespace before the receiver
 * starts: it counts the routes of one family, table and protocol from the kernel's route
 * notifications (+1 per RTM_NEWROUTE that replaces nothing, -1 per RTM_DELROUTE) and says when
 * the count reached a number. Polling `ip route show` instead costs a full dump per look (17 s
 * for 1M IPv6 routes on the 2-core lab machine, competing with the receiver for CPU) and is only
 * as precise as one dump. A notification the kernel dropped (sk_drops, with NETLINK_NO_ENOBUFS)
 * makes the count unusable, and it says so; the runner checks the count with a dump anyway.
 *
 *   ip netns exec NS node route-counter.js '{"afi":2,"table":254,"protocol":186}'
 *   stdin: {"id":1,"cmd":"until","want":1000000,"timeoutMs":300000} -> {"ev":"reached","id":1,"t":...}
 */
import { Afi, type AfiCode } from '../../src/bgp/wire/constants.js';
import {
  NlmFlag,
  NlmsgType,
  NlView,
  openRtnlSocket,
  RtnlGroup,
  routeTableOf,
  splitMessages,
} from '../../src/fib/kernel/index.js';
import { configArgument, emit, reportFatal, serveCommands } from '../throughput/child-io.js';
import { sleep, wallClock } from '../throughput/clock.js';

export interface CounterConfig {
  readonly afi: AfiCode;
  readonly table: number;
  readonly protocol: number;
}

/** rtmsg: family at 0, rtm_protocol at 5. */
const RTM_FAMILY = 0;
const RTM_PROTOCOL = 5;
const AF: Record<AfiCode, number> = { [Afi.IPV4]: 2, [Afi.IPV6]: 10 };
/** A million notifications arrive faster than one turn of the loop may read them: room for all. */
const RECV_BUFFER = 256 << 20;
const CHECK_MS = 5;

reportFatal();
const config = configArgument<CounterConfig>();
const socket = openRtnlSocket({
  recvBuffer: RECV_BUFFER,
  sendBuffer: 1 << 16,
  groups: [config.afi === Afi.IPV4 ? RtnlGroup.IPV4_ROUTE : RtnlGroup.IPV6_ROUTE],
});
let count = 0;
let changedAt = wallClock();
let lost = '';
if (!socket.tuned.includes('no-enobufs') || socket.drops() === undefined)
  lost = 'the socket cannot count its drops (NETLINK_NO_ENOBUFS)';

socket.onMessage((d) => {
  const v = new NlView(d);
  splitMessages(v, (m) => {
    if (m.type !== NlmsgType.NEWROUTE && m.type !== NlmsgType.DELROUTE) return;
    if (routeTableOf(v, m) !== config.table) return;
    if (v.u8(m.body + RTM_FAMILY) !== AF[config.afi] || v.u8(m.body + RTM_PROTOCOL) !== config.protocol)
      return;
    if (m.type === NlmsgType.DELROUTE) count--;
    else if (!(m.flags & NlmFlag.REPLACE)) count++;
    changedAt = wallClock();
  });
});
socket.onError((e) => {
  lost ||= `socket error ${e.code ?? e.message}`;
});
emit({ ev: 'ready' });

function dropped(): string {
  const drops = socket.drops() ?? 0;
  if (drops > 0) lost ||= `${drops} notifications dropped`;
  return lost;
}

serveCommands(
  async (c) => {
    if (c.cmd === 'count') {
      emit({ ev: 'count', id: c.id, n: count, lost: dropped() });
      return;
    }
    if (c.cmd !== 'until') throw new Error(`unknown command ${c.cmd}`);
    const want = c.want as number;
    const deadline = wallClock() + (c.timeoutMs as number);
    while (count !== want && !dropped() && wallClock() < deadline) await sleep(CHECK_MS);
    emit({ ev: 'reached', id: c.id, ok: count === want && !lost, t: changedAt, n: count, lost });
  },
  () => socket.close(),
);
