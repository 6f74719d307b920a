// Fleet figures in cluster mode (docs/api.md#fleet-figures): events accepted on two brokers and
// two api nodes, deliveries sent by a worker and devices connected to both brokers are all in
// the figures either api node answers, exactly.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canRunCluster, CLUSTER_START_HOOK_MS, startCluster, type Cluster } from '../../helpers/cluster.js';
import { startReceiver } from '../webhooks/receiver.js';
import { connectDevice, createDevice, createEventModule, createHome, deliveriesOf, eventTopic } from './fixtures.js';

const sum = (perMinute: { count: number }[]) => perMinute.reduce((n, m) => n + m.count, 0);

async function historyTotal(c: Cluster, node: string): Promise<number> {
  const r = await c.http(node, 'GET', '/events?projectId=1&limit=1');
  return Number(r.headers.get('vnd.tinkermode.range')?.split('/')[1]);
}

describe.skipIf(!canRunCluster)('fleet figures across nodes', () => {
  let c: Cluster;

  beforeAll(async () => {
    c = await startCluster({
      nodes: [
        { name: 'api1', roles: ['api'] },
        { name: 'api2', roles: ['api'] },
        { name: 'A', roles: ['broker'] },
        { name: 'B', roles: ['broker'] },
        { name: 'w', roles: ['worker'] },
      ],
      env: { HEARTH_RATE_LIMIT_ENABLED: 'false', HEARTH_WEBHOOKS_RETRY_SCHEDULE_SECONDS: '3600' },
    });
  }, CLUSTER_START_HOOK_MS);
  afterAll(async () => {
    await c?.close();
  }, 60_000);

  it('counts events, delivery outcomes and connected devices of every node exactly', { timeout: 90_000 }, async () => {
    const rx = await startReceiver();
    rx.reply((r, res) => {
      res.statusCode = r.body.eventData?.answer ?? 200;
      res.end();
    });
    await createEventModule(c, 'api1', 'hooks', rx.url, ['hit']);
    const homeId = await createHome(c, 'api1');
    const devices = [];
    for (let i = 0; i < 4; i++) devices.push(await createDevice(c, i % 2 ? 'api2' : 'api1', homeId));

    // 3 of the 4 connected: two on broker A, one on B
    const onA = [await connectDevice(c.node('A'), devices[0]), await connectDevice(c.node('A'), devices[1])];
    const onB = await connectDevice(c.node('B'), devices[2]);
    await expect.poll(async () => (await c.http('api2', 'GET', '/projects/1/stats')).body.devices, { timeout: 20_000 }).toEqual({ total: 4, connected: 3 });

    // QoS 1: the PUBACK comes once the event is committed
    const publish = (client: (typeof onA)[0], deviceId: number, n: number, answer: number) =>
      Promise.all(
        Array.from({ length: n }, (_, i) =>
          client.publishAsync(eventTopic(deviceId), JSON.stringify({ eventType: 'hit', eventData: { i, answer } }), { qos: 1 }),
        ),
      );
    await publish(onA[0], devices[0].id, 12, 200);
    await publish(onA[1], devices[1].id, 5, 404);
    await publish(onB, devices[2].id, 9, 200);
    // and through both api nodes: 3 that will wait for a retry (a 500)
    for (const [node, answer] of [
      ['api1', 500],
      ['api2', 500],
      ['api1', 500],
      ['api2', 200],
    ] as const) {
      const r = await c.http(node, 'PUT', `/devices/${devices[3].id}/event`, { body: { eventType: 'hit', eventData: { answer } } });
      expect(r.status).toBe(204);
    }
    const hits = 12 + 5 + 9 + 4;

    // positive control: every delivery has its outcome (or waits for its retry) in the delivery log
    const histogram = async () => {
      const out: Record<string, number> = {};
      for (const d of await deliveriesOf(c, 'api1', 'hooks')) out[d.status] = (out[d.status] ?? 0) + 1;
      return out;
    };
    await expect.poll(histogram, { timeout: 30_000 }).toEqual({ success: 22, failed: 5, pending: 3 });
    // the 3 pending ones were tried once (a 500), not merely waiting for a first try
    await expect.poll(() => rx.received.filter((r) => r.body.eventData?.answer === 500).length, { timeout: 30_000 }).toBe(3);
    // the system events (3 connects) are in the history too: the figures count every event it holds
    await expect.poll(() => historyTotal(c, 'api1'), { timeout: 20_000 }).toBe(hits + 3);

    for (const node of ['api1', 'api2']) {
      const r = await c.http(node, 'GET', '/projects/1/stats');
      expect(r.status).toBe(200);
      expect(r.body.devices).toEqual({ total: 4, connected: 3 });
      expect(sum(r.body.events.perMinute)).toBe(hits + 3);
      expect(r.body.deliveries).toMatchObject({ succeeded: 22, failed: 5, retrying: 3 });
      expect(r.body.deliveries.oldestPendingSeconds).toBeGreaterThanOrEqual(0);
    }
  });
});
