import { afterEach, describe, expect, it } from 'vitest';
import { Sessions } from '../../../src/bgp/session/index.js';
import {
  ErrorCode,
  FsmSubcode,
  HeaderSubcode,
  MessageType,
  OpenSubcode,
  RouteRefreshSubcode,
  UpdateSubcode,
} from '../../../src/bgp/wire/constants.js';
import { KEEPALIVE } from '../../../src/bgp/wire/keepalive.js';
import { encodeMessageBytes } from '../../../src/bgp/wire/message.js';
import { buildOpen } from '../../../src/bgp/wire/open.js';
import { concat, FakeScheduler, header, RawPeer, record, TEST_TIMERS, until } from './support.js';

// "NOTIFICATION on every error with the right code": a scripted peer sends each kind of bad
// message to a real session and reads back what it answers (RFC 4271 section 6, RFC 6608,
// RFC 7313, RFC 7606).

const PEER_AS = 65001;
const PEER_ID = 0xc6120063; // 198.18.0.99

const validOpen = (patch: Partial<Parameters<typeof buildOpen>[0]> = {}) =>
  encodeMessageBytes(
    buildOpen({
      as: PEER_AS,
      bgpId: PEER_ID,
      holdTime: 9,
      capabilities: [
        { name: 'multiprotocol', afi: 1, reserved: 0, safi: 1 },
        { name: 'route-refresh' },
        { name: 'enhanced-route-refresh' },
        { name: 'four-octet-as', as: PEER_AS },
      ],
      ...patch,
    }),
  );

/** A valid OPEN with bytes overwritten at `offset` (from the start of the message). */
function patchedOpen(offset: number, bytes: number[]): Uint8Array {
  const m = validOpen();
  m.set(bytes, offset);
  return m;
}

// OPEN body offsets (RFC 4271 4.2), after the 19-octet header.
const VERSION = 19;
const HOLD_TIME = 22;
const BGP_ID = 24;
const OPT_PARAMS_LEN = 28;

let sessions: Sessions | undefined;
let raw: RawPeer | undefined;
afterEach(async () => {
  raw?.destroy();
  await sessions?.close();
  sessions = undefined;
  raw = undefined;
});

/** A speaker whose one peer (127.0.0.1, passive) is played by a raw socket. */
async function speaker() {
  sessions = await Sessions.create(
    { localAs: 65002, routerId: '198.18.0.2', listen: { host: '127.0.0.1', port: 0 } },
    { scheduler: new FakeScheduler(), random: () => 1 },
  );
  const peer = sessions.addPeer({
    address: '127.0.0.1',
    remoteAs: PEER_AS,
    passive: true,
    ...TEST_TIMERS,
    enabled: false,
  });
  const rec = record(peer);
  peer.start();
  raw = await RawPeer.connect(sessions.address!.port);
  await raw.next('open');
  return { peer, rec, raw };
}

/** Completes the handshake from the raw side: OPEN, KEEPALIVE, until the speaker is Established. */
async function establishedSpeaker() {
  const s = await speaker();
  s.raw.write(concat(validOpen(), encodeMessageBytes(KEEPALIVE)));
  await until(() => s.peer.state === 'Established', 'Established');
  return s;
}

interface Case {
  readonly name: string;
  readonly bytes: () => Uint8Array;
  readonly code: number;
  readonly subcode: number;
  readonly data?: number[];
}

const BEFORE_ESTABLISHED: Case[] = [
  {
    name: 'a marker that is not all ones',
    bytes: () => header(19, MessageType.KEEPALIVE, 0),
    code: ErrorCode.MESSAGE_HEADER,
    subcode: HeaderSubcode.CONNECTION_NOT_SYNCHRONIZED,
  },
  {
    name: 'a length above 4096',
    bytes: () => header(5000, MessageType.UPDATE),
    code: ErrorCode.MESSAGE_HEADER,
    subcode: HeaderSubcode.BAD_MESSAGE_LENGTH,
    data: [0x13, 0x88],
  },
  {
    name: 'a KEEPALIVE with a body',
    bytes: () => concat(header(20, MessageType.KEEPALIVE), new Uint8Array(1)),
    code: ErrorCode.MESSAGE_HEADER,
    subcode: HeaderSubcode.BAD_MESSAGE_LENGTH,
    data: [0, 20],
  },
  {
    name: 'an unknown message type',
    bytes: () => header(19, 9),
    code: ErrorCode.MESSAGE_HEADER,
    subcode: HeaderSubcode.BAD_MESSAGE_TYPE,
    data: [9],
  },
  {
    name: 'OPEN version 3',
    bytes: () => patchedOpen(VERSION, [3]),
    code: ErrorCode.OPEN_MESSAGE,
    subcode: OpenSubcode.UNSUPPORTED_VERSION_NUMBER,
    data: [0, 4],
  },
  {
    name: 'OPEN with another AS than configured',
    bytes: () => validOpen({ as: 65077, capabilities: [{ name: 'four-octet-as', as: 65077 }] }),
    code: ErrorCode.OPEN_MESSAGE,
    subcode: OpenSubcode.BAD_PEER_AS,
  },
  {
    name: 'OPEN with BGP Identifier 0',
    bytes: () => patchedOpen(BGP_ID, [0, 0, 0, 0]),
    code: ErrorCode.OPEN_MESSAGE,
    subcode: OpenSubcode.BAD_BGP_IDENTIFIER,
  },
  {
    name: 'OPEN with the deprecated Authentication parameter (type 1)',
    bytes: () => {
      const m = patchedOpen(OPT_PARAMS_LEN + 1, [1]);
      return m;
    },
    code: ErrorCode.OPEN_MESSAGE,
    subcode: OpenSubcode.UNSUPPORTED_OPTIONAL_PARAMETER,
  },
  {
    name: 'OPEN with a hold time of 2 s',
    bytes: () => patchedOpen(HOLD_TIME, [0, 2]),
    code: ErrorCode.OPEN_MESSAGE,
    subcode: OpenSubcode.UNACCEPTABLE_HOLD_TIME,
  },
  {
    name: 'a KEEPALIVE in OpenSent (RFC 6608)',
    bytes: () => encodeMessageBytes(KEEPALIVE),
    code: ErrorCode.FSM,
    subcode: FsmSubcode.UNEXPECTED_MESSAGE_IN_OPENSENT,
    data: [MessageType.KEEPALIVE],
  },
  {
    name: 'an UPDATE in OpenSent (RFC 6608)',
    bytes: () => concat(header(23, MessageType.UPDATE), new Uint8Array(4)),
    code: ErrorCode.FSM,
    subcode: FsmSubcode.UNEXPECTED_MESSAGE_IN_OPENSENT,
    data: [MessageType.UPDATE],
  },
];

const IN_ESTABLISHED: Case[] = [
  {
    name: 'an UPDATE whose attribute length runs past the message',
    // withdrawn length 0, total path attribute length 200, nothing after it
    bytes: () => concat(header(23, MessageType.UPDATE), Uint8Array.of(0, 0, 0, 200)),
    code: ErrorCode.UPDATE_MESSAGE,
    subcode: UpdateSubcode.MALFORMED_ATTRIBUTE_LIST,
  },
  {
    name: 'an UPDATE with an NLRI that does not parse (RFC 7606 5.3)',
    // no withdrawn, no attributes, one NLRI of length 33
    bytes: () => concat(header(24, MessageType.UPDATE), Uint8Array.of(0, 0, 0, 0, 33)),
    code: ErrorCode.UPDATE_MESSAGE,
    subcode: UpdateSubcode.INVALID_NETWORK_FIELD,
  },
  {
    name: 'a BoRR of five octets (RFC 7313 5)',
    bytes: () => concat(header(24, MessageType.ROUTE_REFRESH), Uint8Array.of(0, 1, 1, 1, 0)),
    code: ErrorCode.ROUTE_REFRESH_MESSAGE,
    subcode: RouteRefreshSubcode.INVALID_MESSAGE_LENGTH,
    data: [...header(24, MessageType.ROUTE_REFRESH), 0, 1, 1, 1, 0],
  },
  {
    name: 'a second OPEN (RFC 6608)',
    bytes: () => validOpen(),
    code: ErrorCode.FSM,
    subcode: FsmSubcode.UNEXPECTED_MESSAGE_IN_ESTABLISHED,
    data: [MessageType.OPEN],
  },
];

describe('before Established', () => {
  it.each(BEFORE_ESTABLISHED)('$name: NOTIFICATION $code/$subcode, then close', async (c) => {
    const s = await speaker();
    s.raw.write(c.bytes());
    const n = await s.raw.notification();
    expect([n.code, n.subcode]).toEqual([c.code, c.subcode]);
    if (c.data) expect([...n.data]).toEqual(c.data);
    expect(s.rec.notifications[0]).toMatchObject({ direction: 'sent', code: c.code, subcode: c.subcode });
    expect(s.peer.state).toBe('Idle');
  });
});

describe('in Established', () => {
  it.each(IN_ESTABLISHED)('$name: NOTIFICATION $code/$subcode, then close', async (c) => {
    const s = await establishedSpeaker();
    s.raw.write(c.bytes());
    const n = await s.raw.notification();
    expect([n.code, n.subcode]).toEqual([c.code, c.subcode]);
    if (c.data) expect([...n.data]).toEqual(c.data);
    expect(s.rec.down).toHaveLength(1);
    expect(s.peer.state).toBe('Idle');
  });

  it('an UPDATE with a bad ORIGIN is treated as withdraw (RFC 7606), and the session stays', async () => {
    const s = await establishedSpeaker();
    // ORIGIN value 7, AS_PATH empty, NEXT_HOP, NLRI 198.18.10.0/24
    const attrs = [0x40, 1, 1, 7, 0x40, 2, 0, 0x40, 3, 4, 127, 0, 0, 1];
    const body = [0, 0, 0, attrs.length, ...attrs, 24, 198, 18, 10];
    s.raw.write(concat(header(19 + body.length, MessageType.UPDATE), Uint8Array.from(body)));
    await until(() => s.rec.updates.length === 1, 'the UPDATE');
    expect(s.rec.updates[0]!.action).toBe('treat-as-withdraw');
    expect(s.peer.state).toBe('Established');
    expect(s.raw.has('notification')).toBe(false);
  });

  it('a ROUTE-REFRESH of an unknown subtype is ignored (RFC 7313 5), a known one reported', async () => {
    const s = await establishedSpeaker();
    s.raw.write(concat(header(23, MessageType.ROUTE_REFRESH), Uint8Array.of(0, 1, 9, 1)));
    s.raw.write(concat(header(23, MessageType.ROUTE_REFRESH), Uint8Array.of(0, 1, 0, 1)));
    await until(() => s.rec.refreshes.length === 1, 'the ROUTE-REFRESH');
    expect(s.rec.refreshes).toEqual([{ type: 'route-refresh', afi: 1, subtype: 0, safi: 1 }]);
    expect(s.peer.stats.received.routeRefresh).toBe(2);
    expect(s.peer.state).toBe('Established');
  });

  it('a NOTIFICATION from the peer is reported with its shutdown message and never answered', async () => {
    const s = await establishedSpeaker();
    const text = [...new TextEncoder().encode('bye')];
    s.raw.write(
      concat(
        header(19 + 2 + 1 + text.length, MessageType.NOTIFICATION),
        Uint8Array.of(6, 2, text.length, ...text),
      ),
    );
    await until(() => s.peer.state === 'Idle', 'Idle');
    expect(s.rec.notifications).toEqual([
      expect.objectContaining({ direction: 'received', code: 6, subcode: 2, message: 'bye' }),
    ]);
    await until(() => s.raw.closed, 'the close');
    expect(s.raw.has('notification')).toBe(false);
  });
});
