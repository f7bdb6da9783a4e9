import { describe, expect, it } from 'vitest';
import { formatAddress, parseIp } from '../../src/address/index.js';
import {
  encodeRouterAdvertisement,
  type LinkInfo,
  LinkNeighbor,
  type NdSocket,
  type Received,
} from '../../src/link/index.js';
import { FakeClock } from '../components/fake-clock.js';

class FakeSocket implements NdSocket {
  readonly sent: { bytes: Uint8Array; to: string; ifindex: number }[] = [];
  readonly inbox: Received[] = [];
  closed = false;
  send(bytes: Uint8Array, destination: Uint8Array, ifindex: number): void {
    this.sent.push({ bytes, to: formatAddress(destination), ifindex });
  }
  receive(): Received | undefined {
    return this.inbox.shift();
  }
  close(): void {
    this.closed = true;
  }
}

const RA = encodeRouterAdvertisement({ curHopLimit: 64 });
const RS = Uint8Array.from([133, 0, 0, 0, 0, 0, 0, 0]);
const from = (address: string, bytes = RA): Received => ({ bytes, source: parseIp(address).bytes });

function setup() {
  const clock = new FakeClock();
  const socket = new FakeSocket();
  let link: LinkInfo | undefined = { ifindex: 7, mac: '02:00:00:00:00:01', up: true };
  const seen: (string | undefined)[] = [];
  const n = new LinkNeighbor(
    { interface: 'eth1', raIntervalS: 10 },
    {
      scheduler: clock,
      openSocket: (name) => {
        expect(name).toBe('eth1');
        return socket;
      },
      linkInfo: () => link,
      onNeighbor: (a) => seen.push(a),
    },
  );
  return { clock, socket, n, seen, setLink: (l: LinkInfo | undefined) => (link = l) };
}

describe('LinkNeighbor', () => {
  it('advertises at once, three times early, then every interval, to all nodes with our MAC', async () => {
    const { clock, socket, n } = setup();
    n.start();
    await clock.advance(0);
    expect(socket.sent.length).toBe(1);
    expect(socket.sent[0]).toMatchObject({ to: 'ff02::1', ifindex: 7 });
    expect([...socket.sent[0].bytes.subarray(16)]).toEqual([1, 1, 2, 0, 0, 0, 0, 1]);
    await clock.advance(3000);
    expect(socket.sent.length).toBe(4);
    await clock.advance(9000);
    expect(socket.sent.length).toBe(4);
    await clock.advance(1000);
    expect(socket.sent.length).toBe(5);
    n.stop();
    expect(socket.closed).toBe(true);
    expect(clock.pending.timers).toBe(0);
  });

  it('learns the neighbour from its RA and reports a change of address only', async () => {
    const { clock, socket, n, seen } = setup();
    n.start();
    socket.inbox.push(from('fe80::2'), from('fe80::2'));
    await clock.advance(200);
    expect(n.neighbor).toBe('fe80::2');
    socket.inbox.push(from('fe80::3'));
    await clock.advance(200);
    expect(seen).toEqual(['fe80::2', 'fe80::3']);
    expect(n.counts.received).toBe(3);
    n.stop();
  });

  it('ignores an RA from a global address and a malformed one', async () => {
    const { clock, socket, n, seen } = setup();
    n.start();
    socket.inbox.push(from('2001:db8::2'), from('fe80::2', RA.subarray(0, 10)));
    await clock.advance(200);
    expect(seen).toEqual([]);
    expect(n.neighbor).toBeUndefined();
    n.stop();
  });

  it('answers a solicitation, but not sooner than 3 s after the last RA (RFC 4861 6.2.6)', async () => {
    const { clock, socket, n } = setup();
    n.start();
    await clock.advance(3000); // the three early ones and the first
    const before = socket.sent.length;
    await clock.advance(5000);
    socket.inbox.push(from('fe80::2', RS));
    await clock.advance(200);
    expect(socket.sent.length).toBe(before + 1);
    socket.inbox.push(from('fe80::2', RS));
    await clock.advance(200);
    expect(socket.sent.length).toBe(before + 1);
    await clock.advance(2800);
    expect(socket.sent.length).toBe(before + 2);
    n.stop();
  });

  it('sends nothing while the link is down and advertises early when it comes back', async () => {
    const { clock, socket, n, setLink } = setup();
    setLink({ ifindex: 7, mac: '02:00:00:00:00:01', up: false });
    n.start();
    await clock.advance(30_000);
    expect(socket.sent.length).toBe(0);
    setLink({ ifindex: 7, mac: '02:00:00:00:00:01', up: true });
    await clock.advance(200);
    expect(socket.sent.length).toBe(1);
    await clock.advance(3000);
    expect(socket.sent.length).toBe(4);
    n.stop();
  });

  it('keeps trying while the interface does not exist', async () => {
    const clock = new FakeClock();
    let opens = 0;
    const n = new LinkNeighbor(
      { interface: 'eth9' },
      {
        scheduler: clock,
        openSocket: () => {
          opens++;
          throw new Error('ENODEV');
        },
        linkInfo: () => ({ ifindex: 9, mac: undefined, up: true }),
      },
    );
    n.start();
    await clock.advance(1000);
    expect(opens).toBeGreaterThan(1);
    n.stop();
    expect(clock.pending.timers).toBe(0);
  });
});
