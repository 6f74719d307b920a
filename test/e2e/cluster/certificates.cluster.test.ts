// Device certificates in cluster mode (docs/tls.md#client-certificates): a certificate registered through one
// node signs a device in on another node's MQTTS (PostgreSQL), and revoking it on the first node
// closes the connection on the second (the bus's `revoke`, through Redis).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import mqtt from 'mqtt';
import { startTestHearth, type TestHearth } from '../../helpers/hearth.js';
import { dropSchema, freshSchemaName, testDatabaseUrl } from '../../helpers/db.js';
import { REDIS_URL, deleteKeys, redisFixture, testPrefix } from '../../helpers/redis.js';
import { MIN_WAIT_MS } from '../../helpers/wait.js';
import { install, makePki, type Pki } from '../tls/pki.js';

const SECRET = 'cluster-secret-cluster-secret-cluster';

describe.skipIf(!testDatabaseUrl || !REDIS_URL)('device certificates across nodes', () => {
  const schema = freshSchemaName();
  const prefix = testPrefix();
  let pki: Pki;
  let a: TestHearth;
  let b: TestHearth;

  beforeAll(async () => {
    pki = makePki();
    const live = { cert: join(pki.dir, 'live-cert.pem'), key: join(pki.dir, 'live-key.pem') };
    install(pki.serverCert('hearth'), live);
    const tls = { certFile: live.cert, keyFile: live.key, caFile: null, clientCertificates: 'optional' as const };
    const cluster = { databaseUrl: testDatabaseUrl!, databaseSchema: schema, redisUrl: REDIS_URL!, redisPrefix: prefix, secret: SECRET, tls };
    a = await startTestHearth(cluster);
    b = await startTestHearth({ ...cluster, roles: ['broker', 'api'] });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await dropSchema(testDatabaseUrl!, schema);
    const r = await redisFixture();
    await deleteKeys(r.client, prefix);
    await r.cleanup();
    pki?.remove();
  });

  it('registered on one node, signs in on the other; revoked on the first, the connection on the other closes', async () => {
    const d = await a.seedDevice();
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=lamp'].concat([
        '-keyout',
        'd.key',
        '-out',
        'd.crt',
      ]),
      {
        cwd: pki.dir,
        stdio: 'ignore',
      },
    );
    const cert = readFileSync(join(pki.dir, 'd.crt'), 'utf8');
    const key = readFileSync(join(pki.dir, 'd.key'), 'utf8');
    const added = await a.http('POST', `/devices/${d.id}/certificates`, { token: a.adminKey, body: { pem: cert } });
    expect(added.status).toBe(201);
    const client = await mqtt.connectAsync(`mqtts://127.0.0.1:${b.hearth.mqttsPort}`, {
      ca: pki.ca,
      cert,
      key,
      reconnectPeriod: 0,
      connectTimeout: MIN_WAIT_MS,
    });
    onTestFinished(() => client.endAsync(true).catch(() => undefined));
    const closed = new Promise<void>((r) => client.once('close', () => r()));
    expect((await a.http('DELETE', `/devices/${d.id}/certificates/${added.body.fingerprint}`, { token: a.adminKey })).status).toBe(204);
    await closed;
  });
});
