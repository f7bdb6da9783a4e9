import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CeaseSubcode, ErrorCode, OpenSubcode } from '../../../src/bgp/wire/constants.js';
import { BgpError } from '../../../src/bgp/wire/errors.js';
import {
  buildShutdown,
  decodeNotification,
  describeNotification,
  encodeNotification,
  HARD_RESET_CEASE_SUBCODES,
  hardResetCause,
  isHardReset,
  type NotificationMessage,
  notificationFromError,
  shutdownMessage,
  withHardReset,
} from '../../../src/bgp/wire/notification.js';
import { Reader } from '../../../src/bgp/wire/reader.js';
import { Writer } from '../../../src/bgp/wire/writer.js';
import { hex } from '../../support/hex.js';

const utf8 = (s: string) => new TextEncoder().encode(s);

function encode(m: NotificationMessage): Uint8Array {
  const w = new Writer(16);
  encodeNotification(w, m);
  return w.finish();
}

const decode = (body: Uint8Array) => decodeNotification(new Reader(body));
const notification = (
  code: number,
  subcode: number,
  data: Uint8Array = new Uint8Array(),
): NotificationMessage => ({
  type: 'notification',
  code,
  subcode,
  data,
});

interface ValueFixture {
  name: string;
  hex: Uint8Array;
  value: NotificationMessage;
  shutdown: string | null;
}

const valueFixtures: ValueFixture[] = [
  {
    // Sent by FRR 8.4.4 (`neighbor X shutdown message …`) and, octet for octet, by BIRD 2.0.12
    // (`disable p1 "…"`), recorded on loopback.
    name: 'FRR / BIRD administrative shutdown with a communication',
    hex: hex`06        # Cease
             02        # Administrative Shutdown
             12        # length 18
             6d61696e74656e616e63652077696e646f77   # "maintenance window"`,
    value: notification(6, 2, utf8('\x12maintenance window')),
    shutdown: 'maintenance window',
  },
  {
    name: 'GoBGP 3.10.0 administrative shutdown without data',
    hex: hex`06 02`,
    value: notification(6, 2),
    shutdown: null,
  },
  {
    name: 'administrative reset with an empty communication',
    hex: hex`06 04 00`,
    value: notification(6, 4, hex`00`),
    shutdown: '',
  },
  {
    name: 'administrative reset with UTF-8',
    hex: hex`06 04 07 72c3a96e6f7665   # "rénove"`,
    value: notification(6, 4, hex`07 72c3a96e6f7665`),
    shutdown: 'rénove',
  },
  {
    name: 'Bad Peer AS',
    hex: hex`02 02`,
    value: notification(2, 2),
    shutdown: null,
  },
  {
    name: 'Bad Message Length with the length field',
    hex: hex`01 02 0011`,
    value: notification(1, 2, hex`0011`),
    shutdown: null,
  },
  {
    name: 'hard reset (RFC 8538) wraps another code; not a shutdown communication',
    hex: hex`06 09 06 02 03 616263`,
    value: notification(6, 9, hex`06 02 03 616263`),
    shutdown: null,
  },
  {
    name: 'unknown code and subcode are kept',
    hex: hex`fe ff 01 02 03`,
    value: notification(0xfe, 0xff, hex`01 02 03`),
    shutdown: null,
  },
];

describe('NOTIFICATION fixtures', () => {
  it.each(valueFixtures)('$name decodes', ({ hex: body, value, shutdown }) => {
    const m = decode(body);
    expect(m).toEqual(value);
    expect(shutdownMessage(m)).toBe(shutdown);
  });

  it.each(valueFixtures)('$name re-encodes byte for byte', ({ hex: body, value }) => {
    expect(encode(value)).toEqual(body);
  });

  it.each([
    ['an empty body', hex``, hex`0013`],
    ['a body of 1 octet', hex`06`, hex`0014`],
  ])('%s is Bad Message Length (1/2) with the length field (RFC 4271 6.1)', (_name, body, data) => {
    let e: unknown;
    try {
      decode(body);
    } catch (err) {
      e = err;
    }
    expect(e).toBeInstanceOf(BgpError);
    expect(e).toMatchObject({ code: 1, subcode: 2, kind: 'notification-too-short', data });
  });

  it('copies the data out of the receive buffer', () => {
    const body = hex`06 02 01 61`;
    const m = decode(body);
    body[3] = 0x62;
    expect(shutdownMessage(m)).toBe('a');
  });
});

describe('shutdownMessage (RFC 9003)', () => {
  it.each([
    ['Length beyond the data', notification(6, 2, hex`05 6162`)],
    ['invalid UTF-8', notification(6, 2, hex`02 c328`)],
    ['an overlong encoding', notification(6, 2, hex`02 c080`)],
    ['a UTF-16 surrogate', notification(6, 2, hex`03 eda080`)],
    ['a cut multi-octet character', notification(6, 2, hex`01 c3`)],
    ['no data', notification(6, 2)],
    ['another Cease subcode', notification(6, 3, hex`01 61`)],
    ['another error code', notification(2, 2, hex`01 61`)],
  ])('%s gives null', (_name, n) => {
    expect(shutdownMessage(n)).toBeNull();
  });

  it('ignores octets after the communication', () => {
    expect(shutdownMessage(notification(6, 2, hex`01 61 ffff`))).toBe('a');
  });

  it('reads 255 octets', () => {
    const text = 'x'.repeat(255);
    expect(shutdownMessage(notification(6, 4, Uint8Array.from([255, ...utf8(text)])))).toBe(text);
  });

  it('keeps a leading byte-order mark', () => {
    expect(shutdownMessage(notification(6, 2, hex`03 efbbbf`))).toBe('\ufeff');
  });

  it('never throws on random data', () => {
    fc.assert(
      fc.property(fc.constantFrom(2, 4), fc.uint8Array({ maxLength: 300 }), (subcode, data) => {
        const text = shutdownMessage(notification(6, subcode, data));
        expect(text === null || typeof text === 'string').toBe(true);
      }),
      { numRuns: 20_000 },
    );
  });
});

describe('buildShutdown', () => {
  it('builds Cease / Administrative Shutdown by default, Reset on request', () => {
    expect(buildShutdown('maintenance window')).toEqual(valueFixtures[0].value);
    expect(buildShutdown('', CeaseSubcode.ADMINISTRATIVE_RESET)).toEqual(notification(6, 4, hex`00`));
  });

  it.each([
    ['ASCII', 'a'.repeat(300), 255, 'a'.repeat(255)],
    ['2-octet characters', 'é'.repeat(200), 254, 'é'.repeat(127)],
    ['3-octet characters', '€'.repeat(100), 255, '€'.repeat(85)],
    ['4-octet characters', '😀'.repeat(70), 252, '😀'.repeat(63)],
    ['an exact fit', `a${'é'.repeat(127)}`, 255, `a${'é'.repeat(127)}`],
    ['a 4-octet character across the limit', `${'a'.repeat(253)}😀`, 253, 'a'.repeat(253)],
  ])('cuts %s on a character boundary', (_name, text, length, kept) => {
    const n = buildShutdown(text);
    expect(n.data[0]).toBe(length);
    expect(n.data.length).toBe(length + 1);
    expect(shutdownMessage(n)).toBe(kept);
  });

  it('always yields a valid communication that is a prefix of the text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        const n = buildShutdown(text);
        const back = shutdownMessage(n);
        expect(back).not.toBeNull();
        expect(text.startsWith(back as string)).toBe(true);
        expect(n.data.length).toBeLessThanOrEqual(256);
        if (utf8(text).length <= 255) expect(back).toBe(text);
      }),
      { numRuns: 5_000 },
    );
  });
});

describe('helpers', () => {
  it('notificationFromError carries code, subcode and data', () => {
    const e = new BgpError('open-bad-peer-as', ErrorCode.OPEN_MESSAGE, OpenSubcode.BAD_PEER_AS, hex`0102`);
    expect(notificationFromError(e)).toEqual(notification(2, 2, hex`0102`));
  });

  it('describeNotification names the codes and quotes a shutdown communication', () => {
    expect(describeNotification(valueFixtures[0].value)).toBe(
      'CEASE/ADMINISTRATIVE_SHUTDOWN (6/2): "maintenance window"',
    );
    expect(describeNotification(notification(2, 2))).toBe('OPEN_MESSAGE/BAD_PEER_AS (2/2)');
  });
});

describe('NOTIFICATION properties', () => {
  const notificationArb = fc
    .record({
      code: fc.integer({ min: 0, max: 255 }),
      subcode: fc.integer({ min: 0, max: 255 }),
      data: fc.uint8Array({ maxLength: 64 }),
    })
    .map(({ code, subcode, data }) => notification(code, subcode, data));

  it('decode(encode(n)) is the identity', () => {
    fc.assert(
      fc.property(notificationArb, (n) => {
        expect(decode(encode(n))).toEqual(n);
      }),
      { numRuns: 5_000 },
    );
  });

  it('random bodies decode or throw a BgpError, nothing else', () => {
    fc.assert(
      // Plain comparisons: 100k runs of expect() would dominate the time.
      fc.property(fc.uint8Array({ maxLength: 32 }), (body) => {
        try {
          return Buffer.from(encode(decode(body))).equals(body);
        } catch (e) {
          if (!(e instanceof BgpError)) throw e;
          return body.length < 2;
        }
      }),
      { numRuns: 100_000 },
    );
  });
});

describe('RFC 8538 Hard Reset', () => {
  it('wraps Maximum Prefixes, Administrative Shutdown and Peer De-configured (section 5)', () => {
    const shutdown = buildShutdown('maintenance');
    const wrapped = withHardReset(shutdown);
    expect(encode(wrapped)).toEqual(
      hex`06 09                  # Cease / Hard Reset
          06 02                  # carries Cease / Administrative Shutdown
          0b 6d61696e74656e616e6365  # its RFC 9003 communication, "maintenance"`,
    );
    expect(
      withHardReset(notification(6, CeaseSubcode.MAXIMUM_NUMBER_OF_PREFIXES_REACHED, hex`0001 01 000003e8`)),
    ).toEqual(notification(6, 9, hex`06 01 0001 01 000003e8`));
    expect(withHardReset(notification(6, CeaseSubcode.PEER_DE_CONFIGURED))).toEqual(
      notification(6, 9, hex`06 03`),
    );
  });

  it('leaves graceful Ceases, other codes and a Hard Reset itself alone', () => {
    for (const n of [
      notification(ErrorCode.CEASE, CeaseSubcode.ADMINISTRATIVE_RESET),
      notification(ErrorCode.CEASE, CeaseSubcode.CONNECTION_COLLISION_RESOLUTION),
      notification(ErrorCode.CEASE, CeaseSubcode.OTHER_CONFIGURATION_CHANGE),
      notification(ErrorCode.CEASE, CeaseSubcode.OUT_OF_RESOURCES),
      notification(ErrorCode.HOLD_TIMER_EXPIRED, 0),
      notification(ErrorCode.UPDATE_MESSAGE, 1),
      notification(ErrorCode.CEASE, CeaseSubcode.HARD_RESET, hex`06 02`),
    ]) {
      expect(withHardReset(n)).toBe(n);
    }
    expect([...HARD_RESET_CEASE_SUBCODES].sort()).toEqual([1, 2, 3, 9]);
  });

  it('reads back the NOTIFICATION a received Hard Reset carries', () => {
    const received = decodeNotification(new Reader(hex`06 09 06 02 04 62796521`));
    expect(isHardReset(received)).toBe(true);
    expect(hardResetCause(received)).toEqual(notification(6, 2, hex`04 62796521`));
    expect(describeNotification(received)).toBe(
      'CEASE/HARD_RESET (6/9) for CEASE/ADMINISTRATIVE_SHUTDOWN (6/2): "bye!"',
    );
  });

  it('a Hard Reset without a cause inside is still one, described plainly', () => {
    const bare = notification(6, 9, hex`06`);
    expect(isHardReset(bare)).toBe(true);
    expect(hardResetCause(bare)).toBeNull();
    expect(describeNotification(bare)).toBe('CEASE/HARD_RESET (6/9)');
    expect(hardResetCause(notification(6, 2, hex`06 02`))).toBeNull();
  });
});
