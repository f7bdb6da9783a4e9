/**
 * Prometheus metrics of one speaker, in its own Registry. Session and prefix gauges are read
 * from SpeakerControl.summary() when scraped, so the hot path pays nothing for them; message
 * and NOTIFICATION counters are bumped by the session layer through the small methods below.
 */
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { STATES } from '../bgp/fsm/index.js';
import { MessageType, type MessageTypeCode } from '../bgp/wire/index.js';
import { type Logger, silentLogger } from '../components/index.js';
import { registerBmpMetrics } from './metrics-bmp.js';
import { type ForwardingMetricsSource, registerForwardingMetrics } from './metrics-forwarding.js';
import type { BmpView, FamilyName, SessionState, SpeakerControl, SummaryView } from './types.js';

/** RFC 5880 4.1's Sta values, in order. */
const BFD_STATES: readonly string[] = ['AdminDown', 'Down', 'Init', 'Up'];

/** Message type label values: the RFC names in lower case ("route-refresh"). */
export type MessageTypeLabel = 'open' | 'update' | 'notification' | 'keepalive' | 'route-refresh';

const MESSAGE_TYPE_LABEL: Readonly<Record<MessageTypeCode, MessageTypeLabel>> = {
  [MessageType.OPEN]: 'open',
  [MessageType.UPDATE]: 'update',
  [MessageType.NOTIFICATION]: 'notification',
  [MessageType.KEEPALIVE]: 'keepalive',
  [MessageType.ROUTE_REFRESH]: 'route-refresh',
};
const MESSAGE_TYPE_LABELS = Object.values(MESSAGE_TYPE_LABEL);
/** Any other type code (never past the decoder) is counted under one label, not one per code. */
const UNKNOWN_TYPE = 'unknown';

/** The RFC 4271 section 8.2.2 states numbered as BGP4-MIB's bgpPeerState (RFC 4273): 1 idle to 6 established. */
export function sessionStateNumber(state: SessionState): number {
  return STATES.indexOf(state) + 1;
}

function typeLabel(type: MessageTypeCode | number | MessageTypeLabel): string {
  if (typeof type === 'string') return MESSAGE_TYPE_LABELS.includes(type) ? type : UNKNOWN_TYPE;
  return MESSAGE_TYPE_LABEL[type as MessageTypeCode] ?? UNKNOWN_TYPE;
}

type NotificationLabels = Record<'peer' | 'direction' | 'code' | 'subcode', string>;

export interface SpeakerMetricsInit {
  /** What the gauges read at each scrape. */
  readonly control: Pick<SpeakerControl, 'summary'>;
  /** OVN publishing and the sinks, read at each scrape; their metrics are left out when absent. */
  readonly forwarding?: ForwardingMetricsSource;
  /** BMP collectors, read at each scrape; their metrics are left out when absent. */
  readonly bmp?: () => BmpView;
  /** Default: a new Registry for this speaker. */
  readonly registry?: Registry;
  /** The process metrics (CPU, memory, event-loop lag, GC); default on. */
  readonly defaultMetrics?: boolean;
  readonly logger?: Logger;
}

export class SpeakerMetrics {
  readonly registry: Registry;
  readonly #control: Pick<SpeakerControl, 'summary'>;
  readonly #log: Logger;
  /** One summary per scrape, however many gauges read it (collects run in one tick). */
  #snapshot: SummaryView | null | undefined;

  readonly #messagesReceived: Counter<'peer' | 'type'>;
  readonly #messagesSent: Counter<'peer' | 'type'>;
  readonly #notifications: Counter<'peer' | 'direction' | 'code' | 'subcode'>;
  readonly #dynamicRefused: Counter<'range'>;
  /** The notification series of each peer, so forgetPeer can remove them. */
  readonly #notificationSeries = new Map<string, Map<string, NotificationLabels>>();

  constructor(init: SpeakerMetricsInit) {
    this.registry = init.registry ?? new Registry();
    this.#control = init.control;
    this.#log = init.logger ?? silentLogger;
    const registers = [this.registry];
    const self = this;

    new Gauge({
      name: 'bgp_session_state',
      help: 'BGP session state (RFC 4271), numbered as BGP4-MIB bgpPeerState: 1 Idle, 2 Connect, 3 Active, 4 OpenSent, 5 OpenConfirm, 6 Established',
      labelNames: ['peer', 'address'],
      registers,
      collect() {
        this.reset();
        for (const n of self.#summary()?.neighbors ?? []) {
          this.set({ peer: n.name, address: n.address }, sessionStateNumber(n.state));
        }
      },
    });
    new Gauge({
      name: 'bgp_session_established',
      help: '1 when the BGP session is Established, else 0',
      labelNames: ['peer'],
      registers,
      collect() {
        this.reset();
        for (const n of self.#summary()?.neighbors ?? [])
          this.set({ peer: n.name }, Number(n.state === 'Established'));
      },
    });
    new Gauge({
      name: 'bgp_session_admin_down',
      help: '1 when the neighbor is administratively shut down, else 0',
      labelNames: ['peer'],
      registers,
      collect() {
        this.reset();
        for (const n of self.#summary()?.neighbors ?? []) this.set({ peer: n.name }, Number(n.adminDown));
      },
    });
    for (const [count, help] of [
      ['received', 'Prefixes received from the peer (Adj-RIB-In, before import policy)'],
      ['accepted', 'Prefixes from the peer accepted by import policy'],
      ['advertised', 'Prefixes advertised to the peer (Adj-RIB-Out)'],
    ] as const) {
      new Gauge({
        name: `bgp_prefixes_${count}`,
        help,
        labelNames: ['peer', 'family'],
        registers,
        collect() {
          this.reset();
          for (const n of self.#summary()?.neighbors ?? []) {
            for (const [family, counts] of Object.entries(n.prefixes)) {
              if (counts) this.set({ peer: n.name, family }, counts[count]);
            }
          }
        },
      });
    }
    new Gauge({
      name: 'bfd_session_state',
      help: 'BFD session state (RFC 5880 4.1): 0 AdminDown, 1 Down, 2 Init, 3 Up',
      labelNames: ['peer'],
      registers,
      collect() {
        this.reset();
        for (const n of self.#summary()?.neighbors ?? []) {
          if (n.bfd) this.set({ peer: n.name }, BFD_STATES.indexOf(n.bfd.state));
        }
      },
    });
    new Counter({
      name: 'bfd_session_transitions_total',
      help: 'BFD session state changes since the session was configured',
      labelNames: ['peer'],
      registers,
      collect() {
        this.reset();
        for (const n of self.#summary()?.neighbors ?? []) {
          if (n.bfd) this.inc({ peer: n.name }, n.bfd.transitions);
        }
      },
    });
    new Gauge({
      name: 'bgp_rib_prefixes',
      help: 'Prefixes in the Loc-RIB',
      labelNames: ['family'],
      registers,
      collect() {
        this.reset();
        const rib = self.#summary()?.rib;
        if (rib) for (const [family, n] of Object.entries(rib)) this.set({ family: family as FamilyName }, n);
      },
    });

    // Every configured peer's message series exist from the first scrape, at 0, so rate()
    // and increase() see the first messages too.
    const zeroForPeers = (counter: Counter<'peer' | 'type'>) => {
      for (const n of self.#summary()?.neighbors ?? []) {
        for (const type of MESSAGE_TYPE_LABELS) counter.inc({ peer: n.name, type }, 0);
      }
    };
    this.#messagesReceived = new Counter({
      name: 'bgp_messages_received_total',
      help: 'BGP messages received, by type',
      labelNames: ['peer', 'type'],
      registers,
      collect() {
        zeroForPeers(this);
      },
    });
    this.#messagesSent = new Counter({
      name: 'bgp_messages_sent_total',
      help: 'BGP messages sent, by type',
      labelNames: ['peer', 'type'],
      registers,
      collect() {
        zeroForPeers(this);
      },
    });
    this.#notifications = new Counter({
      name: 'bgp_notifications_total',
      help: 'BGP NOTIFICATION messages by direction, error code and subcode (RFC 4271 section 4.5)',
      labelNames: ['peer', 'direction', 'code', 'subcode'],
      registers,
    });

    new Gauge({
      name: 'bgp_dynamic_neighbors',
      help: 'Dynamic neighbours (from listen_ranges) alive now, by listen range',
      labelNames: ['range'],
      registers,
      collect() {
        this.reset();
        const per = new Map<string, number>();
        for (const n of self.#summary()?.neighbors ?? []) {
          if (n.dynamic) per.set(n.dynamic.range, (per.get(n.dynamic.range) ?? 0) + 1);
        }
        for (const [range, count] of per) this.set({ range }, count);
      },
    });
    this.#dynamicRefused = new Counter({
      name: 'bgp_dynamic_refused_total',
      help: 'Connections from a listen range refused because the range had its limit of dynamic neighbours',
      labelNames: ['range'],
      registers,
    });

    if (init.forwarding) registerForwardingMetrics(this.registry, init.forwarding);
    if (init.bmp) registerBmpMetrics(this.registry, init.bmp);
    if (init.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }

  /** A message of `type` (the wire type code, or its label) came in from `peer`. */
  messageReceived(peer: string, type: MessageTypeCode | number | MessageTypeLabel): void {
    this.#messagesReceived.inc({ peer, type: typeLabel(type) });
  }

  messageSent(peer: string, type: MessageTypeCode | number | MessageTypeLabel): void {
    this.#messagesSent.inc({ peer, type: typeLabel(type) });
  }

  /** A NOTIFICATION sent to or received from `peer`. */
  notification(peer: string, direction: 'sent' | 'received', code: number, subcode: number): void {
    const labels: NotificationLabels = { peer, direction, code: String(code), subcode: String(subcode) };
    const series = this.#notificationSeries.get(peer) ?? new Map<string, NotificationLabels>();
    this.#notificationSeries.set(peer, series);
    series.set(`${direction}/${code}/${subcode}`, labels);
    this.#notifications.inc(labels);
  }

  /** A connection from `range` was refused: the range had its limit of dynamic neighbours. */
  dynamicRefused(range: string): void {
    this.#dynamicRefused.inc({ range });
  }

  /** Drops a removed peer's counter series; its gauges disappear by themselves at the next scrape. */
  forgetPeer(peer: string): void {
    for (const type of [...MESSAGE_TYPE_LABELS, UNKNOWN_TYPE]) {
      this.#messagesReceived.remove({ peer, type });
      this.#messagesSent.remove({ peer, type });
    }
    for (const labels of this.#notificationSeries.get(peer)?.values() ?? [])
      this.#notifications.remove(labels);
    this.#notificationSeries.delete(peer);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The exposition text of every metric in the registry. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  /** null when the speaker could not give one: the summary gauges are then left empty, not stale. */
  #summary(): SummaryView | null {
    if (this.#snapshot === undefined) {
      try {
        this.#snapshot = this.#control.summary();
      } catch (e) {
        this.#log.warn({ err: (e as Error).message }, 'metrics: speaker summary failed');
        this.#snapshot = null;
      }
      queueMicrotask(() => {
        this.#snapshot = undefined;
      });
    }
    return this.#snapshot;
  }
}
