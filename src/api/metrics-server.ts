/**
 * The Prometheus endpoint: GET /metrics in the text exposition format, and the probes
 * /healthz (alive) and /readyz (ready) when the speaker gives a HealthSource; 404 for anything
 * else. Small bounds everywhere (header size, request time, connections): a scraper or a probe
 * is one client asking a few times a minute.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { type Logger, silentLogger } from '../components/index.js';
import {
  HEALTH_PATH,
  LIVE_PATH,
  METRICS_KEEP_ALIVE_TIMEOUT_MS,
  METRICS_MAX_CONNECTIONS,
  METRICS_MAX_HEADER_BYTES,
  METRICS_PATH,
  METRICS_REQUEST_TIMEOUT_MS,
  READY_PATH,
} from './constants.js';
import { type HealthCheck, healthAnswer, healthQuery } from './health.js';
import type { SpeakerMetrics } from './metrics.js';

const MAX_PORT = 0xffff;
const HTTP = { OK: 200, NOT_FOUND: 404, METHOD_NOT_ALLOWED: 405, INTERNAL_ERROR: 500 } as const;

export interface ListenAddress {
  readonly host: string;
  readonly port: number;
}

/** "198.18.0.1:9101", "[2001:db8::1]:9101", "localhost:9101"; port 0 picks a free one. */
export function parseListenAddress(text: string): ListenAddress {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(text);
  const host = m?.[1] ?? m?.[2];
  const port = Number(m?.[3]);
  if (!m || host === undefined || port > MAX_PORT) {
    throw new Error(`metrics listen address ${JSON.stringify(text)} must be HOST:PORT or [IPv6]:PORT`);
  }
  if (m[1] !== undefined && isIP(host) !== 6)
    throw new Error(`metrics listen address: ${host} is not an IPv6 address`);
  return { host, port };
}

export interface MetricsServerInit {
  /** HOST:PORT, e.g. "127.0.0.1:9101". */
  readonly listen: string;
  readonly metrics: SpeakerMetrics;
  /** Serves /healthz and /readyz; without it those paths are 404 like any other. */
  readonly health?: HealthSource;
  readonly logger?: Logger;
}

/** What the probes ask, each time one does. */
export interface HealthSource {
  /** /healthz (and /livez): is the process alive (its event loop turning)? */
  liveness(): readonly HealthCheck[];
  /** /readyz: is it doing its job (configuration, OVN, sinks, sessions as required)? */
  readiness(): readonly HealthCheck[];
}

export interface MetricsServer {
  /** Where it listens (the port chosen when 0 was asked). */
  readonly address: ListenAddress;
  readonly url: string;
  close(): Promise<void>;
}

export async function startMetricsServer(init: MetricsServerInit): Promise<MetricsServer> {
  const log = init.logger ?? silentLogger;
  const { host, port } = parseListenAddress(init.listen);
  const server = createServer({ maxHeaderSize: METRICS_MAX_HEADER_BYTES }, (req, res) => {
    void serve(init, req, res, log);
  });
  server.requestTimeout = METRICS_REQUEST_TIMEOUT_MS;
  server.headersTimeout = METRICS_REQUEST_TIMEOUT_MS;
  server.keepAliveTimeout = METRICS_KEEP_ALIVE_TIMEOUT_MS;
  server.maxConnections = METRICS_MAX_CONNECTIONS;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (e) => log.error({ err: e.message }, 'metrics server failed'));
  const bound = server.address();
  const address = { host, port: typeof bound === 'object' && bound ? bound.port : port };
  const url = `http://${isIP(host) === 6 ? `[${host}]` : host}:${address.port}${METRICS_PATH}`;
  log.info({ url }, 'metrics listening');

  let closing: Promise<void> | null = null;
  return {
    address,
    url,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

/** The probes: the answer is computed on each request from what the speaker reports then. */
function probe(health: HealthSource, path: string, req: IncomingMessage, res: ServerResponse): void {
  const search = (req.url ?? '').slice(path.length);
  const ready = path === READY_PATH;
  const checks = ready ? health.readiness() : health.liveness();
  const answer = healthAnswer(path.slice(1), checks, healthQuery(search, req.headers.accept));
  res.writeHead(answer.status, {
    'Content-Type': answer.contentType,
    'Content-Length': Buffer.byteLength(answer.body),
    // A probe's answer is about this moment.
    'Cache-Control': 'no-store',
  });
  res.end(req.method === 'HEAD' ? undefined : answer.body);
}

async function serve(
  init: MetricsServerInit,
  req: IncomingMessage,
  res: ServerResponse,
  log: Logger,
): Promise<void> {
  const path = (req.url ?? '').split('?', 1)[0] ?? '';
  const health = init.health;
  const isProbe = health !== undefined && (path === HEALTH_PATH || path === LIVE_PATH || path === READY_PATH);
  if (path !== METRICS_PATH && !isProbe) {
    const paths = health ? `${METRICS_PATH}, ${HEALTH_PATH} or ${READY_PATH}` : METRICS_PATH;
    return reply(res, HTTP.NOT_FOUND, `not found: try ${paths}\n`);
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('Allow', 'GET, HEAD');
    return reply(res, HTTP.METHOD_NOT_ALLOWED, 'method not allowed\n');
  }
  if (isProbe) return probe(health, path, req, res);
  const metrics = init.metrics;
  try {
    const body = await metrics.render();
    res.writeHead(HTTP.OK, {
      'Content-Type': metrics.contentType,
      'Content-Length': Buffer.byteLength(body),
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  } catch (e) {
    log.error({ err: (e as Error).message }, 'metrics: rendering failed');
    reply(res, HTTP.INTERNAL_ERROR, 'metrics unavailable\n');
  }
}

function reply(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}
