import { describe, expect, it } from 'vitest';
import type { CollisionInput, State } from '../../../src/bgp/fsm/index.js';
import { resolveCollision } from '../../../src/bgp/fsm/index.js';

const HIGH = 0xc6120002; // 198.18.0.2
const LOW = 0xc6120001; // 198.18.0.1
const COLLISION = { collision: true, code: 6, subcode: 7 };

describe('resolveCollision (RFC 4271 6.8, RFC 6286 2.3)', () => {
  const cases: { name: string; input: CollisionInput; want: object }[] = [
    {
      name: 'we are higher, OPEN on incoming: close incoming (this)',
      input: { localId: HIGH, remoteId: LOW, received: 'incoming', otherState: 'OpenConfirm' },
      want: { ...COLLISION, close: 'this', closeDirection: 'incoming' },
    },
    {
      name: 'we are higher, OPEN on outgoing: close incoming (other)',
      input: { localId: HIGH, remoteId: LOW, received: 'outgoing', otherState: 'OpenConfirm' },
      want: { ...COLLISION, close: 'other', closeDirection: 'incoming' },
    },
    {
      name: 'peer is higher, OPEN on incoming: close outgoing (other)',
      input: { localId: LOW, remoteId: HIGH, received: 'incoming', otherState: 'OpenConfirm' },
      want: { ...COLLISION, close: 'other', closeDirection: 'outgoing' },
    },
    {
      name: 'peer is higher, OPEN on outgoing: close outgoing (this)',
      input: { localId: LOW, remoteId: HIGH, received: 'outgoing', otherState: 'OpenConfirm' },
      want: { ...COLLISION, close: 'this', closeDirection: 'outgoing' },
    },
    {
      name: 'identifiers compare as unsigned: 255.0.0.1 beats 1.0.0.1 even when passed signed',
      input: {
        localId: 0xff000001 | 0,
        remoteId: 0x01000001,
        received: 'incoming',
        otherState: 'OpenConfirm',
      },
      want: { ...COLLISION, close: 'this', closeDirection: 'incoming' },
    },
    {
      name: 'equal identifiers: larger AS keeps its connection (RFC 6286)',
      input: {
        localId: HIGH,
        remoteId: HIGH,
        localAs: 64512,
        remoteAs: 64513,
        received: 'incoming',
        otherState: 'OpenConfirm',
      },
      want: { ...COLLISION, close: 'other', closeDirection: 'outgoing' },
    },
    {
      name: 'equal identifiers and AS: keep the older connection',
      input: {
        localId: HIGH,
        remoteId: HIGH,
        localAs: 64512,
        remoteAs: 64512,
        received: 'outgoing',
        otherState: 'OpenConfirm',
      },
      want: { ...COLLISION, close: 'this', closeDirection: 'outgoing' },
    },
    {
      name: 'other is Established: the new connection closes',
      input: { localId: HIGH, remoteId: LOW, received: 'outgoing', otherState: 'Established' },
      want: { ...COLLISION, close: 'this', closeDirection: 'outgoing' },
    },
    {
      name: 'other is Established with CollisionDetectEstablishedState: identifiers decide',
      input: {
        localId: HIGH,
        remoteId: LOW,
        received: 'outgoing',
        otherState: 'Established',
        collisionDetectEstablishedState: true,
      },
      want: { ...COLLISION, close: 'other', closeDirection: 'incoming' },
    },
    {
      name: 'other is OpenSent: not examined by default',
      input: { localId: HIGH, remoteId: LOW, received: 'incoming', otherState: 'OpenSent' },
      want: { collision: false },
    },
    {
      name: 'other is OpenSent and examined',
      input: {
        localId: HIGH,
        remoteId: LOW,
        received: 'incoming',
        otherState: 'OpenSent',
        examineOpenSent: true,
      },
      want: { ...COLLISION, close: 'this', closeDirection: 'incoming' },
    },
  ];
  it.each(cases)('$name', ({ input, want }) => {
    expect(resolveCollision(input)).toEqual(want);
  });

  it.each(['Idle', 'Connect', 'Active'] as State[])(
    'cannot detect a collision with a connection in %s',
    (otherState) => {
      expect(resolveCollision({ localId: HIGH, remoteId: LOW, received: 'incoming', otherState })).toEqual({
        collision: false,
      });
    },
  );

  it('both speakers reach the same verdict about the same pair of connections', () => {
    // Our incoming connection is the peer's outgoing one, and the other way round.
    for (const [a, b] of [
      [HIGH, LOW],
      [LOW, HIGH],
    ]) {
      const ours = resolveCollision({
        localId: a,
        remoteId: b,
        received: 'incoming',
        otherState: 'OpenConfirm',
      });
      const theirs = resolveCollision({
        localId: b,
        remoteId: a,
        received: 'outgoing',
        otherState: 'OpenConfirm',
      });
      expect(ours.collision && theirs.collision).toBe(true);
      if (ours.collision && theirs.collision) {
        const flip = { incoming: 'outgoing', outgoing: 'incoming' } as const;
        expect(theirs.closeDirection).toBe(flip[ours.closeDirection]);
      }
    }
  });
});
