// Presence (docs/concepts.md#devices, docs/devices.md#mqtt): isConnected, lastConnectTime, lastDisconnectTime and the
// _deviceConnected_ / _deviceDisconnected_ events stay exact across overlapping connections of one
// device (MQTT and WebSocket) and every kind of disconnect, and a restart starts with everyone
// offline.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { createSqlStore } from '../../../src/adapters/sql/store.js';
import { startTestHearth, type SeededDevice, type TestHearth } from '../../helpers/hearth.js';
import { eventually, mqttConnect, wsConnect } from './clients.js';
import { closedWithin, connackOf, connectPacket, rawMqtt } from './raw-mqtt.js';

let t: TestHearth;
beforeAll(async () => {
  t = await startTestHearth();
});
afterAll(() => t?.close());

async function presenceEvents(d: SeededDevice): Promise<{ type: string; transport: unknown }[]> {
  const r = await t.deps.store.events.list({ projectId: 1, deviceId: d.id }, { skip: 0, limit: 100 });
  return r.items
    .filter((i) => i.event.eventType === '_deviceConnected_' || i.event.eventType === '_deviceDisconnected_')
    .reverse()
    .map((i) => ({ type: i.event.eventType, transport: i.event.eventData.transport }));
}

const offline = (d: SeededDevice, what = 'device offline') => eventually(async () => (await t.deviceRow(d.id))?.isConnected === false, 4000, what);
const online = (d: SeededDevice) => eventually(async () => (await t.deviceRow(d.id))?.isConnected === true, 4000, 'device online');

describe('one connection', () => {
  it('connect sets isConnected and lastConnectTime and emits _deviceConnected_ {transport: mqtt}', async () => {
    const d = await t.seedDevice();
    const before = new Date().toISOString();
    await mqttConnect(t, d);
    await online(d);
    const row = (await t.deviceRow(d.id))!;
    expect(row.lastConnectTime! >= before).toBe(true);
    const events = await eventually(async () => {
      const r = await t.deps.store.events.list({ projectId: 1, deviceId: d.id, eventType: '_deviceConnected_' }, { skip: 0, limit: 5 });
      return r.total ? r : undefined;
    });
    expect(events!.items).toHaveLength(1);
    expect(events!.items[0].event).toMatchObject({ eventData: { transport: 'mqtt' }, originDeviceId: d.id, originDeviceClass: 'default' });
  });

  it('a clean DISCONNECT sets it offline with lastDisconnectTime and _deviceDisconnected_', async () => {
    const d = await t.seedDevice();
    const c = await mqttConnect(t, d);
    await online(d);
    await c.endAsync();
    await offline(d);
    const row = (await t.deviceRow(d.id))!;
    expect(row.lastDisconnectTime! >= row.lastConnectTime!).toBe(true);
    await eventually(async () => (await presenceEvents(d)).length === 2);
    expect(await presenceEvents(d)).toEqual([
      { type: '_deviceConnected_', transport: 'mqtt' },
      { type: '_deviceDisconnected_', transport: 'mqtt' },
    ]);
  });

  it('a socket error (connection reset) sets it offline', async () => {
    const d = await t.seedDevice();
    const s = await rawMqtt(t);
    s.write(connectPacket({ clientId: 'reset', username: String(d.id), password: d.key }));
    expect(await connackOf(s)).toBe(0);
    await online(d);
    s.resetAndDestroy();
    await offline(d);
  });

  it('keep-alive expiry sets it offline', async () => {
    const d = await t.seedDevice();
    const s = await rawMqtt(t);
    s.on('error', () => undefined);
    s.write(connectPacket({ clientId: 'silent', username: String(d.id), password: d.key, keepalive: 1 }));
    expect(await connackOf(s)).toBe(0);
    await online(d);
    // MQTT-3.1.2-24: one and a half keep-alive periods without a packet; nothing else closes a
    // connected, silent socket this side of the test's timeout, so the bound only ends a hang
    // (4 s is short for a loaded machine)
    await closedWithin(s, 15_000);
    await offline(d);
  });

  it('the command WebSocket counts, with transport websocket', async () => {
    const d = await t.seedDevice();
    const peer = await wsConnect(t, `/devices/${d.id}/command`, { token: d.key });
    await online(d);
    peer.ws.close();
    await offline(d);
    await eventually(async () => (await presenceEvents(d)).length === 2);
    expect(await presenceEvents(d)).toEqual([
      { type: '_deviceConnected_', transport: 'websocket' },
      { type: '_deviceDisconnected_', transport: 'websocket' },
    ]);
  });
});

describe('several connections of one device', () => {
  it('stays connected until the last of MQTT, MQTT over WebSocket and the command WebSocket closes', async () => {
    const d = await t.seedDevice();
    const tcp = await mqttConnect(t, d);
    const overWs = await mqttConnect(t, d, { ws: true });
    const cmd = await wsConnect(t, `/devices/${d.id}/command`, { token: d.key });
    await online(d);
    const firstConnect = (await t.deviceRow(d.id))!.lastConnectTime;
    await tcp.endAsync();
    await overWs.endAsync();
    // both closes handled: one connection left, and the device not offline for it
    await eventually(async () => (await t.deps.presence!.count(d.id)) === 1, undefined, 'two of three connections gone');
    const row = (await t.deviceRow(d.id))!;
    expect(row.isConnected).toBe(true);
    // only the device's transitions are stamped
    expect(row.lastConnectTime).toBe(firstConnect);
    expect(row.lastDisconnectTime).toBeNull();
    cmd.ws.close();
    await offline(d);
    await eventually(async () => (await presenceEvents(d)).length === 2);
    expect(await presenceEvents(d)).toEqual([
      { type: '_deviceConnected_', transport: 'mqtt' },
      { type: '_deviceDisconnected_', transport: 'websocket' },
    ]);
  });

  it('a takeover with the same client id keeps the device connected without a disconnect', async () => {
    const d = await t.seedDevice();
    const first = await mqttConnect(t, d, { clientId: 'same' });
    await online(d);
    const firstClosed = new Promise<void>((r) => first.once('close', () => r()));
    const second = await mqttConnect(t, d, { clientId: 'same' });
    await firstClosed;
    expect((await t.deviceRow(d.id))!.isConnected).toBe(true);
    await second.endAsync();
    await offline(d);
    // positive control: the last close's disconnect is recorded; a disconnect (or a second
    // connect) from the takeover would have been recorded before it
    await eventually(async () => (await presenceEvents(d)).length >= 2, undefined, 'the final disconnect');
    expect(await presenceEvents(d)).toEqual([
      { type: '_deviceConnected_', transport: 'mqtt' },
      { type: '_deviceDisconnected_', transport: 'mqtt' },
    ]);
  });

  it('many connections opening and closing at once leave the count exact', async () => {
    const d = await t.seedDevice();
    const clients = await Promise.all(Array.from({ length: 6 }, (_, i) => mqttConnect(t, d, { clientId: `c${i}` })));
    await online(d);
    expect(await t.deps.presence!.count(d.id)).toBe(6);
    await Promise.all(clients.slice(0, 5).map((c) => c.endAsync(true)));
    await eventually(async () => (await t.deps.presence!.count(d.id)) === 1);
    expect((await t.deviceRow(d.id))!.isConnected).toBe(true);
    await clients[5].endAsync(true);
    await offline(d);
    // the event row commits right after the device row (group commit)
    await eventually(async () => (await presenceEvents(d)).length === 2);
    const types = (await presenceEvents(d)).map((e) => e.type);
    expect(types).toEqual(['_deviceConnected_', '_deviceDisconnected_']);
  });

  it('refuses connections beyond the per-device cap with CONNACK 3', async () => {
    const d = await t.seedDevice();
    const cap = t.hearth.config.limits.connectionsPerDevice;
    await Promise.all(Array.from({ length: cap }, (_, i) => mqttConnect(t, d, { clientId: `cap${i}` })));
    const s = await rawMqtt(t);
    s.write(connectPacket({ clientId: 'one-too-many', username: String(d.id), password: d.key }));
    expect(await connackOf(s)).toBe(3);
    await expect(wsConnect(t, `/devices/${d.id}/command`, { token: d.key })).rejects.toMatchObject({ status: 403, body: { reason: 'LIMIT_EXCEEDED' } });
    // [MQTT-3.1.4-2] at the cap, a connection with the client id of one of them replaces it: accepted
    const again = await rawMqtt(t);
    again.write(connectPacket({ clientId: 'cap0', username: String(d.id), password: d.key }));
    expect(await connackOf(again)).toBe(0);
  });
});

describe('restart', () => {
  // two Hearths start and stop in it: the timeout only bounds a hang (30 s ran out under stress-ng)
  it('embedded mode starts with every device offline', { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hearth-restart-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const first = await startTestHearth({}, { dataDir: dir });
    const d = first.device;
    await mqttConnect(first, d);
    await eventually(async () => (await first.deviceRow(d.id))?.isConnected === true);
    await first.close();
    // a crash instead of a clean stop: the flag stays set in the database
    const raw = await createSqlStore({ url: join(dir, 'hearth.db') });
    await raw.devices.setConnected(d.id, true, new Date().toISOString());
    expect((await raw.devices.get(d.id))!.isConnected).toBe(true);
    await raw.close();
    const second = await startTestHearth({}, { dataDir: dir });
    onTestFinished(() => second.close());
    const row = (await second.deviceRow(d.id))!;
    expect(row.isConnected).toBe(false);
    expect(row.lastDisconnectTime).not.toBeNull();
    // and it connects again as usual
    await mqttConnect(second, d);
    await eventually(async () => (await second.deviceRow(d.id))?.isConnected === true);
  });
});
