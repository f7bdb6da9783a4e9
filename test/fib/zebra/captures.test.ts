/**
 * The codec against real zebras of both versions (fixtures/zapi/): the dialect tables agree with
 * zebra's own names for every command number, bgpd's frames re-encode byte for byte, every frame
 * zebra sent decodes, our sink's handshake picks the right dialect from zebra's answers.
 */
import { describe, expect, it } from 'vitest';
import { Reader, Writer } from '../../../src/bgp/wire/index.js';
import {
  answerToHello,
  DIALECTS,
  decodeCapabilities,
  decodeMessage,
  decodeNotifyOwner,
  decodeRoute,
  FRR_8_4,
  FRR_10_3,
  NotifyOwner,
  writeCapabilities,
  writeHello,
  writeNotifyOwner,
  writeRouteAdd,
  writeRouteDelete,
  writeRouteNotifyRequest,
  writeRouterIdAdd,
  type ZapiCommands,
  type ZapiDialect,
  type ZapiFrame,
  ZapiFramer,
} from '../../../src/fib/zebra/index.js';
import { toHex } from '../../support/hex.js';
import {
  bytesOf,
  CAPTURES,
  type CapturedFrame,
  connection,
  framesNamed,
  type ZapiCapture,
} from './captures.js';

const OUR_SINK = 'ovn-bgp-speaker';

function encode(fn: (w: Writer) => void): string {
  const w = new Writer(64);
  fn(w);
  return toHex(w.finish());
}

function frameOf(f: CapturedFrame): ZapiFrame {
  const [frame] = new ZapiFramer().push(bytesOf(f));
  if (frame === undefined) throw new Error(`frame ${f.seq} is not whole`);
  return frame;
}

const bodyOf = (f: CapturedFrame) => bytesOf(f).subarray(10);

describe.each(CAPTURES)(
  '$capture.name',
  ({ capture: c, dialect: d }: { capture: ZapiCapture; dialect: ZapiDialect }) => {
    const bgpd = connection(c, 'bgpd');
    const ours = connection(c, OUR_SINK);

    it('zebra names each command number as the dialect table does', () => {
      const checked: string[] = [];
      for (const [number, full] of Object.entries(c.commands)) {
        const name = full.replace(/^ZEBRA_/, '') as keyof ZapiCommands;
        if (!(name in d.command)) continue;
        expect({ name, number: d.command[name] }).toEqual({ name, number: Number(number) });
        checked.push(name);
      }
      // Every command this client sends or reads was seen, and so checked, but VRF_DELETE (no VRF
      // went away while the capture ran).
      expect(checked.sort()).toEqual(
        Object.keys(d.command)
          .filter((n) => n !== 'VRF_DELETE')
          .sort(),
      );
    });

    it("bgpd says HELLO with the dialect's route type BGP and no notify byte of its own", () => {
      const [hello] = framesNamed(c, bgpd, 'HELLO', 'client');
      expect(bodyOf(hello)[0]).toBe(d.routeType.BGP);
      expect(toHex(bytesOf(hello))).toBe(
        encode((w) =>
          writeHello(w, d, {
            proto: d.routeType.BGP,
            instance: 0,
            sessionId: 0,
            receiveNotify: false,
            synchronous: false,
          }),
        ),
      );
    });

    it("bgpd's ROUTER_ID_ADD and ROUTE_NOTIFY_REQUEST (suppress-fib-pending) are what we write", () => {
      const [rid] = framesNamed(c, bgpd, 'ROUTER_ID_ADD', 'client');
      expect(toHex(bytesOf(rid))).toBe(encode((w) => writeRouterIdAdd(w, d, 1)));
      const [req] = framesNamed(c, bgpd, 'ROUTE_NOTIFY_REQUEST', 'client');
      expect(toHex(bytesOf(req))).toBe(encode((w) => writeRouteNotifyRequest(w, d, true)));
    });

    it("bgpd's ROUTE_ADDs (ECMP, IPv6 over a link-local) and ROUTE_DELETEs re-encode byte for byte", () => {
      const adds = framesNamed(c, bgpd, 'ROUTE_ADD', 'client');
      const dels = framesNamed(c, bgpd, 'ROUTE_DELETE', 'client');
      expect(adds.length).toBeGreaterThanOrEqual(4);
      expect(dels.length).toBeGreaterThanOrEqual(2);
      for (const f of adds) {
        const r = decodeRoute(bodyOf(f));
        expect(r.type).toBe(d.routeType.BGP);
        expect(encode((w) => writeRouteAdd(w, d, r))).toBe(f.hex);
      }
      for (const f of dels) expect(encode((w) => writeRouteDelete(w, d, decodeRoute(bodyOf(f))))).toBe(f.hex);
      const ecmp = adds.map((f) => decodeRoute(bodyOf(f))).find((r) => r.nexthops.length === 2);
      expect(ecmp).toMatchObject({
        prefix: { family: 2, len: 24, addr: '198.19.44.0' },
        nexthops: [
          { type: 2, gate: '198.18.44.2', ifindex: 0 },
          { type: 2, gate: '198.18.45.2', ifindex: 0 },
        ],
        distance: 20,
        metric: 0,
      });
    });

    it('every frame zebra sent decodes; the ones this client reads are all there', () => {
      const kinds = new Set<string>();
      for (const conn of c.connections)
        for (const f of conn.frames.filter((x) => x.from === 'zebra')) {
          kinds.add(decodeMessage(frameOf(f), d).kind);
        }
      expect([...kinds].sort()).toEqual(
        expect.arrayContaining(['capabilities', 'notify-owner', 'router-id-update', 'vrf-add', 'error']),
      );
    });

    it('CAPABILITIES: multipath 256, and what 10.3 adds; re-encoded byte for byte', () => {
      for (const f of framesNamed(c, bgpd, 'CAPABILITIES', 'zebra')) {
        expect(bodyOf(f)).toHaveLength(d.capabilitiesLength);
        const caps = decodeCapabilities(new Reader(bodyOf(f)), d);
        expect(caps).toEqual({
          vrfBackend: 0,
          mplsEnabled: false,
          multipathNum: 256,
          mlagRole: 0,
          ...(d === FRR_10_3 && { v6WithV4Nexthop: false, gracefulRestart: false }),
        });
        expect(encode((w) => writeCapabilities(w, d, caps))).toBe(f.hex);
      }
    });

    it('ROUTE_NOTIFY_OWNER: every one decodes and re-encodes byte for byte (10.3: with a source prefix)', () => {
      const notes = c.connections.flatMap((conn) => framesNamed(c, conn, 'ROUTE_NOTIFY_OWNER', 'zebra'));
      expect(notes.length).toBeGreaterThanOrEqual(6);
      for (const f of notes) {
        const n = decodeNotifyOwner(new Reader(bodyOf(f)), d);
        expect(n.sourcePrefix).toBeUndefined();
        expect(n.tableId).toBe(254);
        expect(encode((w) => writeNotifyOwner(w, d, n))).toBe(f.hex);
      }
      const v6 = notes.find((f) => bodyOf(f)[4] === 10);
      expect(v6 && bodyOf(v6).length).toBe(d.notifySourcePrefix ? 45 : 28);
    });

    it("our sink's routes: INSTALLED for three, and what each version says of a connected prefix", () => {
      const heard = framesNamed(c, ours, 'ROUTE_NOTIFY_OWNER', 'zebra').map((f) => {
        const n = decodeNotifyOwner(new Reader(bodyOf(f)), d);
        return `${n.prefix.addr}/${n.prefix.len} ${n.note}`;
      });
      const { FAIL_INSTALL, BETTER_ADMIN_WON, INSTALLED, REMOVED } = NotifyOwner;
      expect(heard).toEqual(
        expect.arrayContaining([
          `198.19.46.0/24 ${INSTALLED}`,
          `198.19.47.0/24 ${INSTALLED}`,
          `2001:db8:f46::/48 ${INSTALLED}`,
          `198.19.46.0/24 ${REMOVED}`,
        ]),
      );
      // 198.18.44.0/24 over a next hop inside it: both refuse it; 10.3 then says the connected
      // route holds it (BETTER_ADMIN_WON), 8.4 says no more.
      expect(heard.filter((h) => h.startsWith('198.18.44.0/24 '))).toEqual(
        d === FRR_10_3
          ? [`198.18.44.0/24 ${FAIL_INSTALL}`, `198.18.44.0/24 ${BETTER_ADMIN_WON}`]
          : [`198.18.44.0/24 ${FAIL_INSTALL}`],
      );
    });

    it("our sink's first frames: HELLO (8.4: after 10.3's drew an ERROR), notify request, router-id", () => {
      const hello = (x: ZapiDialect) =>
        encode((w) =>
          writeHello(w, x, {
            proto: x.routeType.BGP,
            instance: 1,
            sessionId: 0,
            receiveNotify: x.helloReceiveNotify,
            synchronous: false,
          }),
        );
      const sent = ours.frames.filter((f) => f.from === 'client').map((f) => f.hex);
      const expected =
        d === FRR_8_4
          ? [hello(FRR_10_3), hello(FRR_8_4), encode((w) => writeRouterIdAdd(w, d, 1))]
          : [
              hello(FRR_10_3),
              encode((w) => writeRouteNotifyRequest(w, d, true)),
              encode((w) => writeRouterIdAdd(w, d, 1)),
            ];
      expect(sent.slice(0, 3)).toEqual(expected);
      // Everything after them is a ROUTE_ADD or ROUTE_DELETE in the dialect's numbering.
      const rest = ours.frames.filter((f) => f.from === 'client').slice(3);
      expect(rest.length).toBeGreaterThanOrEqual(6);
      for (const f of rest) expect([d.command.ROUTE_ADD, d.command.ROUTE_DELETE]).toContain(f.command);
    });

    it("zebra's answers, replayed, bring the handshake to this dialect, from either first HELLO", () => {
      for (const order of [DIALECTS, [...DIALECTS].reverse()]) {
        const conn = c.connections.find(
          (x) => x.client.startsWith(OUR_SINK) && x.frames[0]?.command === order[0].command.HELLO,
        );
        expect(conn, `a connection whose first HELLO is ${order[0].name}'s`).toBeDefined();
        let tried = order[0];
        let rest = order.slice(1);
        let result: ZapiDialect | undefined;
        for (const f of conn!.frames.filter((x) => x.from === 'zebra')) {
          const a = answerToHello(frameOf(f), tried, rest);
          if (a.kind === 'retry') {
            tried = a.dialect;
            rest = rest.filter((x) => x !== a.dialect);
          }
          if (a.kind === 'up') {
            result = a.dialect;
            break;
          }
          expect(a.kind).not.toBe('refused');
        }
        expect(result).toBe(d);
      }
    });

    it('the framer cuts each direction of each connection into the recorded frames, in any chunking', () => {
      for (const conn of c.connections)
        for (const from of ['client', 'zebra'] as const) {
          const frames = conn.frames.filter((f) => f.from === from);
          const stream = Buffer.concat(frames.map(bytesOf));
          const framer = new ZapiFramer();
          const got: string[] = [];
          for (let at = 0, step = 1; at < stream.length; at += step, step = (step * 7) % 61 || 1)
            for (const f of framer.push(stream.subarray(at, at + step)))
              got.push(`${f.command}:${toHex(f.body)}`);
          expect(got).toEqual(frames.map((f) => `${f.command}:${f.hex.slice(20)}`));
        }
    });
  },
);
