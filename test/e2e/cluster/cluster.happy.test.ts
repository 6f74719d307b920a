// Cluster mode end to end (issue #6): five real Hearth processes on loopback — an api node, two
// brokers (A, B), two workers — on one PostgreSQL schema and one Redis prefix of this file's own.
// A device on broker B gets commands and KV changes sent through the api node, its events reach
// a webhook once per delivery id, a client id that connects to both brokers keeps only its newer
// connection, and a report schedule fires once per tick across the two workers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canRunCluster, CLUSTER_START_HOOK_MS, startCluster, type Cluster } from '../../helpers/cluster.js';
import { createSqlStore } from '../../../src/adapters/sql/store.js';
import { inbox } from '../broker/clients.js';
import { startReceiver } from '../webhooks/receiver.js';
import { commandTopic, connectDevice, createDevice, createEventModule, createHome, deliveriesOf, eventTopic, isConnected, kvTopic } from './fixtures.js';

describe.skipIf(!canRunCluster)('a cluster of two brokers, an api node and two workers', () => {
  let c: Cluster;
  let homeId: number;

  beforeAll(async () => {
    c = await startCluster({
      nodes: [
        { name: 'api', roles: ['api'] },
        { name: 'A', roles: ['broker'] },
        { name: 'B', roles: ['broker'] },
        { name: 'w1', roles: ['worker'] },
        { name: 'w2', roles: ['worker'] },
      ],
      env: { HEARTH_WEBHOOKS_POLL_MS: '200', HEARTH_REPORTS_TICK_MS: '50', HEARTH_REPORTS_POLL_MS: '100' },
    });
    homeId = await createHome(c, 'api');
  }, CLUSTER_START_HOOK_MS);
  afterAll(async () => {
    await c?.close();
  }, 60_000);

  it(
    'a device on broker B gets commands and KV changes sent through the api node, and its events reach the webhook once per delivery id',
    { timeout: 60_000 },
    async () => {
      const device = await createDevice(c, 'api', homeId);
      const rx = await startReceiver();
      rx.trust(await createEventModule(c, 'api', 'cluster-events', rx.url, ['clusterTest']));

      const client = await connectDevice(c.node('B'), device);
      const box = inbox(client);
      await client.subscribeAsync({ [commandTopic(device.id)]: { qos: 1 }, [kvTopic(device.id)]: { qos: 1 } });
      expect(await box.next(kvTopic(device.id), 10_000)).toMatchObject({ action: 'reload', numItems: 0 });
      await expect.poll(() => isConnected(c, 'api', device.id), { timeout: 10_000 }).toBe(true);

      const sent = await c.http('api', 'PUT', `/devices/${device.id}/command`, { body: { action: 'light-on', parameters: { level: 80 } } });
      expect(sent.status).toBe(204);
      expect(await box.next(commandTopic(device.id), 10_000)).toEqual({ action: 'light-on', parameters: { level: 80 } });

      expect((await c.http('api', 'PUT', `/devices/${device.id}/kv/color`, { body: { value: 'red' } })).status).toBe(204);
      expect(await box.next(kvTopic(device.id), 10_000)).toEqual({ action: 'set', rev: 1, key: 'color', value: 'red' });

      // events published on broker B, each acknowledged (QoS 1 PUBACK) once it is committed
      const N = 40;
      for (let n = 0; n < N; n++) await client.publishAsync(eventTopic(device.id), JSON.stringify({ eventType: 'clusterTest', eventData: { n } }), { qos: 1 });

      await expect
        .poll(async () => (await deliveriesOf(c, 'api', 'cluster-events')).filter((d) => d.status === 'success').length, { timeout: 30_000, interval: 200 })
        .toBe(N);
      const log = await deliveriesOf(c, 'api', 'cluster-events');
      expect(log).toHaveLength(N);
      // settled: every delivery id of the log arrived, none twice, each request signed
      const ids = rx.received.map((r) => String(r.headers['x-service-delivery']));
      expect(new Set(ids).size).toBe(ids.length);
      expect(new Set(ids)).toEqual(new Set(log.map((d) => d.id)));
      expect(rx.received.map((r) => r.body.eventData.n).sort((a, b) => a - b)).toEqual([...Array(N).keys()]);
      expect(rx.received.every((r) => r.verified && r.body.originDeviceId === device.id)).toBe(true);
    },
  );

  // MQTT-3.1.4-2 across nodes: needs Aedes to share sessions through Redis (mqemitter-redis and
  // aedes-persistence-redis), so that broker B hears of the client id connecting to broker A
  it('a client id that connects to broker A while connected to broker B keeps only the newer connection', { timeout: 60_000 }, async () => {
    const device = await createDevice(c, 'api', homeId);
    const older = await connectDevice(c.node('B'), device, { clientId: 'lamp-1' });
    const olderBox = inbox(older);
    await older.subscribeAsync({ [commandTopic(device.id)]: { qos: 1 } });
    let olderClosed = false;
    older.on('close', () => (olderClosed = true));

    const newer = await connectDevice(c.node('A'), device, { clientId: 'lamp-1' });
    const newerBox = inbox(newer);
    await newer.subscribeAsync({ [commandTopic(device.id)]: { qos: 1 } });
    await expect.poll(() => olderClosed, { timeout: 15_000 }).toBe(true);
    // the older connection's end must not take the device offline: the newer one lives
    expect(await isConnected(c, 'api', device.id)).toBe(true);

    expect((await c.http('api', 'PUT', `/devices/${device.id}/command`, { body: { action: 'only-newer' } })).status).toBe(204);
    expect(await newerBox.next(commandTopic(device.id), 10_000)).toEqual({ action: 'only-newer', parameters: {} });
    expect(olderBox.messages).toEqual([]);
    expect(newer.connected).toBe(true);
  });

  it('a due report schedule fires once per tick across the two workers', { timeout: 60_000 }, async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      // a yearly schedule: the only ticks are the ones this test makes due; a windowed kind, so
      // each run names its tick (`until` = the due time)
      const r = await c.http('api', 'POST', '/scheduledReports', {
        body: { name: `tick ${i}`, kind: 'connectivity', window: '1h', format: 'json', schedule: { cron: '0 0 1 1 *' } },
      });
      expect(r.status).toBe(201);
      ids.push(r.body.id);
    }
    // the due time is set straight in the shared database (a schedule cannot fire sooner than a minute)
    const store = await createSqlStore({ url: c.databaseUrl, schema: c.schema });
    const runsOf = async (id: string) =>
      (await c.http('api', 'GET', `/scheduledReports/${id}/runs`)).body as { trigger: string; status: string; until: string }[];
    const dues: string[] = [];
    try {
      for (let round = 1; round <= 3; round++) {
        const due = new Date(Date.now() - 1000).toISOString();
        dues.push(due);
        for (const id of ids) await store.reports.update(id, { nextRunTime: due, modificationTime: due });
        for (const id of ids) {
          await expect
            .poll(async () => (await runsOf(id)).filter((r) => r.status === 'success').length, { timeout: 20_000, interval: 100 })
            .toBeGreaterThanOrEqual(round);
        }
      }
      // positive control instead of a fixed sleep: fresh reports made due now, one after the
      // other, fire too, so the workers have ticked (and a late second firing of the rounds above
      // would have been written) by the time the runs are read
      for (let i = 0; i < 3; i++) {
        const control = await c.http('api', 'POST', '/scheduledReports', {
          body: { name: `control ${i}`, kind: 'connectivity', window: '1h', format: 'json', schedule: { cron: '0 0 1 1 *' } },
        });
        expect(control.status).toBe(201);
        const due = new Date(Date.now() - 1000).toISOString();
        await store.reports.update(control.body.id, { nextRunTime: due, modificationTime: due });
        await expect.poll(async () => (await runsOf(control.body.id)).filter((r) => r.status === 'success').length, { timeout: 20_000, interval: 100 }).toBe(1);
      }
    } finally {
      await store.close();
    }
    for (const id of ids) {
      const runs = await runsOf(id);
      expect(runs.map((r) => r.until).sort()).toEqual(dues);
      expect(runs.every((r) => r.trigger === 'schedule' && r.status === 'success')).toBe(true);
    }
  });

  it('nodes without the api role serve health, readiness and metrics only; workers show their queue on /metrics', { timeout: 60_000 }, async () => {
    for (const name of ['A', 'w1']) {
      expect((await c.http(name, 'GET', '/healthz')).status).toBe(200);
      expect((await c.http(name, 'GET', '/readyz')).status).toBe(200);
      const api = await c.http(name, 'GET', '/devices');
      expect(api.status).toBe(404);
      expect(api.body).toMatchObject({ reason: 'NOT_FOUND', data: { message: expect.stringMatching(/api node/) } });
    }
    const metrics = await fetch(`${c.node('w1').url}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toMatch(/hearth_webhook/);
    expect((await c.http('api', 'GET', '/devices')).status).toBe(200);
  });
});
