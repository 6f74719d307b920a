// The read cache in cluster mode: two nodes (in-process startHearth) on one PostgreSQL schema and
// one Redis prefix. What one node changes, the other learns through the triggers' notifications
// (migration 0004, src/adapters/sql/change-feed.ts) and stops answering from its cache: the node
// that made the change refuses at once, the other as soon as the notification arrives (polled
// here, with a deadline, because delivery between processes takes its own time).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { startTestHearth, type TestHearth } from '../../helpers/hearth.js';
import { dropSchema, freshSchemaName, testDatabaseUrl } from '../../helpers/db.js';
import { REDIS_URL, deleteKeys, redisFixture, testPrefix } from '../../helpers/redis.js';
import { LISTENER_NAME } from '../../../src/adapters/sql/change-feed.js';

const POLL = { timeout: 10_000, interval: 50 };

describe.skipIf(!testDatabaseUrl || !REDIS_URL)('read cache across two nodes', () => {
  const schema = freshSchemaName();
  const prefix = testPrefix();
  let a: TestHearth;
  let b: TestHearth;

  beforeAll(async () => {
    const cluster = {
      databaseUrl: testDatabaseUrl!,
      databaseSchema: schema,
      redisUrl: REDIS_URL!,
      redisPrefix: prefix,
      secret: 'cache-secret-cache-secret-cache',
    };
    a = await startTestHearth({ ...cluster, roles: ['api'] });
    b = await startTestHearth({ ...cluster, roles: ['api'] });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await dropSchema(testDatabaseUrl!, schema);
    const r = await redisFixture();
    await deleteKeys(r.client, prefix);
    await r.cleanup();
  });

  /** a change that no trigger announces (as if a notification were lost) */
  const silently = async (statement: string, params: unknown[]) => {
    const c = new pg.Client({ connectionString: testDatabaseUrl, options: `-c search_path=${schema}` });
    await c.connect();
    try {
      await c.query('set session_replication_role = replica');
      await c.query(statement, params);
    } finally {
      await c.end();
    }
  };

  /** waits until node b answers from its cache: its feed listens from its first lookup on */
  const bCaches = async () => {
    const d = await a.seedDevice();
    for (let n = 0; ; n++) {
      const before = (await b.http('GET', `/devices/${d.id}`, { token: d.key })).body.name;
      await silently('update devices set name = $1 where id = $2', [`probe ${n}`, d.id]);
      if ((await b.http('GET', `/devices/${d.id}`, { token: d.key })).body.name === before) return;
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  const warm = async (path: string, token: string) => {
    await bCaches();
    for (let i = 0; i < 2; i++) expect((await b.http('GET', path, { token })).status).toBe(200);
  };

  it('a key revoked through one node is refused by it at once and by the other node soon after', async () => {
    const k = (await a.http('POST', '/projects/1/apiKeys', { token: a.adminKey, body: { name: 'shared', scopes: ['devices'] } })).body;
    const path = `/devices/${a.device.id}`;
    await warm(path, k.key);
    expect((await a.http('GET', path, { token: k.key })).status).toBe(200);
    expect((await a.http('DELETE', `/projects/1/apiKeys/${k.id}`, { token: a.adminKey })).status).toBe(204);
    expect((await a.http('GET', path, { token: k.key })).status).toBe(401);
    await expect.poll(async () => (await b.http('GET', path, { token: k.key })).status, POLL).toBe(401);
  });

  it('a device changed through one node reads back changed on the other', async () => {
    const d = await a.seedDevice();
    const path = `/devices/${d.id}`;
    await warm(path, d.key);
    expect((await a.http('PATCH', path, { token: a.adminKey, body: { name: 'renamed on a' } })).status).toBe(204);
    expect((await a.http('GET', path, { token: d.key })).body.name).toBe('renamed on a');
    await expect.poll(async () => (await b.http('GET', path, { token: d.key })).body.name, POLL).toBe('renamed on a');
  });

  it("a session ended on one node is refused by the other, also after the other node's listener was cut off", async () => {
    const u = await a.seedUser();
    await warm('/userSession', u.token);
    // end every listening connection of this schema: what changes meanwhile must still be seen
    const admin = new pg.Client({ connectionString: testDatabaseUrl });
    await admin.connect();
    try {
      const ended = await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1', [`${LISTENER_NAME}${schema}`]);
      expect(ended.rowCount).toBeGreaterThan(0);
    } finally {
      await admin.end();
    }
    expect((await a.http('DELETE', '/userSession', { token: u.token })).status).toBe(204);
    await expect.poll(async () => (await b.http('GET', '/userSession', { token: u.token })).status, POLL).toBe(401);
  });
});
