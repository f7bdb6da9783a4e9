import { describe, expect, it } from 'vitest';
import { endsGracefully } from '../../../src/bgp/session/graceful.js';
import type { GracefulRestartNegotiated } from '../../../src/bgp/wire/negotiate.js';

const gr = (notificationExchanged: boolean): GracefulRestartNegotiated => ({
  restartState: false,
  notification: notificationExchanged,
  notificationExchanged,
  restartTime: 120,
  families: [{ afi: 1, safi: 1, forwardingState: true }],
});
const n = (code: number, subcode: number) => ({ code, subcode });

// RFC 4724 section 4.2 and RFC 8538 sections 3 and 4: which ends keep the peer's routes.
const cases: {
  name: string;
  gr: GracefulRestartNegotiated | null;
  end: { code: number; subcode: number } | null;
  keeps: boolean;
}[] = [
  {
    name: 'without graceful restart nothing is kept, even a lost connection',
    gr: null,
    end: null,
    keeps: false,
  },
  { name: 'a lost connection (TCP reset or close, no NOTIFICATION)', gr: gr(false), end: null, keeps: true },
  { name: 'a lost connection with the N bit exchanged', gr: gr(true), end: null, keeps: true },
  {
    name: 'hold timer expired without the N bit (RFC 4724: a NOTIFICATION went)',
    gr: gr(false),
    end: n(4, 0),
    keeps: false,
  },
  { name: 'hold timer expired with the N bit (RFC 8538 section 4)', gr: gr(true), end: n(4, 0), keeps: true },
  { name: 'Cease/Administrative Reset with the N bit', gr: gr(true), end: n(6, 4), keeps: true },
  { name: 'an UPDATE error with the N bit', gr: gr(true), end: n(3, 1), keeps: true },
  { name: 'Cease/Hard Reset with the N bit', gr: gr(true), end: n(6, 9), keeps: false },
  { name: 'Cease/Administrative Shutdown without the N bit', gr: gr(false), end: n(6, 2), keeps: false },
];

describe('which session ends keep the routes', () => {
  it.each(cases)('$name', ({ gr: negotiated, end, keeps }) => {
    expect(endsGracefully(negotiated, end)).toBe(keeps);
  });
});
