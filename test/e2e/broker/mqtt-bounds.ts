// The per-device MQTT bounds of docs/devices.md#mqtt (issue 13 F3), as one suite run against the embedded
// broker (Aedes's in-memory persistence) and the cluster broker (aedes-persistence-redis):
// subscriptions per connection, persistent sessions per device, offline session expiry. The
// server is started by the caller with these limits: 5 subscriptions per connection, 2
// persistent sessions per device, sessions expiring after an hour (the sweep is called with a
// later clock instead of waiting).
import { describe, expect, it, onTestFinished } from 'vitest';
import mqtt from 'mqtt';
import type { SeededDevice, TestHearth } from '../../helpers/hearth.js';
import { brokerLogLines, eventually, mqttConnect, mqttRefused, subscribeGranted } from './clients.js';

export const BOUNDS = { maxSubscriptionsPerConnection: 5, maxSessionsPerDevice: 2, sessionExpirySeconds: 3600 };

interface PersistenceView {
  subscriptionsByClient(c: { id: string }): Promise<{ topic: string }[]>;
}

/** connects with clean session 0 and answers the CONNACK's session present flag */
export function sessionPresent(t: TestHearth, d: SeededDevice, clientId: string): Promise<boolean> {
  const c = mqtt.connect(`mqtt://127.0.0.1:${t.mqttPort}`, { username: String(d.id), password: d.key, clientId, clean: false, reconnectPeriod: 0 });
  onTestFinished(() => c.endAsync(true).catch(() => undefined));
  return new Promise((resolve, reject) => {
    c.once('connect', (connack) => resolve(connack.sessionPresent));
    c.once('error', reject);
  });
}

export function boundsSuite(get: () => TestHearth): void {
  const persistence = () => (get().hearth.broker!.aedes as unknown as { persistence: PersistenceView }).persistence;
  const stored = async (id: string) => (await persistence().subscriptionsByClient({ id })).map((s) => s.topic).sort();
  const logged = (fragment: string) =>
    eventually(async () => (await brokerLogLines(get())).some((l) => l.includes(fragment)), 5000, `log line with ${fragment}`);
  const filters = (deviceId: number, n: number, from = 0) =>
    Object.fromEntries(Array.from({ length: n }, (_, i) => [`/devices/${deviceId}/bulkData/l${from + i}/response`, 1 as const]));

  describe('subscriptions per connection', () => {
    it('past the bound: SUBACK 0x80 for each extra filter, logged; the connection stays and only the granted are stored', async () => {
      const t = get();
      const d = await t.seedDevice();
      const c = await mqttConnect(t, d, { clientId: 'subs', clean: false });
      const granted = await subscribeGranted(c, filters(d.id, 8));
      expect(Object.values(granted)).toEqual([1, 1, 1, 1, 1, 128, 128, 128]);
      await logged(`a connection of device ${d.id} may hold 5 subscriptions`);
      // a filter already held is not an extra one
      expect(Object.values(await subscribeGranted(c, filters(d.id, 1)))).toEqual([1]);
      expect(await stored(`${d.id}/subs`)).toEqual(Object.keys(filters(d.id, 5)).sort());
      // giving one back makes room for another
      await c.unsubscribeAsync(`/devices/${d.id}/bulkData/l0/response`);
      expect(Object.values(await subscribeGranted(c, filters(d.id, 1, 7)))).toEqual([1]);
      expect(c.connected).toBe(true);
    });
  });

  describe('persistent sessions per device', () => {
    it('a new one past the bound removes the device’s oldest offline session, subscriptions and all, and says so', async () => {
      const t = get();
      const d = await t.seedDevice();
      for (const id of ['s1', 's2']) {
        const c = await mqttConnect(t, d, { clientId: id, clean: false });
        await subscribeGranted(c, filters(d.id, 2));
        await c.endAsync();
      }
      // positive control: both offline sessions are kept
      await eventually(async () => (await stored(`${d.id}/s1`)).length === 2 && (await stored(`${d.id}/s2`)).length === 2, 3000, 'both sessions stored');
      const c3 = await mqttConnect(t, d, { clientId: 's3', clean: false });
      await logged(`persistent MQTT session "${d.id}/s1" of device ${d.id} removed`);
      expect(await stored(`${d.id}/s1`)).toEqual([]);
      expect(await stored(`${d.id}/s2`)).toHaveLength(2);
      expect(c3.connected).toBe(true);
      // s2 comes back with its session; s1 finds none
      await c3.endAsync();
      expect(await sessionPresent(t, d, 's2')).toBe(true);
      expect(await sessionPresent(t, d, 's1')).toBe(false);
    });

    it('when every persistent session of the device is in use by a live connection, a new one is CONNACK 3 and logged', async () => {
      const t = get();
      const d = await t.seedDevice();
      const a = await mqttConnect(t, d, { clientId: 'live1', clean: false });
      const b = await mqttConnect(t, d, { clientId: 'live2', clean: false });
      expect(await mqttRefused(t, String(d.id), d.key, { clientId: 'live3', clean: false })).toBe(3);
      await logged(`device ${d.id} already holds 2 persistent sessions in use`);
      // clean sessions are not persistent sessions: still welcome
      const clean = await mqttConnect(t, d, { clientId: 'clean1' });
      expect([a.connected, b.connected, clean.connected]).toEqual([true, true, true]);
    });
  });

  describe('offline session lifetime', () => {
    it('an offline session past its lifetime is removed from the persistence; a live one is not', async () => {
      const t = get();
      const d = await t.seedDevice();
      const gone = await mqttConnect(t, d, { clientId: 'old', clean: false });
      await subscribeGranted(gone, filters(d.id, 3));
      await gone.endAsync();
      const live = await mqttConnect(t, d, { clientId: 'live', clean: false });
      await subscribeGranted(live, filters(d.id, 3));
      await eventually(async () => (await stored(`${d.id}/old`)).length === 3, 3000, 'offline session stored');
      // positive control: a sweep now removes nothing of this device
      await t.hearth.broker!.sweepSessions(Date.now());
      expect(await stored(`${d.id}/old`)).toHaveLength(3);
      await t.hearth.broker!.sweepSessions(Date.now() + 3601_000);
      expect(await stored(`${d.id}/old`)).toEqual([]);
      expect(await stored(`${d.id}/live`)).toHaveLength(3);
      expect(live.connected).toBe(true);
    });
  });
}
