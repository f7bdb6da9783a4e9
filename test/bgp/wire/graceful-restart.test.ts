import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeCapabilities, encodeCapability } from '../../../src/bgp/wire/capabilities.js';
import {
  gracefulRestartCapability,
  type LocalGracefulRestart,
} from '../../../src/bgp/wire/graceful-restart.js';
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
