import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeCapabilities, encodeCapability } from '../../../src/bgp/wire/capabilities.js';
import { CeaseSubcode, ErrorCode } from '../../../src/bgp/wire/constants.js';
import {
  gracefulRestartCapability,
  HARD_RESET_CEASE_SUBCODES,
  hardResetCause,
  isHardReset,
  type LocalGracefulRestart,
  withHardReset,
} from '../../../src/bgp/wire/graceful-restart.js';
import {
  buildShutdown,
  decodeNotification,
  describeNotification,
  encodeNotification,
  type NotificationMessage,
} from '../../../src/bgp/wire/notification.js';
import { Reader } from '../../../src/bgp/wire/reader.js';
import { Writer } from '../../../src/bgp/wire/writer.js';
import { hex } from '../../support/hex.js';

const v4 = { afi: 1, safi: 1 };
const v6 = { afi: 2, safi: 1 };

function capabilityBytes(local: LocalGracefulRestart): Uint8Array {
  const w = new Writer(16);
  encodeCapability(w, gracefulRestartCapability(local));
  return w.finish();
}

function notificationBytes(n: NotificationMessage): Uint8Array {
  const w = new Writer(16);
  encodeNotification(w, n);
  return w.finish();
}

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

// What we advertise, byte for byte: RFC 4724 section 3 with the RFC 8538 N bit.
const capabilityFixtures: { name: string; local: LocalGracefulRestart; hex: Uint8Array }[] = [
  {
    name: 'a cold start: N only, both families without forwarding state',
    local: {
      restartTime: 120,
      restarting: false,
      notification: true,
      families: [
        { ...v4, forwarding: false },
        { ...v6, forwarding: false },
      ],
    },
    hex: hex`40 0a     # code 64, length 10
             40 78     # flags 0100 (N), restart time 120
             0001 01 00  # IPv4 unicast, no F
             0002 01 00  # IPv6 unicast, no F`,
  },
  {
    name: 'after a restart that kept the IPv4 kernel routes: R and N, F for IPv4 only',
    local: {
      restartTime: 90,
      restarting: true,
      notification: true,
      families: [
        { ...v4, forwarding: true },
        { ...v6, forwarding: false },
      ],
    },
    hex: hex`40 0a
             c0 5a       # flags 1100 (R, N), restart time 90
             0001 01 80  # IPv4 unicast, F
             0002 01 00  # IPv6 unicast`,
  },
  {
    name: 'the largest restart time, R without N, one family with F',
    local: {
      restartTime: 4095,
      restarting: true,
      notification: false,
      families: [{ ...v6, forwarding: true }],
    },
    hex: hex`40 06
             8f ff       # flags 1000 (R), restart time 4095
             0002 01 80`,
  },
  {
    name: 'no family at all (a helper only)',
    local: { restartTime: 1, restarting: false, notification: true, families: [] },
    hex: hex`40 02 40 01`,
  },
];

describe('our graceful restart capability', () => {
  it.each(capabilityFixtures)('$name', ({ local, hex: bytes }) => {
    expect(capabilityBytes(local)).toEqual(bytes);
  });

  it.each(capabilityFixtures)(
    '$name decodes to the R, N and F bits it was built from',
    ({ local, hex: bytes }) => {
      const [cap] = decodeCapabilities(new Reader(bytes));
      expect(cap).toEqual({
        name: 'graceful-restart',
        flags: (local.restarting ? 8 : 0) | (local.notification ? 4 : 0),
        restartTime: local.restartTime,
        families: local.families.map((f) => ({ afi: f.afi, safi: f.safi, flags: f.forwarding ? 0x80 : 0 })),
      });
    },
  );

  it('refuses a restart time the 12-bit field cannot hold', () => {
    for (const restartTime of [-1, 4096, 1.5]) {
      expect(() =>
        gracefulRestartCapability({ restartTime, restarting: false, notification: true, families: [] }),
      ).toThrow(RangeError);
    }
  });

  it('any R, N and F bits and time survive encode and decode', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 4095 }),
        fc.boolean(),
        fc.boolean(),
        fc.array(fc.record({ afi: fc.constantFrom(1, 2), safi: fc.constant(1), forwarding: fc.boolean() }), {
          maxLength: 8,
        }),
        (restartTime, restarting, notify, families) => {
          const local = { restartTime, restarting, notification: notify, families };
          const [cap] = decodeCapabilities(new Reader(capabilityBytes(local)));
          expect(cap).toEqual(gracefulRestartCapability(local));
        },
      ),
    );
  });
});

describe('RFC 8538 Hard Reset', () => {
  it('wraps Maximum Prefixes, Administrative Shutdown and Peer De-configured (section 5)', () => {
    const shutdown = buildShutdown('maintenance');
    const wrapped = withHardReset(shutdown);
    expect(notificationBytes(wrapped)).toEqual(
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
