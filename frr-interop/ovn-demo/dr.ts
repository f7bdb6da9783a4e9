/**
 * The demo on OVN 25.03 (`npm run demo -- --ovn25`): OVN computes what router lr0 advertises
 * itself (dynamic routing), a real ovn-controller on each chassis puts it into the router's
 * kernel table, and our speaker on each chassis takes the seat OVN's design gives FRR: it
 * advertises that table to the fabric (FRR 10.3) and writes what the fabric announces back
 * into it, where OVN learns it. Everything runs from the trixie root in network namespaces.
 *
 *   npx tsx frr-interop/ovn-demo/dr.ts          build it, tell the story, keep it running until Ctrl-C
 *   npx tsx frr-interop/ovn-demo/dr.ts --once   the same, then remove everything (CI=true implies it)
 *   npx tsx frr-interop/ovn-demo/dr.ts down     remove what a run that died left behind
 *
 * Every wait is bounded; a failure prints what was missing and exits 1 after removing the lab.
 */
import { join } from 'node:path';
import { chassisAddress, FABRIC_ROUTES, OvnDrLab } from '../../test/interop/support/ovn-dr-lab.js';
import type { SpeakerProcess } from '../../test/interop/support/ovn-speaker.js';
import type { ReceivedRoute } from '../lab/index.js';

const ID = 'demo';
const WAIT_MS = 60_000;
const POLL_MS = 20;
const LIVE_FIP = '198.18.171.50';
const HOLD_S = 30;

const say = (title: string) => console.log(`\n== ${title} ==`);
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls `probe` until it gives a value; throws naming `what` after `ms`. */
async function until<T>(probe: () => Promise<T | undefined>, what: string, ms = WAIT_MS): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out after ${ms / 1000} s waiting for ${what}`);
    await sleep(POLL_MS);
  }
}

const nonLinkLocal = (r: ReceivedRoute) => r.nextHops.find((h) => !h.startsWith('fe80')) ?? '';

/** The fabric's paths, both families: prefix -> its paths. */
async function fabricTable(lab: OvnDrLab): Promise<Map<string, ReceivedRoute[]>> {
  const out = new Map<string, ReceivedRoute[]>();
  for (const f of ['ipv4', 'ipv6'] as const)
    for (const r of await lab.fabric.routes(f)) out.set(r.prefix, [...(out.get(r.prefix) ?? []), r]);
  return out;
}

function pad(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

async function story(lab: OvnDrLab): Promise<{ speakers: SpeakerProcess[] }> {
  const table = await lab.tableOf('lr0');
  say('Our speaker on each chassis, in the seat OVN gives FRR (ovn_route_tables)');
  const sections = {
    ovn_route_tables: { sb: lab.sb, tables: [{ router: 'lr0', learn: ['all'] }], hold_time: HOLD_S },
  };
  const speakers = [await lab.startSpeaker(1, sections), await lab.startSpeaker(2, sections)];
  console.log(
    `hv1 ${chassisAddress(1).ipv4} and hv2 ${chassisAddress(2).ipv4}, AS 65171, peering with the fabric; configs in ${lab.dir}`,
  );

  say(`What OVN advertises (SB Advertised_Route) and what ovn-controller put into hv1's table ${table}`);
  console.log((await lab.advertisedPrefixes()).join('  '));
  const routes = await until(async () => {
    const r = (await lab.tableRoutes(1, table)).filter((l) => l.includes('proto 84'));
    return r.length >= 10 ? r : undefined;
  }, `hv1 table ${table}`);
  for (const l of routes) console.log(`  ${l}`);
  console.log('(metric 100: the port the route tracks is bound on this chassis; 1000: elsewhere)');

  say('What the fabric (FRR 10.3) learned: next hop the chassis, MED the table metric');
  const hv1 = chassisAddress(1);
  const learned = await until(async () => {
    const t = await fabricTable(lab);
    const ours = [...t].filter(([, paths]) => paths.some((p) => p.from === hv1.ipv4));
    return ours.length >= 8 ? ours : undefined;
  }, 'the fabric holding hv1 routes');
  const rows = [['Prefix', 'Next hop', 'MED', 'From']];
  for (const [prefix, paths] of learned)
    for (const p of paths) rows.push([prefix, nonLinkLocal(p), String(p.med ?? '-'), p.from]);
  console.log(pad(rows));
  console.log(
    '(the provider network 198.18.171.0/24 is connected on the chassis: not advertised, as FRR would not)',
  );

  say('A route the fabric announces, learned by OVN (SB Learned_Route)');
  const rowsLearned = await until(async () => {
    const l = await lab.learnedRoutes();
    return l.some((r) => r.prefix === FABRIC_ROUTES.ipv4) ? l : undefined;
  }, 'Learned_Route rows');
  for (const r of rowsLearned) console.log(`  ${r.prefix} via ${r.nextHop}`);
  const ours = (await lab.tableRoutes(1, table)).filter((l) => l.includes('proto bgp'));
  console.log(`written by our speaker into table ${table} on hv1:`);
  for (const l of ours) console.log(`  ${l}`);

  say(`One live change: a new floating IP ${LIVE_FIP} (ovn-nbctl call -> best path at the fabric)`);
  const t0 = performance.now();
  await lab.nbctl('lr-nat-add', 'lr0', 'dnat_and_snat', LIVE_FIP, '198.19.71.50');
  const live = await until(async () => {
    const p = (await lab.fabric.routes('ipv4')).find((r) => r.prefix === `${LIVE_FIP}/32` && r.best);
    return p ? performance.now() - t0 : undefined;
  }, `${LIVE_FIP}/32 at the fabric`);
  console.log(
    `${LIVE_FIP}/32 at the fabric after ${live.toFixed(0)} ms (ovn-northd, ovn-controller, our speaker and FRR)`,
  );

  say('The gateway port moves to hv2: the fabric prefers hv2, with no withdrawal in between');
  const fip = '198.18.171.10/32';
  const seen: string[] = [];
  const t1 = performance.now();
  const watching = until(async () => {
    const p = (await lab.fabric.routes('ipv4')).find((r) => r.prefix === fip && r.best);
    const now = p ? `${nonLinkLocal(p)} MED ${p.med ?? '-'}` : 'none';
    if (seen.at(-1) !== now) seen.push(now);
    return now.startsWith(`${chassisAddress(2).ipv4} MED 100`) ? true : undefined;
  }, `${fip} preferred via hv2`);
  await lab.nbctl(
    'lrp-del-gateway-chassis',
    'lr0-ext',
    'hv1',
    '--',
    'lrp-set-gateway-chassis',
    'lr0-ext',
    'hv2',
    '20',
  );
  await watching;
  console.log(
    `${fip}, best path at the fabric: ${seen.join(' -> ')} (${(performance.now() - t1).toFixed(0)} ms)`,
  );
  return { speakers };
}

function guide(lab: OvnDrLab, speakers: readonly SpeakerProcess[]): void {
  const root = lab.root.path;
  const cli = 'node dist/src/cli/main.js';
  say('Try it (everything keeps running until Ctrl-C)');
  console.log(`The fabric router, FRR 10.3 (from the trixie root ${root}):
  chroot ${root} vtysh --vty_socket ${lab.fabric.dir} -c 'show bgp ipv4 unicast'
  chroot ${root} vtysh --vty_socket ${lab.fabric.dir} -c 'show bgp ipv6 unicast'
Our speakers: each chassis' table as followed, what is advertised, held or skipped
  ${cli} show ovn --socket ${speakers[0]!.socket}
  ${cli} show ovn --socket ${speakers[1]!.socket}
  ${cli} show sinks --socket ${speakers[0]!.socket}
OVN 25.03 and the chassis' kernel tables
  chroot ${root} ovn-sbctl --db=${lab.sb} list Advertised_Route
  chroot ${root} ovn-sbctl --db=${lab.sb} list Learned_Route
  ip -n ${lab.chassisNs(1)} route show table all proto 84
Things to change, then look at the fabric again:
  chroot ${root} ovn-nbctl --db=${lab.nb} lr-nat-add lr0 dnat_and_snat 198.18.171.60 198.19.71.60
  chroot ${root} ovn-nbctl --db=${lab.nb} lr-route-add lr0 198.18.192.0/24 198.19.71.10
  chroot ${root} ovn-appctl -t ${join(lab.chassisDir(2), 'ovn-controller.ctl')} exit   # its routes held, not withdrawn`);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args.includes('down')) {
    await OvnDrLab.removeLeftovers(ID);
    console.log('removed what an earlier OVN 25.03 demo left');
    return;
  }
  const once = args.includes('--once') || process.env.CI === 'true';
  say(
    'OVN 25.03 from the trixie root: NB, SB and ovn-northd; ovn-controller on hv1 and hv2; FRR 10.3 as the fabric',
  );
  const lab = await OvnDrLab.create({ id: ID, chassis: 2 });
  let speakers: SpeakerProcess[] = [];
  try {
    ({ speakers } = await story(lab));
  } catch (error) {
    console.error(`demo failed: ${(error as Error).message}`);
    for (const s of speakers) console.error(s.logTail(15));
    await lab.destroy().catch(() => undefined);
    process.exit(1);
  }
  if (once) {
    say('Removing everything (--once)');
    for (const s of speakers) await s.stop();
    await lab.destroy();
    return;
  }
  guide(lab, speakers);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  say('Removing everything');
  for (const s of speakers) await s.stop();
  await lab.destroy();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
