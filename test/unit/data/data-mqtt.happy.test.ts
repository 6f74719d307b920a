// MQTT `/devices/{id}/data` (docs/devices.md#mqtt, docs/concepts.md#data-sources) reaches the same verb as the HTTP post: a real
// in-process Hearth and an MQTT.js device. A refusal, which MQTT cannot answer, goes to the
// general log.
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import mqtt from 'mqtt';
import { startTestHearth, type TestHearth } from '../../helpers/hearth.js';
import { noteDataDelivery } from '../../../src/domain/data/index.js';
import { eventually } from '../../helpers/wait.js';

let t: TestHearth;
beforeAll(async () => {
  t = await startTestHearth({ webhooks: { allowPrivateTargets: true } });
});
afterAll(() => t?.close());

describe('data posts over MQTT', () => {
  it('records published by a device are routed like an HTTP post; refusals are logged', async () => {
    await t.http('POST', '/projects/1/dataSources', { token: t.adminKey, body: { id: 'mqtt-store', name: 's', type: 'store' } });
    await t.http('POST', '/projects/1/dataSources', { token: t.adminKey, body: { id: 'mqtt-hook', name: 'h', type: 'webhook', url: 'http://127.0.0.1:9/x' } });
    await noteDataDelivery({ deps: t.deps, input: { projectId: 1, sourceId: 'mqtt-hook', ok: false, error: 'ECONNREFUSED' } });
    const d = await t.seedDevice();
    const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${t.mqttPort}`, { username: String(d.id), password: d.key, reconnectPeriod: 0 });
    onTestFinished(() => client.endAsync(true));
    await client.publishAsync(`/devices/${d.id}/data`, JSON.stringify({ data: [{ t: 1 }, { t: 2 }] }), { qos: 1 });
    const records = await t.http('GET', `/projects/1/dataSources/mqtt-store/records?deviceId=${d.id}`, { token: t.adminKey });
    expect(records.body.map((r: { data: { t: number } }) => r.data.t).sort()).toEqual([1, 2]);
    await eventually(async () => {
      const logs = await t.deps.store.logs.list({ projectId: 1, source: 'broker' }, { skip: 0, limit: 50 });
      return logs.items.some((l) => l.text.includes('refused by data sources: mqtt-hook (WEBHOOK_FAILING: ECONNREFUSED)'));
    });
    // an invalid payload is dropped and logged, the connection stays
    await client.publishAsync(`/devices/${d.id}/data`, JSON.stringify({ data: [] }), { qos: 1 });
    await client.publishAsync(`/devices/${d.id}/data`, JSON.stringify({ data: [{ t: 3 }] }), { qos: 1 });
    expect((await t.http('GET', `/projects/1/dataSources/mqtt-store/records?deviceId=${d.id}`, { token: t.adminKey })).body).toHaveLength(3);
  });
});
