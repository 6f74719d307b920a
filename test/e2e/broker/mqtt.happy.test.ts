// MQTT for a well-behaved device (docs/devices.md#mqtt): TCP and WebSocket, MQTT 3.1.1 and 3.1, empty client
// ids, keep-alive 0, granted QoS, commands and events end to end.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHearth, type TestHearth } from '../../helpers/hearth.js';
import { WebSocket } from 'ws';
import { eventually, inbox, mqttConnect, wsConnect } from './clients.js';

let t: TestHearth;
beforeAll(async () => {
  t = await startTestHearth();
});
afterAll(() => t?.close());

const commandTopic = (id: number) => `/devices/${id}/command`;

describe('MQTT connect', () => {
  it('accepts a device over TCP with MQTT 3.1.1 and its key as password', async () => {
    const c = await mqttConnect(t, t.device, { protocolVersion: 4 });
    expect(c.connected).toBe(true);
  });

  it("keeps the device's address with its session, not Node's cached copy on the socket (memory per device)", async () => {
    const d = await t.seedDevice();
    const c = await mqttConnect(t, d, { clientId: 'peer-kept' });
    expect(c.connected).toBe(true);
    type Conn = { _peername?: unknown; remoteAddress?: string };
    const clients = (t.hearth.broker!.aedes as unknown as { clients: Record<string, { conn: Conn; hearth?: { ip?: string } }> }).clients;
    const server = clients[`${d.id}/peer-kept`];
    // the session has the address it signed in from
    expect(server?.hearth?.ip).toBe('127.0.0.1');
    // the socket no longer holds the copy Node cached when the gate and the CONNECT read it...
    expect(server?.conn._peername).toBeUndefined();
    // ...and reading it again still answers, from the kernel
    expect(server?.conn.remoteAddress).toBe('127.0.0.1');
  });

  it('accepts MQTT 3.1 (MQIsdp)', async () => {
    const c = await mqttConnect(t, t.device, { protocolVersion: 3, protocolId: 'MQIsdp', clientId: 'v31-client' });
    expect(c.connected).toBe(true);
  });

  it('accepts an empty client id and keep-alive 0', async () => {
    const c = await mqttConnect(t, t.device, { clientId: '', keepalive: 0, clean: true });
    expect(c.connected).toBe(true);
    const granted = await c.subscribeAsync(commandTopic(t.device.id), { qos: 0 });
    expect(granted[0].qos).toBe(0);
  });

  for (const [path, protocols] of [
    ['/mqtt', 'with the mqtt subprotocol'],
    ['/', 'at /'],
  ] as const) {
    it(`accepts MQTT over WebSocket ${protocols}`, async () => {
      const c = await mqttConnect(t, t.device, { ws: true, path });
      const granted = await c.subscribeAsync(commandTopic(t.device.id), { qos: 1 });
      expect(granted[0].qos).toBe(1);
    });
  }

  it('accepts MQTT over WebSocket without any subprotocol', async () => {
    const c = await mqttConnect(t, t.device, {
      ws: true,
      path: '/mqtt',
      // MQTT.js offers `mqtt`; a client that offers no subprotocol at all must be served too
      createWebsocket: (url: string) => new WebSocket(url),
    } as never);
    expect(c.connected).toBe(true);
  });
});

describe('MQTT subscriptions', () => {
  it('grants QoS min(asked, 1) on the device topics', async () => {
    const c = await mqttConnect(t, t.device);
    const granted = await c.subscribeAsync({
      [commandTopic(t.device.id)]: { qos: 2 },
      [`/devices/${t.device.id}/kv`]: { qos: 1 },
      [`/devices/${t.device.id}/bulkData/+/response`]: { qos: 0 },
    });
    const byTopic = Object.fromEntries(granted.map((g) => [g.topic, g.qos]));
    expect(byTopic).toEqual({ [commandTopic(t.device.id)]: 1, [`/devices/${t.device.id}/kv`]: 1, [`/devices/${t.device.id}/bulkData/+/response`]: 0 });
  });
});

describe('commands over MQTT', () => {
  it('PUT /devices/{id}/command reaches the device as {action, parameters}', async () => {
    const c = await mqttConnect(t, t.device);
    await c.subscribeAsync(commandTopic(t.device.id), { qos: 1 });
    const box = inbox(c);
    const res = await t.http('PUT', `/devices/${t.device.id}/command`, { token: t.adminKey, body: { action: 'turn-on', parameters: { level: 3 } } });
    expect(res.status).toBe(204);
    expect(await box.next(commandTopic(t.device.id))).toEqual({ action: 'turn-on', parameters: { level: 3 } });
  });

  it('reaches every live connection of the device (TCP, WebSocket MQTT, command WebSocket)', async () => {
    const d = await t.seedDevice();
    const tcp = await mqttConnect(t, d);
    const overWs = await mqttConnect(t, d, { ws: true });
    await tcp.subscribeAsync(commandTopic(d.id), { qos: 1 });
    await overWs.subscribeAsync(commandTopic(d.id), { qos: 0 });
    const a = inbox(tcp);
    const b = inbox(overWs);
    const cmdWs = await wsConnect(t, `/devices/${d.id}/command`, { token: d.key });
    const res = await t.http('PUT', `/devices/${d.id}/command`, { token: t.adminKey, body: { action: 'blink' } });
    expect(res.status).toBe(204);
    expect(await a.next()).toEqual({ action: 'blink', parameters: {} });
    expect(await b.next()).toEqual({ action: 'blink', parameters: {} });
    expect(await cmdWs.next()).toEqual({ action: 'blink', parameters: {} });
  });
});

describe('events over MQTT', () => {
  it('a QoS 1 event is in the events history once PUBACKed, with the origin fields', async () => {
    const c = await mqttConnect(t, t.device);
    await c.publishAsync(`/devices/${t.device.id}/event`, JSON.stringify({ eventType: 'doorOpened', eventData: { door: 'front' } }), { qos: 1 });
    // PUBACK came after the commit: the row is there without waiting
    const rows = await t.deps.store.events.list({ projectId: 1, eventType: 'doorOpened' }, { skip: 0, limit: 10 });
    expect(rows.items).toHaveLength(1);
    expect(rows.items[0].event).toMatchObject({
      eventType: 'doorOpened',
      eventData: { door: 'front' },
      originDeviceId: t.device.id,
      originDeviceClass: 'default',
      originDeviceIp: '127.0.0.1',
    });
    expect(rows.items[0].event.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('an event carries the homeId of the device, followed within a second of a change of home', async () => {
    const d = await t.seedDevice();
    const c = await mqttConnect(t, d);
    // the device joins a home after it connected
    const homeId = await t.seedHome();
    await t.deps.store.devices.update(d.id, { homeId });
    await new Promise((r) => setTimeout(r, 1100));
    await c.publishAsync(`/devices/${d.id}/event`, JSON.stringify({ eventType: 'afterJoin', eventData: {} }), { qos: 1 });
    const rows = await t.deps.store.events.list({ projectId: 1, eventType: 'afterJoin' }, { skip: 0, limit: 10 });
    expect(rows.items[0].event.homeId).toBe(homeId);
  });

  it('QoS 0 events arrive too', async () => {
    const c = await mqttConnect(t, t.device);
    c.publish(`/devices/${t.device.id}/event`, JSON.stringify({ eventType: 'qosZero', eventData: { n: 1 } }), { qos: 0 });
    await eventually(async () => (await t.deps.store.events.list({ projectId: 1, eventType: 'qosZero' }, { skip: 0, limit: 1 })).total === 1);
  });
});
