import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { NeighborDetail, SummaryView } from '../../src/api/index.js';
import { frrNeighbor, frrNeighbors, frrSummary, OWN_FIELDS_KEY } from '../../src/cli/frr-json.js';
import { NEIGHBORS, RR1, SPINE1, SPINE2, SUMMARY } from '../api/fake-control.js';
import {
  compareShapes,
  NEIGHBORS_CLAIMED,
  SOMETIMES,
  SUMMARY_CLAIMED,
  shapeOf,
} from '../support/frr-json-shape.js';

const FIXTURES = join(import.meta.dirname, '../../fixtures/frr-json');
const fixture = (name: string): unknown => JSON.parse(readFileSync(join(FIXTURES, name), 'utf8'));
const VERSIONS = ['8.4', '10.3'] as const;

/** 2026-01-01T00:00:00Z */
const NOW = 1_767_225_600_000;

/** SPINE1 with what each OPEN carried, as the speaker reports an Established session. */
const SPINE1_UP: NeighborDetail = {
  ...SPINE1,
  localCapabilities: ['multiprotocol', 'route-refresh', 'four-octet-as', 'graceful-restart'],
  remoteCapabilities: [
    'multiprotocol',
    'route-refresh',
    'enhanced-route-refresh',
    'four-octet-as',
    'extended-message',
  ],
};

// biome-ignore lint/suspicious/noExplicitAny: the printed JSON, read by path as a script would
type Json = Record<string, any>;

describe('FRR-shaped JSON against FRR 8.4 and 10.3 (fixtures/frr-json)', () => {
  it.each(VERSIONS)('show summary --json has FRR %s’s keys and types for every field it prints', (v) => {
    const ours = frrSummary(SUMMARY, NOW);
    const frr = fixture(`frr-${v}-summary.json`);
    expect(compareShapes(ours, frr, SOMETIMES)).toEqual({ wrongType: [], unknown: [] });
    const [oursShape, frrShape] = [shapeOf(ours), shapeOf(frr)];
    for (const claimed of SUMMARY_CLAIMED) {
      expect(oursShape.has(claimed), `ours lacks ${claimed}`).toBe(true);
      expect(frrShape.has(claimed), `FRR ${v} lacks ${claimed}`).toBe(true);
    }
  });

  it.each(VERSIONS)('show neighbors --json has FRR %s’s keys and types for every field it prints', (v) => {
    const ours = frrNeighbors([SPINE1_UP, SPINE2, RR1], NOW);
    const frr = fixture(`frr-${v}-neighbors.json`);
    expect(compareShapes(ours, frr, SOMETIMES)).toEqual({ wrongType: [], unknown: [] });
    const oursShape = shapeOf(frrNeighbors([SPINE1_UP], NOW));
    const frrShape = shapeOf(frr);
    for (const claimed of NEIGHBORS_CLAIMED) {
      expect(oursShape.has(claimed), `ours lacks ${claimed}`).toBe(true);
      expect(frrShape.has(claimed), `FRR ${v} lacks ${claimed}`).toBe(true);
    }
  });

  it('a field FRR does not print, or prints with another type, is caught', () => {
    const frr = fixture('frr-10.3-summary.json');
    const ours = frrSummary(SUMMARY, NOW) as Json;
    ours.ipv4Unicast.peers['198.18.0.2'].pfxRcd = '3';
    ours.ipv4Unicast.peers['198.18.0.2'].prefixesAccepted = 3;
    expect(compareShapes(ours, frr, SOMETIMES)).toEqual({
      wrongType: ['*.peers.*.pfxRcd: ours string, FRR number'],
      unknown: ['*.peers.*.prefixesAccepted'],
    });
  });
});

describe('show summary --json', () => {
  const s = frrSummary(SUMMARY, NOW) as Json;

  it('lists each family with its neighbors keyed by address, as FRR does', () => {
    expect(Object.keys(s)).toEqual(['ipv4Unicast', 'ipv6Unicast']);
    expect(Object.keys(s.ipv4Unicast.peers)).toEqual(['198.18.0.2', '198.18.0.4']);
    expect(Object.keys(s.ipv6Unicast.peers)).toEqual(['198.18.0.2', '2001:db8::2']);
    expect(s.ipv4Unicast).toMatchObject({
      routerId: '198.18.0.1',
      as: 64512,
      peerCount: 2,
      failedPeers: 1,
      displayedPeers: 2,
      totalPeers: 2,
      [OWN_FIELDS_KEY]: { locRibPrefixes: 3 },
    });
  });

  it('counts as FRR counts: pfxRcd accepted, pfxSnt advertised, messages of every type', () => {
    expect(s.ipv4Unicast.peers['198.18.0.2']).toEqual({
      remoteAs: 65001,
      localAs: 64512,
      version: 4,
      msgRcvd: 1 + 4 + 0 + 6 + 1,
      msgSent: 1 + 6 + 0 + 7 + 0,
      peerUptime: '00:03:21',
      peerUptimeMsec: 201_000,
      peerUptimeEstablishedEpoch: NOW / 1000 - 201,
      pfxRcd: 3,
      pfxSnt: 5,
      state: 'Established',
      peerState: 'OK',
      connectionsEstablished: 1,
      connectionsDropped: 0,
      desc: 'spine1',
      idType: 'ipv4',
      [OWN_FIELDS_KEY]: {
        name: 'spine1',
        stateSeconds: 201,
        adminDown: false,
        prefixes: { received: 4, accepted: 3, advertised: 5 },
      },
    });
    expect(s.ipv6Unicast.peers['198.18.0.2']).toMatchObject({ pfxRcd: 1, pfxSnt: 2 });
  });

  it('a session that went down counts its drops; one never up is "never"; shut down is Admin', () => {
    expect(s.ipv6Unicast.peers['2001:db8::2']).toMatchObject({
      state: 'Active',
      peerState: 'OK',
      connectionsEstablished: 3,
      connectionsDropped: 3,
      peerUptime: '00:00:05',
      peerUptimeMsec: 5000,
      idType: 'ipv6',
    });
    expect(s.ipv6Unicast.peers['2001:db8::2']).not.toHaveProperty('peerUptimeEstablishedEpoch');
    const rr = s.ipv4Unicast.peers['198.18.0.4'];
    expect(rr).toMatchObject({ state: 'Idle', peerState: 'Admin', peerUptime: 'never', peerUptimeMsec: 0 });
    // Named by its address only: no description, as FRR prints none when none is set.
    expect(rr).not.toHaveProperty('desc');
  });

  it('is {} without neighbors, and lists a neighbor with no family yet under every family', () => {
    expect(frrSummary({ ...SUMMARY, neighbors: [] }, NOW)).toEqual({});
    const bare = { ...RR1, prefixes: {} };
    const one = frrSummary({ ...SUMMARY, neighbors: [bare] }, NOW) as Json;
    expect(Object.keys(one)).toEqual(['ipv4Unicast', 'ipv6Unicast']);
    expect(one.ipv6Unicast.peers['198.18.0.4']).toMatchObject({ pfxRcd: 0, pfxSnt: 0 });
    const mixed = frrSummary({ ...SUMMARY, neighbors: [SPINE2, bare] } as SummaryView, NOW) as Json;
    expect(Object.keys(mixed)).toEqual(['ipv6Unicast']);
    expect(Object.keys(mixed.ipv6Unicast.peers)).toEqual(['2001:db8::2', '198.18.0.4']);
  });
});

describe('show neighbors --json', () => {
  it('keys every neighbor by address', () => {
    expect(Object.keys(frrNeighbors(NEIGHBORS, NOW))).toEqual(['198.18.0.2', '2001:db8::2', '198.18.0.4']);
  });

  it('an Established eBGP neighbor: FRR’s timers, capabilities per side, message stats, families', () => {
    const n = frrNeighbor(SPINE1_UP, NOW) as Json;
    expect(n).toMatchObject({
      remoteAs: 65001,
      localAs: 64512,
      nbrExternalLink: true,
      nbrDesc: 'spine1',
      bgpVersion: 4,
      remoteRouterId: '198.18.0.2',
      bgpState: 'Established',
      bgpTimerUpMsec: 201_000,
      bgpTimerUpString: '00:03:21',
      bgpTimerUpEstablishedEpoch: NOW / 1000 - 201,
      bgpTimerHoldTimeMsecs: 90_000,
      bgpTimerKeepAliveIntervalMsecs: 30_000,
      connectionsEstablished: 1,
      connectionsDropped: 0,
      hostLocal: '198.18.0.1',
      hostForeign: '198.18.0.2',
    });
    expect(n.neighborCapabilities).toEqual({
      '4byteAs': 'advertisedAndReceived',
      routeRefresh: 'advertisedAndReceived',
      enhancedRouteRefresh: 'received',
      extendedMessage: 'received',
      gracefulRestart: 'advertised',
      multiprotocolExtensions: {
        ipv4Unicast: { advertisedAndReceived: true },
        ipv6Unicast: { advertisedAndReceived: true },
      },
    });
    expect(n.messageStats).toEqual({
      opensSent: 1,
      opensRecv: 1,
      notificationsSent: 0,
      notificationsRecv: 0,
      updatesSent: 6,
      updatesRecv: 4,
      keepalivesSent: 7,
      keepalivesRecv: 6,
      routeRefreshSent: 0,
      routeRefreshRecv: 1,
      totalSent: 14,
      totalRecv: 12,
    });
    expect(n.addressFamilyInfo).toEqual({
      ipv4Unicast: { acceptedPrefixCounter: 3, sentPrefixCounter: 5 },
      ipv6Unicast: { acceptedPrefixCounter: 1, sentPrefixCounter: 2 },
    });
    expect(n.bgpState).toBe('Established');
  });

  it('a neighbor that went down: the NOTIFICATION as FRR spells its code, no up timer', () => {
    const n = frrNeighbor(SPINE2, NOW) as Json;
    expect(n).toMatchObject({
      bgpState: 'Active',
      connectionsEstablished: 3,
      connectionsDropped: 3,
      lastResetDueTo: 'connection refused',
      lastNotificationReason: 'CEASE/ADMINISTRATIVE_SHUTDOWN (6/2)',
      lastErrorCodeSubcode: '0602',
      lastShutdownDescription: 'maintenance window',
    });
    expect(n).not.toHaveProperty('bgpTimerUpMsec');
    expect(n).not.toHaveProperty('remoteRouterId');
    expect(n.neighborCapabilities).toEqual({});
  });

  it('iBGP and shut down: nbrInternalLink and adminShutDown; no description when named by address', () => {
    const n = frrNeighbor(RR1, NOW) as Json;
    expect(n).toMatchObject({ nbrInternalLink: true, adminShutDown: true, bgpState: 'Idle' });
    expect(n).not.toHaveProperty('nbrExternalLink');
    expect(n).not.toHaveProperty('nbrDesc');
  });

  it('keeps what only we know under ovnBgpSpeaker, and nothing FRR already says', () => {
    expect(frrNeighbor(SPINE2, NOW)[OWN_FIELDS_KEY]).toEqual({
      name: 'spine2',
      stateSeconds: 5,
      adminDown: false,
      prefixes: SPINE2.prefixes,
      families: [],
      capabilities: [],
      idleHoldTime: 5,
      maxIdleHoldTime: 120,
      reconnectIn: 17,
      lastNotification: SPINE2.lastNotification,
      lastError: 'connection refused',
    });
  });
});
