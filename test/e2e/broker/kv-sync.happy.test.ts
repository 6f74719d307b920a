// Key-value live sync (docs/devices.md#kv-sync): `reload` on subscribe and on request, `set` / `delete` with a
// growing `rev` to every live subscriber after a change from any side (REST, MQTT, WebSocket),
// device changes stored and echoed, and the KV system events.
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { Socket } from 'node:net';
import { startTestHearth, type SeededDevice, type TestHearth } from '../../helpers/hearth.js';
import { eventually, inbox, mqttConnect, wsConnect } from './clients.js';
import { connackOf, connectPacket, packetsOf, rawMqtt, subscribePacket } from './raw-mqtt.js';

let t: TestHearth;
beforeAll(async () => {
  t = await startTestHearth();
});
afterAll(() => t?.close());

const kv = (d: SeededDevice) => `/devices/${d.id}/kv`;

async function subscribedDevice(d: SeededDevice, opts: { ws?: boolean } = {}) {
  const c = await mqttConnect(t, d, opts);
  const box = inbox(c);
  await c.subscribeAsync(kv(d), { qos: 1 });
  return { c, box };
}

describe('reload', () => {
  it('arrives right after the device subscribes, with the whole store and its rev', async () => {
    const d = await t.seedDevice();
    expect((await t.http('PUT', `${kv(d)}/color`, { token: t.adminKey, body: { value: 'red' } })).status).toBe(204);
    expect((await t.http('PUT', `${kv(d)}/level`, { token: t.adminKey, body: { value: 7 } })).status).toBe(204);
    const { box } = await subscribedDevice(d);
    const reload = await box.next(kv(d));
    expect(reload).toMatchObject({ action: 'reload', rev: 2, numItems: 2 });
    expect(Object.fromEntries(reload.items.map((i: any) => [i.key, i.value]))).toEqual({ color: 'red', level: 7 });
    expect(reload.items[0].modificationTime).toMatch(/Z$/);
  });

  it('goes only to the connection that subscribed or asked', async () => {
    const d = await t.seedDevice();
    const a = await subscribedDevice(d);
    await a.box.next(kv(d));
    const b = await subscribedDevice(d);
    await b.box.next(kv(d));
    // a change both receive, made after b's reload: a's next message is that change, so no
    // second reload came to a before it
    await t.http('PUT', `${kv(d)}/one`, { token: t.adminKey, body: { value: 1 } });
    expect(await a.box.next(kv(d))).toEqual({ action: 'set', rev: 1, key: 'one', value: 1 });
    expect(a.box.messages).toEqual([]);
    expect(await b.box.next(kv(d))).toEqual({ action: 'set', rev: 1, key: 'one', value: 1 });
    await b.c.publishAsync(kv(d), JSON.stringify({ action: 'reload' }), { qos: 1 });
    expect(await b.box.next(kv(d))).toMatchObject({ action: 'reload', rev: 1, numItems: 1, items: [{ key: 'one', value: 1 }] });
    // and the reload b asked for did not go to a either
    await t.http('PUT', `${kv(d)}/two`, { token: t.adminKey, body: { value: 2 } });
    expect(await a.box.next(kv(d))).toEqual({ action: 'set', rev: 2, key: 'two', value: 2 });
    expect(a.box.messages).toEqual([]);
  });

  it('arrives on every connect of a persistent session, without a new SUBSCRIBE', async () => {
    const d = await t.seedDevice();
    const first = await mqttConnect(t, d, { clientId: 'persistent', clean: false });
    const firstBox = inbox(first);
    await first.subscribeAsync(kv(d), { qos: 1 });
    await firstBox.next(kv(d)); // acknowledged, so not queued for the next session
    await first.endAsync();
    await t.http('PUT', `${kv(d)}/whileAway`, { token: t.adminKey, body: { value: 1 } });
    const again = await mqttConnect(t, d, { clientId: 'persistent', clean: false });
    const box = inbox(again);
    expect(await box.next(kv(d))).toMatchObject({ action: 'reload', rev: 1, numItems: 1 });
  });

  it('leaves the server in the same socket write as the SUBACK, right behind it (one write a subscribe, issue #25)', async () => {
    const d = await t.seedDevice();
    const s = await rawMqtt(t);
    s.write(connectPacket({ clientId: 'one-write', username: String(d.id), password: d.key }));
    expect(await connackOf(s)).toBe(0);
    const box = packetsOf(s);
    // the server's writes on this connection: the first byte of each chunk of each write
    const writes: number[][] = [];
    const proto = Socket.prototype as unknown as { _writeGeneric(writev: boolean, data: unknown, ...rest: unknown[]): unknown };
    const original = proto._writeGeneric;
    const port = s.localPort;
    proto._writeGeneric = function (this: Socket, writev: boolean, data: unknown, ...rest: unknown[]) {
      if (this.remotePort === port) {
        const chunks = writev ? (data as { chunk?: Buffer }[]).map((c) => c.chunk ?? (c as unknown as Buffer)) : [data as Buffer];
        writes.push(chunks.map((c) => (typeof c === 'string' ? -1 : c[0])));
      }
      return original.call(this, writev, data, ...rest);
    };
    onTestFinished(() => void (proto._writeGeneric = original));
    s.write(subscribePacket(1, kv(d), 1));
    const [subAck] = await box.next();
    const [reload] = await box.next();
    expect([subAck >> 4, reload >> 4]).toEqual([9, 3]);
    expect(writes).toHaveLength(1);
    expect(writes[0][0] >> 4).toBe(9);
    expect(writes[0].some((b) => b >> 4 === 3)).toBe(true);
  });

  it('works over MQTT on WebSocket too', async () => {
    const d = await t.seedDevice();
    const { box } = await subscribedDevice(d, { ws: true });
    expect(await box.next(kv(d))).toMatchObject({ action: 'reload', rev: 0 });
  });
});

describe('changes from REST reach MQTT', () => {
  it('set and delete arrive with the right rev', async () => {
    const d = await t.seedDevice();
    const { box } = await subscribedDevice(d);
    expect((await box.next(kv(d))).rev).toBe(0);
    await t.http('PUT', `${kv(d)}/mode`, { token: t.adminKey, body: { value: { on: true } } });
    expect(await box.next(kv(d))).toEqual({ action: 'set', rev: 1, key: 'mode', value: { on: true } });
    await t.http('PUT', `${kv(d)}/mode`, { token: t.adminKey, body: { value: 'off' } });
    expect(await box.next(kv(d))).toEqual({ action: 'set', rev: 2, key: 'mode', value: 'off' });
    expect((await t.http('DELETE', `${kv(d)}/mode`, { token: t.adminKey })).status).toBe(204);
    expect(await box.next(kv(d))).toEqual({ action: 'delete', rev: 3, key: 'mode' });
  });
});

describe('changes from the device', () => {
  it('a set is stored, its rev bumped, echoed to every subscriber and visible over REST', async () => {
    const d = await t.seedDevice();
    await t.http('PUT', `${kv(d)}/seed`, { token: t.adminKey, body: { value: 1 } });
    const a = await subscribedDevice(d);
    const b = await subscribedDevice(d, { ws: true });
    expect((await a.box.next(kv(d))).rev).toBe(1);
    expect((await b.box.next(kv(d))).rev).toBe(1);
    await a.c.publishAsync(kv(d), JSON.stringify({ action: 'set', key: 'temp', value: 21.5 }), { qos: 1 });
    expect(await a.box.next(kv(d))).toEqual({ action: 'set', rev: 2, key: 'temp', value: 21.5 });
    expect(await b.box.next(kv(d))).toEqual({ action: 'set', rev: 2, key: 'temp', value: 21.5 });
    const got = await t.http('GET', `${kv(d)}/temp`, { token: t.adminKey });
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ key: 'temp', value: 21.5 });
  });

  it('a delete is stored and echoed; REST then answers 404', async () => {
    const d = await t.seedDevice();
    await t.http('PUT', `${kv(d)}/gone`, { token: t.adminKey, body: { value: 'x' } });
    const { c, box } = await subscribedDevice(d);
    await box.next(kv(d));
    await c.publishAsync(kv(d), JSON.stringify({ action: 'delete', key: 'gone' }), { qos: 1 });
    expect(await box.next(kv(d))).toEqual({ action: 'delete', rev: 2, key: 'gone' });
    expect((await t.http('GET', `${kv(d)}/gone`, { token: t.adminKey })).status).toBe(404);
  });

  it('emits _deviceKVSaved_ and _deviceKVDeleted_ with the device as origin', async () => {
    const homeId = await t.seedHome();
    const d = await t.seedDevice({ homeId });
    const { c, box } = await subscribedDevice(d);
    await box.next(kv(d));
    await c.publishAsync(kv(d), JSON.stringify({ action: 'set', key: 'k', value: [1, 2] }), { qos: 1 });
    await box.next(kv(d));
    await c.publishAsync(kv(d), JSON.stringify({ action: 'delete', key: 'k' }), { qos: 1 });
    await box.next(kv(d));
    const rows = await t.deps.store.events.list({ projectId: 1, deviceId: d.id }, { skip: 0, limit: 20 });
    const kvEvents = rows.items.map((i) => i.event).filter((e) => e.eventType.includes('KV'));
    expect(kvEvents.map((e) => [e.eventType, e.eventData])).toEqual([
      ['_deviceKVDeleted_', { key: 'k' }],
      ['_deviceKVSaved_', { key: 'k', value: [1, 2] }],
    ]);
    expect(kvEvents[0]).toMatchObject({ originDeviceId: d.id, originDeviceClass: 'default', homeId });
  });
});

describe('the KV WebSocket', () => {
  it('sends reload first, then changes from MQTT, and its own changes reach the device', async () => {
    const d = await t.seedDevice();
    await t.http('PUT', `${kv(d)}/a`, { token: t.adminKey, body: { value: 1 } });
    const peer = await wsConnect(t, kv(d), { token: t.adminKey });
    expect(await peer.next()).toMatchObject({ action: 'reload', rev: 1, numItems: 1 });
    const { c, box } = await subscribedDevice(d);
    await box.next(kv(d));
    await c.publishAsync(kv(d), JSON.stringify({ action: 'set', key: 'b', value: true }), { qos: 1 });
    expect(await peer.next()).toEqual({ action: 'set', rev: 2, key: 'b', value: true });
    await box.next(kv(d)); // the device's own echo
    peer.ws.send(JSON.stringify({ action: 'set', key: 'fromWs', value: 'hello' }));
    expect(await box.next(kv(d))).toEqual({ action: 'set', rev: 3, key: 'fromWs', value: 'hello' });
    expect(await peer.next()).toEqual({ action: 'set', rev: 3, key: 'fromWs', value: 'hello' });
    peer.ws.send(JSON.stringify({ action: 'delete', key: 'a' }));
    expect(await box.next(kv(d))).toEqual({ action: 'delete', rev: 4, key: 'a' });
    peer.ws.send(JSON.stringify({ action: 'reload' }));
    await peer.next(); // the delete
    expect(await peer.next()).toMatchObject({ action: 'reload', rev: 4, numItems: 2 });
  });

  it('is open to the device itself (authToken in the query) and to members of its home', async () => {
    const homeId = await t.seedHome();
    const d = await t.seedDevice({ homeId });
    const member = await t.seedUser({ homeIds: [homeId] });
    const stranger = await t.seedUser();
    const self = await wsConnect(t, `${kv(d)}?authToken=${encodeURIComponent(d.key)}`);
    expect((await self.next()).action).toBe('reload');
    const m = await wsConnect(t, kv(d), { token: member.token });
    expect((await m.next()).action).toBe('reload');
    await expect(wsConnect(t, kv(d), { token: stranger.token })).rejects.toMatchObject({ status: 403, body: { reason: 'DEVICE_NOT_FOUND' } });
  });

  it('drops an invalid message, logs it, and keeps the socket', async () => {
    const d = await t.seedDevice();
    const peer = await wsConnect(t, kv(d), { token: t.adminKey });
    await peer.next();
    peer.ws.send('not json');
    peer.ws.send(JSON.stringify({ action: 'set', key: 'sys:logRequest', value: 1 }));
    await eventually(async () => {
      const lines = (await t.deps.store.logs.list({ projectId: 1, source: 'broker' }, { skip: 0, limit: 100 })).items.map((i) => i.text);
      return (
        lines.some((l) => l.includes(`KV WebSocket message for device ${d.id}: payload is not JSON`)) && lines.some((l) => l.includes('PERMISSION_DENIED'))
      );
    });
    peer.ws.send(JSON.stringify({ action: 'set', key: 'ok', value: 1 }));
    expect(await peer.next()).toEqual({ action: 'set', rev: 1, key: 'ok', value: 1 });
  });
});
