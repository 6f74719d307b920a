// Two brokers on one PostgreSQL schema and one Redis prefix act as one broker: Aedes's emitter and
// persistence are shared through Redis (src/adapters/redis/aedes.ts). In-process nodes here; the
// multi-process tests kill real ones.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHearth, type TestHearth } from '../../helpers/hearth.js';
import { dropSchema, freshSchemaName, testDatabaseUrl } from '../../helpers/db.js';
import { REDIS_URL, deleteKeys, redisFixture, testPrefix } from '../../helpers/redis.js';
import { inbox, mqttConnect, wsConnect } from '../broker/clients.js';
import type { MqttClient } from 'mqtt';
import { startReceiver, waitFor } from '../webhooks/receiver.js';
import { MIN_WAIT_MS } from '../../helpers/wait.js';

const SECRET = 'cluster-secret-cluster-secret-cluster';

const closed = (c: MqttClient) => new Promise<void>((r) => (c.disconnected ? r() : c.once('close', () => r())));

describe.skipIf(!testDatabaseUrl || !REDIS_URL)('two brokers as one', () => {
  const schema = freshSchemaName();
  const prefix = testPrefix();
  let a: TestHearth;
  let b: TestHearth;

  beforeAll(async () => {
    const cluster = { databaseUrl: testDatabaseUrl!, databaseSchema: schema, redisUrl: REDIS_URL!, redisPrefix: prefix, secret: SECRET };
    a = await startTestHearth({ ...cluster, webhooks: { allowPrivateTargets: true } });
    b = await startTestHearth({ ...cluster, roles: ['broker', 'api'] });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await dropSchema(testDatabaseUrl!, schema);
    const r = await redisFixture();
    await deleteKeys(r.client, prefix);
    await r.cleanup();
  });

  it('a client id connecting to the other broker closes the older connection, and only the newer gets commands', async () => {
    const d = await a.seedDevice();
    const topic = `/devices/${d.id}/command`;
    const older = await mqttConnect(a, d, { clientId: 'same' });
    const olderBox = inbox(older);
    await older.subscribeAsync(topic, { qos: 1 });
    const olderClosed = closed(older);

    const newer = await mqttConnect(b, d, { clientId: 'same' });
    const newerBox = inbox(newer);
    await newer.subscribeAsync(topic, { qos: 1 });
    await olderClosed; // [MQTT-3.1.4-2], across brokers
    expect(older.connected).toBe(false);

    expect((await a.http('PUT', topic, { token: a.adminKey, body: { action: 'once', parameters: {} } })).status).toBe(204);
    expect(await newerBox.next(topic)).toEqual({ action: 'once', parameters: {} });
    // the older connection was closed before the command was sent: nothing can reach it later
    expect(olderBox.messages).toEqual([]);
    // the device is still connected: the newer connection holds its presence
    expect((await a.http('GET', `/devices/${d.id}`, { token: a.adminKey })).body.isConnected).toBe(true);
  });

  it('different client ids of one device stay connected on both brokers, and each gets the command', async () => {
    const d = await a.seedDevice();
    const topic = `/devices/${d.id}/command`;
    const one = await mqttConnect(a, d, { clientId: 'one' });
    const two = await mqttConnect(b, d, { clientId: 'two' });
    const boxes = [inbox(one), inbox(two)];
    await one.subscribeAsync(topic, { qos: 1 });
    await two.subscribeAsync(topic, { qos: 1 });
    await a.http('PUT', topic, { token: a.adminKey, body: { action: 'both', parameters: {} } });
    for (const box of boxes) expect(await box.next(topic)).toMatchObject({ action: 'both' });
    expect(one.connected && two.connected).toBe(true);
  });

  it('a persistent session made on one broker resumes on the other, subscriptions included', async () => {
    const d = await a.seedDevice();
    const topic = `/devices/${d.id}/command`;
    const first = await mqttConnect(a, d, { clientId: 'roams', clean: false });
    await first.subscribeAsync(topic, { qos: 1 });
    await first.endAsync();

    const again = await mqttConnect(b, d, { clientId: 'roams', clean: false });
    const box = inbox(again);
    // the session, with its subscription, came from Redis: no SUBSCRIBE on this broker
    await expect
      .poll(async () => (await b.http('PUT', topic, { token: a.adminKey, body: { action: 'roamed', parameters: {} } })).status, { timeout: MIN_WAIT_MS })
      .toBe(204);
    expect(await box.next(topic)).toMatchObject({ action: 'roamed' });
  });

  it('an event published on one broker reaches an event stream on the other; brokers without a stream do not hear events', async () => {
    const r = await redisFixture();
    const listeners = async () => Number(((await r.client.call('PUBSUB', 'NUMSUB', `${prefix}bus:event`)) as [string, number])[1]);
    try {
      expect(await listeners()).toBe(0);
      const k = await a.seedProjectKey(['events']);
      const stream = await wsConnect(b, '/userSession/websocket?eventTypes=ping', { token: k.key });
      expect(await listeners()).toBe(1);
      const d = await a.seedDevice();
      const device = await mqttConnect(a, d);
      await device.publishAsync(`/devices/${d.id}/event`, JSON.stringify({ eventType: 'ping', eventData: { n: 1 } }), { qos: 1 });
      expect(await stream.next(5000)).toMatchObject({ eventType: 'ping', eventData: { n: 1 }, originDeviceId: d.id });
      stream.ws.close();
      await stream.closed;
      await expect.poll(listeners, { timeout: MIN_WAIT_MS }).toBe(0);
    } finally {
      await r.cleanup();
    }
  });

  it('a module created through one node gets the events accepted on another right after', async () => {
    const receiver = await startReceiver();
    const homeId = await a.seedHome();
    const d = await a.seedDevice({ homeId });
    const device = await mqttConnect(b, d);
    const event = (eventType: string) => device.publishAsync(`/devices/${d.id}/event`, JSON.stringify({ eventType, eventData: {} }), { qos: 1 });
    // b has the project's modules (none) cached now
    await event('before');
    const heard = new Promise<void>((r) => {
      const off = b.deps.bus.subscribe('modules', () => (off(), r()));
    });
    const created = await a.http('POST', '/projects/1/smartModules', {
      token: a.adminKey,
      body: { id: 'follows', moduleType: 'webhooks', eventWebhook: { url: receiver.url, subscriptions: 'after' } },
    });
    expect(created.status).toBe(201);
    // b's cache was dropped by the change message before this test's handler ran
    await heard;
    await event('after');
    await waitFor(() => receiver.received.some((r) => r.body?.eventType === 'after'), 10_000, 'the event webhook');
  });

  it("the same device ids in another cluster on the same Redis are none of this cluster's business", async () => {
    const otherSchema = freshSchemaName();
    const otherPrefix = testPrefix();
    const other = await startTestHearth({
      databaseUrl: testDatabaseUrl!,
      databaseSchema: otherSchema,
      redisUrl: REDIS_URL!,
      redisPrefix: otherPrefix,
      secret: SECRET,
    });
    try {
      const d = await a.seedDevice();
      // device ids are per database: seed the other cluster until it has a device with the same id
      let twin = await other.seedDevice();
      while (twin.id < d.id) twin = await other.seedDevice();
      expect(twin.id).toBe(d.id);
      const mine = await mqttConnect(a, d, { clientId: 'shared-id' });
      const theirs = await mqttConnect(other, twin, { clientId: 'shared-id' });
      // positive control: a takeover inside this cluster, started after `theirs` connected, is
      // what closes `mine`; a takeover by the other cluster would have closed it before
      const mineClosed = closed(mine);
      expect(mine.connected).toBe(true);
      const again = await mqttConnect(a, d, { clientId: 'shared-id' });
      await mineClosed;
      expect(again.connected).toBe(true);
      expect(theirs.connected).toBe(true);
    } finally {
      await other.close();
      await dropSchema(testDatabaseUrl!, otherSchema);
      const r = await redisFixture();
      await deleteKeys(r.client, otherPrefix);
      await r.cleanup();
    }
  });
});
