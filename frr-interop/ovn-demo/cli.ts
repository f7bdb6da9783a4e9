/**
 * The reporting half of scripts/demo-ovn.sh (the script starts the daemons, this looks at them):
 *   routes   --socket S --vty DIR [--timeout SEC]
 *            waits until FRR holds every route the speaker derived from OVN, then prints them
 *            with the OVN row behind each
 *   live-fip --socket S --vty DIR --nb REMOTE [--nb-ctl CTL --nb-log FILE] [--frr-log FILE] [--timeout SEC]
 *            -- ROUTER TYPE EXTERNAL_IP LOGICAL_IP [PORT MAC]
 *            runs `ovn-nbctl lr-nat-add ...` and measures the time from its commit to FRR holding
 *            the route: from ovsdb-server's log line for the update notification (else ovn-nbctl's
 *            exit) to bgpd's log line for the UPDATE (else the first vtysh look that shows it)
 * Every wait is bounded; a timeout prints what is missing and exits 1.
 */
import { readFileSync, statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { callControl, type OvnView, type SummaryView } from '../../src/api/index.js';
import { type Family, parseFrrNeighbors, parseFrrRoutes, type ReceivedRoute, run } from '../lab/index.js';
import {
  formatCounts,
  formatRoutes,
  formatSessions,
  frrReceivedAt,
  type Joined,
  joinRoutes,
  ovsdbNotifiedAt,
  parseFrrBestPath,
} from './report.js';

const USAGE = `usage: cli.ts routes --socket S --vty DIR [--timeout SEC]
       cli.ts live-fip --socket S --vty DIR --nb REMOTE [--nb-ctl CTL --nb-log FILE] [--frr-log FILE]
                       [--timeout SEC] -- ROUTER TYPE EXTERNAL_IP LOGICAL_IP [PORT MAC]`;
const DEFAULT_TIMEOUT_S = 60;
const ROUTES_POLL_MS = 250;
/** Between two looks at FRR while timing the live change; a vtysh look itself takes tens of ms. */
const LIVE_POLL_MS = 2;
const NBCTL_TIMEOUT_S = 10;

interface Options {
  readonly socket: string;
  readonly vty: string;
  readonly nb?: string;
  /** bgpd's log file, with `debug bgp updates in` and millisecond timestamps. */
  readonly frrLog?: string;
  /** The NB ovsdb-server's unixctl socket and log file, to time the commit from its own log. */
  readonly nbCtl?: string;
  readonly nbLog?: string;
  readonly timeoutMs: number;
  readonly rest: readonly string[];
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function readOptions(args: readonly string[]): { command: string; opts: Options } {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    strict: true,
    options: {
      socket: { type: 'string' },
      vty: { type: 'string' },
      nb: { type: 'string' },
      'frr-log': { type: 'string' },
      'nb-ctl': { type: 'string' },
      'nb-log': { type: 'string' },
      timeout: { type: 'string' },
    },
  });
  const [command = '', ...rest] = positionals;
  if (values.socket === undefined || values.vty === undefined) throw new Error(USAGE);
  const timeoutS = values.timeout === undefined ? DEFAULT_TIMEOUT_S : Number(values.timeout);
  if (!Number.isFinite(timeoutS) || timeoutS <= 0) throw new Error(`bad --timeout ${values.timeout}`);
  return {
    command,
    opts: {
      socket: values.socket,
      vty: values.vty,
      ...(values.nb !== undefined && { nb: values.nb }),
      ...(values['frr-log'] !== undefined && { frrLog: values['frr-log'] }),
      ...(values['nb-ctl'] !== undefined && { nbCtl: values['nb-ctl'] }),
      ...(values['nb-log'] !== undefined && { nbLog: values['nb-log'] }),
      timeoutMs: timeoutS * 1000,
      rest,
    },
  };
}

const vtysh = (dir: string, command: string) =>
  run(['vtysh', '--vty_socket', dir, '-d', 'bgpd', '-c', command]);

async function frrRoutes(dir: string, family: Family): Promise<ReceivedRoute[]> {
  return parseFrrRoutes(await vtysh(dir, `show bgp ${family} unicast json`), family);
}

interface Look {
  readonly summary: SummaryView;
  readonly ovn: OvnView | null;
  readonly frrNeighbors: ReturnType<typeof parseFrrNeighbors>;
  readonly joined: Joined | undefined;
  /** Every path FRR holds, whoever sent it: what a missing route looks like at FRR. */
  readonly frr: readonly ReceivedRoute[];
  readonly ready: boolean;
}

/** Everything both sides say right now. */
async function look(opts: Options): Promise<Look> {
  const summary = await callControl(opts.socket, 'summary', {});
  const ovn = await callControl(opts.socket, 'ovn', {});
  const frrNeighbors = parseFrrNeighbors(await vtysh(opts.vty, 'show bgp neighbors json'));
  const frr = [...(await frrRoutes(opts.vty, 'ipv4')), ...(await frrRoutes(opts.vty, 'ipv6'))];
  const joined =
    ovn === null
      ? undefined
      : joinRoutes(
          frr,
          ovn,
          frrNeighbors.map((n) => n.address),
        );
  const up =
    summary.neighbors.length > 0 &&
    summary.neighbors.every((n) => n.state === 'Established') &&
    frrNeighbors.length > 0 &&
    frrNeighbors.every((n) => n.state === 'Established');
  const ready =
    up &&
    ovn !== null &&
    /synced/.test(ovn.mode) &&
    ovn.routes.length > 0 &&
    joined !== undefined &&
    joined.missing.length === 0;
  return { summary, ovn, frrNeighbors, joined, frr, ready };
}

async function routesCommand(opts: Options): Promise<number> {
  const t0 = performance.now();
  const deadline = Date.now() + opts.timeoutMs;
  let last: Look | undefined;
  let lastError = '';
  while (Date.now() < deadline) {
    try {
      last = await look(opts);
      if (last.ready) break;
    } catch (e) {
      // The speaker's socket appears a moment after it starts.
      lastError = e instanceof Error ? e.message : String(e);
    }
    await sleep(ROUTES_POLL_MS);
  }
  if (last === undefined) {
    console.log(`no answer from the speaker within ${opts.timeoutMs / 1000} s: ${lastError}`);
    return 1;
  }
  const { summary, ovn, frrNeighbors, joined } = last;
  console.log(formatSessions(summary.neighbors, frrNeighbors).join('\n'));
  if (ovn === null || joined === undefined) {
    console.log('the speaker has no ovn section');
    return 1;
  }
  console.log(`OVN: ${ovn.mode}; Northbound ${ovn.nb}; Southbound ${ovn.sb}`);
  console.log('');
  console.log(formatRoutes(joined.routes).join('\n'));
  console.log('');
  console.log(`At FRR: ${formatCounts(joined.routes)}`);
  for (const r of joined.other)
    console.log(`also at FRR from the speaker, not from OVN: ${r.prefix} via ${r.nextHops.join(' ')}`);
  for (const p of ovn.problems)
    console.log(`not advertised: ${p.kind} ${p.origin.table} ${p.origin.name}: ${p.message}`);
  if (!last.ready) {
    console.log(`NOT READY after ${opts.timeoutMs / 1000} s`);
    // What each side counts: whether the speaker believes it sent the routes, and FRR took them.
    for (const n of summary.neighbors)
      console.log(
        `  speaker ${n.name}: ${JSON.stringify(n.prefixes)}; sent ${JSON.stringify(n.messages.sent)}`,
      );
    for (const n of frrNeighbors)
      console.log(
        `  FRR ${n.address}: accepted ${JSON.stringify(n.prefixesReceived)}${n.lastError ? `; last error ${n.lastError}` : ''}`,
      );
    console.log('OVN routes FRR does not hold:');
    for (const m of joined.missing) {
      console.log(`  ${m.prefix} via ${m.nextHop} (${m.kind})`);
      const paths = last.frr.filter((r) => r.prefix === m.prefix);
      if (paths.length === 0) console.log('    FRR has no path for it');
      for (const r of paths)
        console.log(
          `    FRR has a path from ${r.from} via ${r.nextHops.join(' ')}${r.best ? ', best' : ', not best'}`,
        );
    }
    return 1;
  }
  console.log(`Every OVN route is at FRR, next hops as the speaker chose them (${seconds(t0)} s wait)`);
  return 0;
}

const seconds = (t0: number) => ((performance.now() - t0) / 1000).toFixed(1);

/** Bytes of a file so far (0 when missing): where the lines of the live change start. */
function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** The tail of a file from byte `start` on (empty when missing). */
function tail(path: string | undefined, start: number): string {
  if (path === undefined) return '';
  try {
    return readFileSync(path).subarray(start).toString();
  } catch {
    return '';
  }
}

async function liveFipCommand(opts: Options): Promise<number> {
  if (opts.nb === undefined || opts.rest.length < 4) throw new Error(USAGE);
  const externalIp = opts.rest[2]!;
  const family: Family = externalIp.includes(':') ? 'ipv6' : 'ipv4';
  const prefix = `${externalIp}/${family === 'ipv6' ? 128 : 32}`;
  const speakerAddresses = parseFrrNeighbors(await vtysh(opts.vty, 'show bgp neighbors json')).map(
    (n) => n.address,
  );
  const atFrr = async () => {
    const best = parseFrrBestPath(await vtysh(opts.vty, `show bgp ${family} unicast ${prefix} json`));
    return best && speakerAddresses.includes(best.from) ? best : undefined;
  };
  if (await atFrr()) {
    console.log(`${prefix} is at FRR already: nothing to measure`);
    return 1;
  }
  const frrLogStart = opts.frrLog === undefined ? 0 : fileSize(opts.frrLog);
  const nbLogStart = opts.nbLog === undefined ? 0 : fileSize(opts.nbLog);
  // ovsdb-server logs every message it sends at debug level: the update notification of the
  // new row is the commit, to the millisecond, as the speaker's monitor receives it.
  const nbDebug = (level: string) =>
    opts.nbCtl === undefined
      ? Promise.resolve('')
      : run([
          'ovs-appctl',
          `--timeout=${NBCTL_TIMEOUT_S}`,
          '-t',
          opts.nbCtl,
          'vlog/set',
          `jsonrpc:file:${level}`,
        ]);
  await nbDebug('dbg');
  let invoked: number;
  let exited: number;
  try {
    console.log(`$ ovn-nbctl lr-nat-add ${opts.rest.join(' ')}`);
    invoked = performance.now();
    await run(['ovn-nbctl', `--db=${opts.nb}`, `--timeout=${NBCTL_TIMEOUT_S}`, 'lr-nat-add', ...opts.rest]);
    exited = performance.now();
  } finally {
    await nbDebug('info');
  }
  const exitedWall = Date.now() - (performance.now() - exited);
  const deadline = exited + opts.timeoutMs;
  let polls = 0;
  let best: Awaited<ReturnType<typeof atFrr>>;
  while (performance.now() < deadline) {
    best = await atFrr();
    polls++;
    if (best) break;
    await sleep(LIVE_POLL_MS);
  }
  const seenWall = Date.now();
  if (best === undefined) {
    console.log(`${prefix} did not reach FRR within ${opts.timeoutMs / 1000} s`);
    return 1;
  }
  // Without the server's log line, ovn-nbctl's exit stands for the commit (it comes a little later).
  const notified = ovsdbNotifiedAt(tail(opts.nbLog, nbLogStart), externalIp);
  const commitAt = notified?.at ?? exitedWall;
  // bgpd's own log line for the UPDATE is the precise moment; vtysh (tens of ms a look) bounds it.
  const received = frrReceivedAt(tail(opts.frrLog, frrLogStart), prefix);
  const delay = (received?.at ?? seenWall) - commitAt;
  const commitText =
    notified === undefined
      ? `ovn-nbctl exited (it ran ${Math.round(exited - invoked)} ms)`
      : `ovsdb-server sent the update notification at ${notified.stamp} (ovn-nbctl ran ${Math.round(exited - invoked)} ms)`;
  const frrText =
    received === undefined
      ? `vtysh showed it as best path after ${polls} looks`
      : `bgpd logged the UPDATE at ${received.stamp}; vtysh showed it as best path ${Math.round(seenWall - commitAt)} ms after the commit`;
  console.log(
    `Delay: ${Math.round(delay)} ms from the nbctl commit to FRR holding ${prefix} via ${best.nextHops.join(' ')}`,
  );
  console.log(`  commit: ${commitText}`);
  console.log(`  FRR: ${frrText}`);
  const o = (await callControl(opts.socket, 'ovn', {}))?.routes.find((r) => r.prefix === prefix);
  if (o) console.log(`The speaker: ${o.kind} from ${o.origin.table} ${o.origin.name}; next hop: ${o.why}`);
  console.log('');
  console.log(`$ vtysh -c 'show bgp ${family} unicast ${prefix}'`);
  console.log((await vtysh(opts.vty, `show bgp ${family} unicast ${prefix}`)).trimEnd());
  return 0;
}

async function main(): Promise<number> {
  const { command, opts } = readOptions(process.argv.slice(2));
  switch (command) {
    case 'routes':
      return routesCommand(opts);
    case 'live-fip':
      return liveFipCommand(opts);
    default:
      throw new Error(USAGE);
  }
}

main().then(
  (status) => {
    process.exitCode = status;
  },
  (e: unknown) => {
    console.error(e instanceof Error ? e.message : String(e));
    process.exitCode = 2;
  },
);
