// Redis restarted under load (issue #6): a cluster (api, broker, worker) on a redis-server of this
// file's own, a device publishing events over MQTT (QoS 1) and a client sending events over HTTP
// without pause; Redis stops for a couple of seconds and starts again, empty (no persistence, as a
// cache is often run). Without any restart of ours the service recovers: /readyz is green again,
// every event that was accepted (PUBACK, 204) is in the store and reached the webhook, new
// commands reach devices — the one that stayed connected through the restart and one that
// connects afterwards — and the device that stayed goes offline when it leaves.
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import mqtt, { type MqttClient } from 'mqtt';
import { canRunCluster, CLUSTER_START_HOOK_MS, startCluster, type Cluster } from '../../helpers/cluster.js';
import { startOwnRedis, type OwnRedis } from '../../helpers/redis-server.js';
import { inbox, type Inbox } from '../broker/clients.js';
import { startReceiver } from '../webhooks/receiver.js';
import { commandTopic, connectDevice, createDevice, createEventModule, createHome, eventTopic, isConnected, type Device } from './fixtures.js';

const hasRedisServer = spawnSync('redis-server', ['--version']).status === 0;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!canRunCluster || !hasRedisServer)('a cluster whose Redis restarts under load', () => {
  let redis: OwnRedis;
  let c: Cluster;
  let homeId: number;
  // connected before the restart and kept through it (across the tests of this file)
  let device: Device;
  let client: MqttClient | undefined;
  let box: Inbox;
  let restarted = false;

  beforeAll(async () => {
    redis = await startOwnRedis();
    c = await startCluster({
      redisUrl: redis.url,
      nodes: [
        { name: 'api', roles: ['api'] },
        { name: 'B', roles: ['broker'] },
        { name: 'w', roles: ['worker'] },
      ],
      env: {
        HEARTH_WEBHOOKS_POLL_MS: '200',
        HEARTH_WEBHOOKS_RETRY_SCHEDULE_SECONDS: '1,1,1,1,1,1,1,1,1,1',
        HEARTH_RATE_LIMIT_ENABLED: 'false',
        // the device publishes faster than the default per-device limit, whose excess is dropped
        HEARTH_MQTT_RATE_LIMIT_PUBLISHES_PER_SECOND: '1000',
        HEARTH_MQTT_RATE_LIMIT_BURST: '1000',
      },
    });
    homeId = await createHome(c, 'api');
    device = await createDevice(c, 'api', homeId);
    // mqtt.js reconnects (and resends what was not acknowledged) if the broker drops it
    client = await mqtt.connectAsync(`mqtt://127.0.0.1:${c.node('B').mqttPort}`, {
      username: String(device.id),
      password: device.apiKey,
      reconnectPeriod: 500,
      connectTimeout: 5000,
    });
    box = inbox(client);
    await client.subscribeAsync({ [commandTopic(device.id)]: { qos: 1 } });
  }, CLUSTER_START_HOOK_MS);
  afterAll(async () => {
    await client?.endAsync(true).catch(() => undefined);
    await c?.close();
    await redis?.stop();
  }, 60_000);

  it('is ready again by itself, and every event accepted around the restart is stored and reached the webhook', { timeout: 90_000 }, async () => {
    const rx = await startReceiver();
    rx.trust(await createEventModule(c, 'api', 'load-hook', rx.url, ['loadTest']));
    await expect.poll(() => isConnected(c, 'api', device.id), { timeout: 10_000 }).toBe(true);
    // broker B learns of a module made on the api node within its module cache's lifetime
    // (src/domain/webhook/event-targets.ts, TARGETS_TTL_MS): the load starts once a probe from B arrives
    await expect
      .poll(
        async () => {
          await client!.publishAsync(eventTopic(device.id), JSON.stringify({ eventType: 'loadTest', eventData: { tag: 'probe' } }), { qos: 1 });
          return rx.received.some((r) => r.body.eventData.tag === 'probe');
        },
        { timeout: 15_000, interval: 300 },
      )
      .toBe(true);

    const accepted = new Set<string>();
    let sending = true;
    const mqttSender = async () => {
      for (let n = 0; sending; n++) {
        const tag = `mqtt-${n}`;
        // QoS 1: the PUBACK comes once the event is committed
        await client!.publishAsync(eventTopic(device.id), JSON.stringify({ eventType: 'loadTest', eventData: { tag } }), { qos: 1 }).then(
          () => accepted.add(tag),
          () => undefined,
        );
        await sleep(20);
      }
    };
    const httpSender = async () => {
      for (let n = 0; sending; n++) {
        const tag = `http-${n}`;
        const r = await c.http('api', 'PUT', `/devices/${device.id}/event`, { body: { eventType: 'loadTest', eventData: { tag } } }).catch(() => undefined);
        if (r?.status === 204) accepted.add(tag);
        await sleep(20);
      }
    };
    const senders = Promise.all([mqttSender(), httpSender()]);

    await expect.poll(() => rx.received.length, { timeout: 15_000 }).toBeGreaterThan(10);
    await redis.stop();
    await expect.poll(async () => (await fetch(`${c.node('api').url}/readyz`)).status, { timeout: 10_000 }).toBe(503);
    await sleep(2000);
    await redis.start();
    restarted = true;
    const acceptedBeforeRestart = accepted.size;

    // ready again, on every node with an HTTP port, with nothing restarted but Redis
    for (const name of ['api', 'B'])
      await expect.poll(async () => (await fetch(`${c.node(name).url}/readyz`)).status, { timeout: 20_000, interval: 200 }).toBe(200);
    // the load goes on a little after the restart, over both paths, then stops
    await expect.poll(() => accepted.size, { timeout: 20_000 }).toBeGreaterThan(acceptedBeforeRestart + 20);
    sending = false;
    await senders;
    expect([...accepted].filter((t) => t.startsWith('mqtt-')).length).toBeGreaterThan(10);
    expect([...accepted].filter((t) => t.startsWith('http-')).length).toBeGreaterThan(10);

    const stored = await c.http('api', 'GET', `/events?projectId=1&eventType=loadTest&limit=10000`);
    expect(stored.status).toBe(200);
    const storedTags = new Set((stored.body as { eventData: { tag: string } }[]).map((e) => e.eventData.tag));
    expect([...accepted].filter((t) => !storedTags.has(t))).toEqual([]);
    await expect
      .poll(
        () => {
          const got = new Set(rx.received.map((r) => r.body.eventData.tag));
          return [...accepted].filter((t) => !got.has(t));
        },
        { timeout: 30_000, interval: 200 },
      )
      .toEqual([]);
    expect(rx.received.every((r) => r.verified)).toBe(true);
  });

  it('a device that stayed connected through the restart gets new commands', { timeout: 60_000 }, async () => {
    expect(restarted, 'Redis was restarted by the test before').toBe(true);
    expect(client!.connected).toBe(true);
    await expect
      .poll(async () => (await c.http('api', 'PUT', `/devices/${device.id}/command`, { body: { action: 'after-restart' } })).status, {
        timeout: 20_000,
        interval: 500,
      })
      .toBe(204);
    expect(await box.next(commandTopic(device.id), 10_000)).toEqual({ action: 'after-restart', parameters: {} });
  });

  it('a device that stayed connected through the restart is offline once it disconnects', { timeout: 60_000 }, async () => {
    expect(restarted, 'Redis was restarted by the test before').toBe(true);
    expect(await isConnected(c, 'api', device.id)).toBe(true);
    await client!.endAsync();
    await expect.poll(() => isConnected(c, 'api', device.id), { timeout: 20_000, interval: 200 }).toBe(false);
  });

  it('a device that connects after the restart gets new commands', { timeout: 60_000 }, async () => {
    expect(restarted, 'Redis was restarted by the test before').toBe(true);
    const late = await createDevice(c, 'api', homeId);
    const lateClient = await connectDevice(c.node('B'), late);
    const lateBox = inbox(lateClient);
    await lateClient.subscribeAsync({ [commandTopic(late.id)]: { qos: 1 } });
    await expect.poll(() => isConnected(c, 'api', late.id), { timeout: 10_000 }).toBe(true);
    expect((await c.http('api', 'PUT', `/devices/${late.id}/command`, { body: { action: 'hello' } })).status).toBe(204);
    expect(await lateBox.next(commandTopic(late.id), 10_000)).toEqual({ action: 'hello', parameters: {} });
  });
});
