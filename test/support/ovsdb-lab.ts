/**
 * Starts and stops real ovsdb-server (standalone, TLS, RAFT clusters) and ovn-northd in a
 * temp dir for the OVSDB tests and benchmarks. Every daemon gets its pidfile, log and control
 * socket inside the lab dir and is stopped by its PID; nothing is ever stopped by name.
 * TCP listeners use 127.0.0.1 ports 26640-26699 only, checked free before use.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type DatabaseSchema,
  parseSchema,
  type Row,
  type RowChange,
  TableCodec,
  type TableSchema,
} from '../../src/ovsdb/index.js';

export const NB_SCHEMA = '/usr/share/ovn/ovn-nb.ovsschema';
export const SB_SCHEMA = '/usr/share/ovn/ovn-sb.ovsschema';
const PORT_FIRST = 26640;
const PORT_LAST = 26699;
const COMMAND_TIMEOUT_MS = 30_000;
const STOP_WAIT_MS = 5000;
const POLL_MS = 50;

export function run(cmd: string, args: readonly string[], timeoutMs = COMMAND_TIMEOUT_MS): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { timeout: timeoutMs, maxBuffer: 512 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${cmd} ${args.join(' ')}: ${err.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls `check` until it returns a truthy value or `timeoutMs` passes (then throws `what`). */
export async function waitFor<T>(what: string, check: () => T | Promise<T>, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= end) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${lastError}` : ''}`,
      );
    }
    await sleep(POLL_MS);
  }
}

/** Alive means present and not a zombie: PID 1 here reaps late, so `kill -0` is not enough. */
export function isAlive(pid: number): boolean {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return !/^State:\s+Z/m.test(status);
  } catch {
    return false;
  }
}

const handedOut = new Set<number>();

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A free 127.0.0.1 port in this task's range, never the same twice in one process. */
export async function freePort(): Promise<number> {
  const span = PORT_LAST - PORT_FIRST + 1;
  const offset = Math.floor(Math.random() * span);
  for (let i = 0; i < span; i++) {
    const port = PORT_FIRST + ((offset + i) % span);
    if (handedOut.has(port)) continue;
    if (await canListen(port)) {
      handedOut.add(port);
      return port;
    }
  }
  handedOut.clear();
  throw new Error(`no free port in ${PORT_FIRST}-${PORT_LAST}`);
}

export interface SslFiles {
  readonly privateKey: string;
  readonly certificate: string;
  readonly caCert: string;
}

export interface ServerHandle {
  readonly name: string;
  pid: number;
  /** `unix:PATH` */
  readonly unix: string;
  /** `tcp:127.0.0.1:PORT` when asked for */
  readonly tcp?: string;
  readonly ssl?: string;
  readonly ctl: string;
  readonly log: string;
  readonly dbFile: string;
  readonly args: readonly string[];
}

export interface ClusterHandle {
  readonly members: ServerHandle[];
  /** `tcp:...,tcp:...,tcp:...` as OVN writes it */
  readonly remotes: string;
}

export class OvsdbLab {
  readonly dir: string;
  readonly #pids = new Set<number>();

  private constructor(dir: string) {
    this.dir = dir;
    liveLabs.add(this);
  }

  /** Last resort when the process exits without close(): SIGKILL our daemons, remove the dir. */
  killNow(): void {
    for (const pid of this.#pids) {
      try {
        if (isAlive(pid)) process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    this.#pids.clear();
    rmSync(this.dir, { recursive: true, force: true });
    liveLabs.delete(this);
  }

  static create(prefix = 'ovsdb-lab-'): OvsdbLab {
    return new OvsdbLab(mkdtempSync(join(tmpdir(), prefix)));
  }

  path(name: string): string {
    return join(this.dir, name);
  }

  async createDb(name: string, schema: string): Promise<string> {
    const file = this.path(`${name}.db`);
    await run('ovsdb-tool', ['create', file, schema]);
    return file;
  }

  /**
   * Starts ovsdb-server on a db file with a unix socket, plus a TCP and/or SSL listener on a
   * free port when asked. Retries with another port if the first was taken in between.
   */
  async startServer(
    name: string,
    dbFile: string,
    opts: { tcp?: boolean; ssl?: SslFiles; extraArgs?: readonly string[] } = {},
  ): Promise<ServerHandle> {
    for (let tries = 0; tries < 5; tries++) {
      const port = opts.tcp || opts.ssl ? await freePort() : undefined;
      const sock = this.path(`${name}.sock`);
      const remotes = [`--remote=punix:${sock}`];
      if (port !== undefined) remotes.push(`--remote=${opts.ssl ? 'pssl' : 'ptcp'}:${port}:127.0.0.1`);
      const ssl = opts.ssl
        ? [
            `--private-key=${opts.ssl.privateKey}`,
            `--certificate=${opts.ssl.certificate}`,
            `--ca-cert=${opts.ssl.caCert}`,
          ]
        : [];
      const handle: ServerHandle = {
        name,
        pid: 0,
        unix: `unix:${sock}`,
        tcp: port !== undefined && !opts.ssl ? `tcp:127.0.0.1:${port}` : undefined,
        ssl: port !== undefined && opts.ssl ? `ssl:127.0.0.1:${port}` : undefined,
        ctl: this.path(`${name}.ctl`),
        log: this.path(`${name}.log`),
        dbFile,
        args: [
          '--detach',
          '--no-chdir',
          `--pidfile=${this.path(`${name}.pid`)}`,
          `--log-file=${this.path(`${name}.log`)}`,
          `--unixctl=${this.path(`${name}.ctl`)}`,
          ...remotes,
          ...ssl,
          ...(opts.extraArgs ?? []),
          dbFile,
        ],
      };
      await this.#launch(handle);
      if (port === undefined || (await this.#listening(handle, port))) return handle;
      await this.stop(handle);
    }
    throw new Error(`${name}: could not get a free TCP port`);
  }

  /** Starts a server again with the arguments it had (after a kill). */
  async restart(handle: ServerHandle): Promise<void> {
    await this.#launch(handle);
  }

  async #launch(handle: ServerHandle): Promise<void> {
    const pidfile = this.path(`${handle.name}.pid`);
    await run('ovsdb-server', handle.args);
    handle.pid = Number(readFileSync(pidfile, 'utf8').trim());
    this.#pids.add(handle.pid);
  }

  async #listening(handle: ServerHandle, port: number): Promise<boolean> {
    // ovsdb-server keeps running when a listener fails; the log says so.
    const log = readFileSync(handle.log, 'utf8');
    if (log.includes(`:${port}:127.0.0.1: listen failed`)) return false;
    return waitFor(`${handle.name} listening on ${port}`, async () => !(await canListen(port)), 5000);
  }

  /** A 3 (or n) member RAFT cluster of `schema` with unix and TCP client listeners each. */
  async startCluster(name: string, schema: string, database: string, members = 3): Promise<ClusterHandle> {
    const raftPorts: number[] = [];
    for (let i = 0; i < members; i++) raftPorts.push(await freePort());
    const files: string[] = [];
    for (let i = 0; i < members; i++) {
      const file = this.path(`${name}${i + 1}.db`);
      const raft = `tcp:127.0.0.1:${raftPorts[i]}`;
      if (i === 0) await run('ovsdb-tool', ['create-cluster', file, schema, raft]);
      else await run('ovsdb-tool', ['join-cluster', file, database, raft, `tcp:127.0.0.1:${raftPorts[0]}`]);
      files.push(file);
    }
    const handles: ServerHandle[] = [];
    for (let i = 0; i < members; i++)
      handles.push(await this.startServer(`${name}${i + 1}`, files[i], { tcp: true }));
    for (const h of handles) {
      await run('ovsdb-client', ['wait', h.unix, database, 'connected'], 30_000);
    }
    return { members: handles, remotes: handles.map((h) => h.tcp).join(',') };
  }

  /** `Role: leader` etc. from cluster/status of one member. */
  async clusterRole(member: ServerHandle, database: string): Promise<string> {
    const out = await run('ovs-appctl', ['-t', member.ctl, 'cluster/status', database], 5000);
    return /^Role:\s*(\S+)/m.exec(out)?.[1] ?? 'unknown';
  }

  async startNorthd(nb: string, sb: string): Promise<number> {
    const pidfile = this.path('northd.pid');
    await run('ovn-northd', [
      '--detach',
      '--no-chdir',
      `--pidfile=${pidfile}`,
      `--log-file=${this.path('northd.log')}`,
      `--unixctl=${this.path('northd.ctl')}`,
      `--ovnnb-db=${nb}`,
      `--ovnsb-db=${sb}`,
    ]);
    const pid = Number(readFileSync(pidfile, 'utf8').trim());
    this.#pids.add(pid);
    await waitFor('ovn-northd active', async () =>
      (await run('ovn-appctl', ['-t', this.path('northd.ctl'), 'status'], 5000)).includes('active'),
    );
    return pid;
  }

  /** Stops one of our daemons: the signal, then SIGKILL if it lingers; waits until it is gone. */
  async stop(target: ServerHandle | number, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const pid = typeof target === 'number' ? target : target.pid;
    if (!this.#pids.has(pid)) throw new Error(`PID ${pid} was not started by this lab`);
    if (isAlive(pid)) {
      try {
        process.kill(pid, signal);
      } catch {
        // already gone
      }
      try {
        await waitFor(`PID ${pid} to exit`, () => !isAlive(pid), STOP_WAIT_MS);
      } catch {
        process.kill(pid, 'SIGKILL');
        await waitFor(`PID ${pid} to exit after SIGKILL`, () => !isAlive(pid), STOP_WAIT_MS);
      }
    }
    this.#pids.delete(pid);
  }

  /** Throwaway CA, and a server and a client certificate it signed (openssl, in the lab dir). */
  async makeCertificates(): Promise<{ server: SslFiles; client: SslFiles }> {
    const p = (f: string) => this.path(f);
    const subj = (cn: string) => ['-subj', `/CN=${cn}`];
    await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-keyout',
      p('ca.key'),
      '-out',
      p('ca.pem'),
      ...subj('lab-ca'),
    ]);
    writeFileSync(p('ext.cnf'), 'basicConstraints=CA:FALSE\n');
    const issue = async (who: string): Promise<SslFiles> => {
      await run('openssl', [
        'req',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        p(`${who}.key`),
        '-out',
        p(`${who}.csr`),
        ...subj(who),
      ]);
      await run('openssl', [
        'x509',
        '-req',
        '-in',
        p(`${who}.csr`),
        '-CA',
        p('ca.pem'),
        '-CAkey',
        p('ca.key'),
        '-CAcreateserial',
        '-days',
        '2',
        '-extfile',
        p('ext.cnf'),
        '-out',
        p(`${who}.pem`),
      ]);
      return { privateKey: p(`${who}.key`), certificate: p(`${who}.pem`), caCert: p('ca.pem') };
    };
    return { server: await issue('server'), client: await issue('client') };
  }

  /** Stops everything this lab started (its own PIDs only) and removes the dir. */
  async close(): Promise<void> {
    for (const pid of [...this.#pids]) {
      try {
        await this.stop(pid);
      } catch {
        // keep stopping the others
      }
    }
    rmSync(this.dir, { recursive: true, force: true });
    liveLabs.delete(this);
  }
}

const liveLabs = new Set<OvsdbLab>();
process.once('exit', () => {
  for (const lab of liveLabs) lab.killNow();
});

export const nbctl = (db: string, ...args: string[]) =>
  run('ovn-nbctl', [`--db=${db}`, '--timeout=10', ...args]);
export const sbctl = (db: string, ...args: string[]) =>
  run('ovn-sbctl', [`--db=${db}`, '--timeout=10', ...args]);

/** Rows of every table as `ovsdb-client dump -f json --data=json` prints them: table → uuid → column → JSON. */
export type Dump = Map<string, Map<string, Record<string, unknown>>>;

export async function dumpDatabase(
  remote: string,
  database: string,
  tables: readonly string[] = [],
): Promise<Dump> {
  const dump: Dump = new Map();
  const lines: string[] = [];
  if (tables.length === 0) {
    lines.push(
      ...(await run('ovsdb-client', ['dump', '-f', 'json', '--data=json', remote, database])).split('\n'),
    );
  } else {
    for (const t of tables) {
      lines.push(
        ...(await run('ovsdb-client', ['dump', '-f', 'json', '--data=json', remote, database, t])).split(
          '\n',
        ),
      );
    }
  }
  for (const line of lines) {
    if (line.trim() === '') continue;
    const t = JSON.parse(line) as { caption: string; headings: string[]; data: unknown[][] };
    const table = t.caption.replace(/ table$/, '');
    const rows = new Map<string, Record<string, unknown>>();
    for (const cells of t.data) {
      const row: Record<string, unknown> = {};
      t.headings.forEach((h, i) => {
        row[h] = cells[i];
      });
      rows.set((row._uuid as [string, string])[1], row);
    }
    dump.set(table, rows);
  }
  return dump;
}

/**
 * Differences between replica tables and a dump, row for row, column for column (decoded
 * with the schema so a set of one travelling as a bare atom compares equal). Empty when equal.
 */
export function diffAgainstDump(
  schema: DatabaseSchema,
  replica: (table: string) => ReadonlyMap<string, Row>,
  dump: Dump,
  tables: readonly string[],
): string[] {
  const out: string[] = [];
  for (const table of tables) {
    const rows = replica(table);
    const dumped = dump.get(table) ?? new Map();
    const sample = rows.values().next().value as Row | undefined;
    const columns = sample
      ? Object.keys(sample).filter((c) => c !== '_uuid')
      : [...(schema.tables.get(table)?.columns.keys() ?? [])].filter((c) => !c.startsWith('_'));
    const codec = new TableCodec(schemaTable(schema, table), columns);
    for (const [uuid, json] of dumped) {
      const mine = rows.get(uuid);
      if (!mine) {
        out.push(`${table} ${uuid}: missing from replica`);
        continue;
      }
      const theirs = codec.decodeRow(uuid, json);
      if (!codec.equals(mine, theirs)) {
        out.push(`${table} ${uuid}: columns differ: ${codec.changedColumns(mine, theirs).join(', ')}`);
      }
    }
    for (const uuid of rows.keys()) if (!dumped.has(uuid)) out.push(`${table} ${uuid}: not in dump`);
  }
  return out;
}

function schemaTable(schema: DatabaseSchema, table: string): TableSchema {
  const t = schema.tables.get(table);
  if (!t) throw new Error(`no table ${table}`);
  return t;
}

export function loadSchema(file: string): DatabaseSchema {
  return parseSchema(JSON.parse(readFileSync(file, 'utf8')));
}

/**
 * Rebuilds tables from change events alone, checking each event against what came before:
 * an insert of a row already there, or an old row that is not the one we hold, is recorded
 * as an inconsistency. Equal to the dump at the end means the events told the whole truth.
 */
export class EventMirror {
  readonly tables = new Map<string, Map<string, Row>>();
  readonly problems: string[] = [];
  readonly batches: { reason: string; changes: readonly RowChange[] }[] = [];

  apply(batch: { reason: string; changes: readonly RowChange[] }): void {
    this.batches.push(batch);
    for (const c of batch.changes) {
      let rows = this.tables.get(c.table);
      if (!rows) {
        rows = new Map();
        this.tables.set(c.table, rows);
      }
      const held = rows.get(c.uuid) ?? null;
      if (held !== c.old) this.problems.push(`${c.table} ${c.uuid}: old row is not the one last reported`);
      if (c.old === null && c.new === null) this.problems.push(`${c.table} ${c.uuid}: empty change`);
      if (c.new) rows.set(c.uuid, c.new);
      else rows.delete(c.uuid);
    }
  }

  table(name: string): ReadonlyMap<string, Row> {
    return this.tables.get(name) ?? new Map();
  }

  /** Batches since index `from`, summarised as `reason table:op` strings. */
  summary(from = 0): string[] {
    return this.batches
      .slice(from)
      .flatMap((b) =>
        b.changes.map((c) => `${b.reason} ${c.table}:${c.old ? (c.new ? 'modify' : 'delete') : 'insert'}`),
      );
  }
}
