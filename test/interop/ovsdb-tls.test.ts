/**
 * `ssl:` remotes with a private key, certificate and CA, as OVN's --private-key/--certificate/
 * --ca-cert: a throwaway CA signs the server's and the client's certificates; a client that
 * trusts another CA, or presents a certificate of another CA, is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OvsdbClient, type OvsdbError, type TlsFiles } from '../../src/ovsdb/index.js';
import { NB_SCHEMA, nbctl, OvsdbLab, type ServerHandle } from '../support/ovsdb-lab.js';

const NB_DB = 'OVN_Northbound';
let lab: OvsdbLab;
let other: OvsdbLab;
let nb: ServerHandle;
let good: TlsFiles;
let foreign: TlsFiles;

beforeAll(async () => {
  lab = OvsdbLab.create('ovsdb-tls-');
  other = OvsdbLab.create('ovsdb-tls-other-');
  const certs = await lab.makeCertificates();
  good = certs.client;
  foreign = (await other.makeCertificates()).client;
  nb = await lab.startServer('nb', await lab.createDb('nb', NB_SCHEMA), { ssl: certs.server });
  await nbctl(nb.unix, 'init');
  await nbctl(nb.unix, 'ls-add', 'sw1');
});

afterAll(async () => {
  await lab?.close();
  await other?.close();
});

async function attempt(tls: TlsFiles): Promise<{ client: OvsdbClient; errors: OvsdbError[] }> {
  const client = new OvsdbClient({
    remotes: nb.ssl as string,
    database: NB_DB,
    tables: { Logical_Switch: {} },
    tls,
    backoff: { initialMs: 50, maxMs: 200 },
  });
  const errors: OvsdbError[] = [];
  client.on('status', (s) => s.state === 'disconnected' && errors.push(s.error));
  client.start();
  return { client, errors };
}

describe('ssl: remotes', () => {
  it('syncs and writes over TLS with certificates from the shared CA', async () => {
    const { client } = await attempt(good);
    try {
      await client.whenSynced(15_000);
      expect([...client.table('Logical_Switch').values()].map((r) => r.name)).toEqual(['sw1']);
      await client.transact([{ op: 'insert', table: 'Logical_Switch', row: { name: 'over-tls' } }]);
      expect(await nbctl(nb.unix, 'ls-list')).toMatch(/over-tls/);
    } finally {
      await client.close();
    }
  });

  it('refuses a server whose certificate our CA did not sign', async () => {
    const { client, errors } = await attempt({ ...good, caCert: foreign.caCert });
    try {
      await expect(client.whenSynced(1500)).rejects.toMatchObject({ kind: 'request-timeout' });
      expect(errors.length).toBeGreaterThan(0);
      expect(errors[0].kind).toBe('connection-failed');
      expect(errors[0].message).toMatch(/certificate/i);
    } finally {
      await client.close();
    }
  });

  it('is refused by the server when our certificate is from another CA', async () => {
    const { client, errors } = await attempt({ ...foreign, caCert: good.caCert });
    try {
      await expect(client.whenSynced(1500)).rejects.toMatchObject({ kind: 'request-timeout' });
      expect(errors.length).toBeGreaterThan(0);
      expect(['connection-failed', 'connection-lost']).toContain(errors[0].kind);
    } finally {
      await client.close();
    }
  });
});
