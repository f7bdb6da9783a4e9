/**
 * A misbehaving server in front of a real ovsdb-server: malformed JSON, garbage, an oversize
 * message that never ends, a huge one that does, wrong ids and non-RPC values each give a clear error and a reconnect, never a crash
 * or an unbounded buffer; once the server behaves (a byte-for-byte proxy to the real one) the
 * client syncs and its replica equals the dump.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OvsdbClient, type OvsdbErrorKind } from '../../src/ovsdb/index.js';
import {
  diffAgainstDump,
  dumpDatabase,
  loadSchema,
  NB_SCHEMA,
  nbctl,
  OvsdbLab,
  type ServerHandle,
  waitFor,
} from '../support/ovsdb-lab.js';

const NB_DB = 'OVN_Northbound';
const schema = loadSchema(NB_SCHEMA);
const MAX_MESSAGE = 256 * 1024;
const OVERSIZE_TOTAL = 32 * 1024 * 1024;

type Behaviour = 'malformed' | 'garbage' | 'oversize' | 'huge' | 'wrong-id' | 'not-rpc' | 'proxy';

let lab: OvsdbLab;
let nb: ServerHandle;
let fake: net.Server;
const script: Behaviour[] = [];
const oversizeWritten: number[] = [];
const sockets = new Set<net.Socket>();

function behave(socket: net.Socket, behaviour: Behaviour): void {
  socket.on('error', () => {});
  switch (behaviour) {
    case 'garbage':
      socket.write('HTTP/1.1 400 Bad Request\r\n\r\n');
      return;
    case 'malformed':
      socket.once('data', () => socket.write('{"id":1,"result":[}'));
      return;
    case 'not-rpc':
      socket.once('data', () => socket.write('[1,2,3]'));
      return;
    case 'wrong-id':
      socket.on('data', (d) => {
        const id = /"id":(\d+)/.exec(d.toString())?.[1];
        if (id) socket.write(`{"id":${Number(id) + 1000},"result":{},"error":null}`);
      });
      return;
    case 'oversize': {
      // A message that never ends: the client must give up at its limit, not buffer 32 MiB.
      let written = 0;
      const chunk = Buffer.alloc(64 * 1024, 'a');
      const pump = () => {
        while (written < OVERSIZE_TOTAL && !socket.destroyed) {
          written += chunk.length;
          if (!socket.write(chunk)) return void socket.once('drain', pump);
        }
      };
      socket.on('close', () => oversizeWritten.push(written));
      socket.write('{"id":null,"method":"update2","params":["x","');
      pump();
      return;
    }
    case 'huge': {
      // A well-formed notification four times the limit, in one write: refused whole, not parsed.
      const rows = 'x'.repeat(4 * MAX_MESSAGE);
      socket.write(`{"id":null,"method":"update2","params":["x",{"T":{"u":{"insert":{"c":"${rows}"}}}}]}`);
      return;
    }
    case 'proxy': {
      const upstream = net.connect(nb.unix.slice('unix:'.length));
      upstream.on('error', () => socket.destroy());
      socket.on('close', () => upstream.destroy());
      upstream.on('close', () => socket.destroy());
      socket.pipe(upstream);
      upstream.pipe(socket);
      return;
    }
  }
}

beforeAll(async () => {
  lab = OvsdbLab.create('ovsdb-bad-');
  nb = await lab.startServer('nb', await lab.createDb('nb', NB_SCHEMA));
  await nbctl(nb.unix, 'init');
  await nbctl(
    nb.unix,
    'lr-add',
    'r1',
    '--',
    'lr-route-add',
    'r1',
    '10.1.0.0/16',
    '192.0.2.1',
    '--',
    'ls-add',
    'sw1',
  );
  fake = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    behave(socket, script.shift() ?? 'proxy');
  });
  await new Promise<void>((resolve) => fake.listen(lab.path('fake.sock'), resolve));
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => (fake ? fake.close(() => resolve()) : resolve()));
  await lab?.close();
});

describe('a server that sends bad input', () => {
  it('gets a clear error and a reconnect for each fault, then syncs through the good server', async () => {
    script.push('garbage', 'malformed', 'oversize', 'huge', 'wrong-id', 'not-rpc');
    const errors: { kind: OvsdbErrorKind; message: string }[] = [];
    const warnings: { fields: Record<string, unknown>; msg: string | undefined }[] = [];
    const warn = (obj: object | string, msg?: string) =>
      warnings.push({ fields: typeof obj === 'string' ? {} : (obj as Record<string, unknown>), msg });
    const logger = { debug: () => {}, info: () => {}, warn, error: warn };
    const client = new OvsdbClient(
      {
        remotes: `unix:${lab.path('fake.sock')}`,
        database: NB_DB,
        tables: { Logical_Router: {}, Logical_Router_Static_Route: {}, Logical_Switch: {} },
        maxMessageBytes: MAX_MESSAGE,
        backoff: { initialMs: 20, maxMs: 200, jitter: 0.5 },
      },
      { logger },
    );
    client.on('status', (s) => {
      if (s.state === 'disconnected') errors.push({ kind: s.error.kind, message: s.error.message });
    });
    client.start();
    try {
      await client.whenSynced(30_000);
      expect(errors.map((e) => e.kind)).toEqual([
        'malformed-json',
        'malformed-json',
        'oversize-message',
        'oversize-message',
        'unknown-response-id',
        'bad-message',
      ]);
      expect(errors[0].message).toMatch(/expected '\{' to start a message, got "HTTP\/1\.1/);
      expect(errors[2].message).toMatch(`exceeds ${MAX_MESSAGE} bytes`);
      expect(errors[3].message).toMatch(`exceeds ${MAX_MESSAGE} bytes`);
      expect(errors[4].message).toMatch(/response to no request \(id 1\d{3}\)/);
      expect(client.stats.connectAttempts).toBe(7);
      // The operator's log says which server and why, once per cut-off connection.
      const cutOff = warnings.filter((w) => w.fields.kind === 'oversize-message');
      expect(cutOff).toHaveLength(2);
      for (const w of cutOff) {
        expect(w.msg).toBe('ovsdb: session ended');
        expect(w.fields).toMatchObject({
          remote: `unix:${lab.path('fake.sock')}`,
          err: `oversize-message: message exceeds ${MAX_MESSAGE} bytes`,
        });
      }
      // The client hung up long before the 32 MiB were sent.
      expect(oversizeWritten[0]).toBeLessThan(OVERSIZE_TOTAL / 4);
      const dump = await dumpDatabase(nb.unix, NB_DB);
      const tables = ['Logical_Router', 'Logical_Router_Static_Route', 'Logical_Switch'];
      expect(diffAgainstDump(schema, (t) => client.table(t), dump, tables)).toEqual([]);
      expect(client.table('Logical_Router').size).toBe(1);
    } finally {
      await client.close();
    }
  });

  it('recovers when a fault arrives in the middle of a synced session', async () => {
    const client = new OvsdbClient({
      remotes: `unix:${lab.path('fake.sock')}`,
      database: NB_DB,
      tables: { Logical_Switch: {} },
      backoff: { initialMs: 20, maxMs: 200, jitter: 0.5 },
    });
    const kinds: string[] = [];
    client.on('status', (s) => s.state === 'disconnected' && kinds.push(s.error.kind));
    client.start();
    try {
      await client.whenSynced(10_000);
      // The next connection will misbehave; end this one as a crash would.
      script.push('wrong-id');
      await lab.stop(nb, 'SIGKILL');
      await lab.restart(nb);
      await nbctl(nb.unix, 'ls-add', 'sw2');
      await waitFor(
        'sw2 after the bad session',
        () => [...client.table('Logical_Switch').values()].some((r) => r.name === 'sw2'),
        20_000,
      );
      expect(kinds).toContain('connection-lost');
      expect(kinds).toContain('unknown-response-id');
      expect(client.synced).toBe(true);
    } finally {
      await client.close();
    }
  });
});
