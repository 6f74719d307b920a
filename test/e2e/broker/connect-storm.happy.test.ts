// Admission control (docs/operations.md#connect-storms): a burst of real MQTT clients larger than
// limits.connectRatePerSecond all get CONNACK 0; the ones past the rate wait, unread, instead of
// being refused, and their connect deadline does not run while they wait. The server's own
// counters show that connections were held; no timing is asserted.
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import mqtt, { type MqttClient } from 'mqtt';
import { startTestHearth, type SeededDevice, type TestHearth } from '../../helpers/hearth.js';
import { MIN_WAIT_MS, eventually, sample } from './clients.js';

const RATE = 5;
const BURST = 25;

let t: TestHearth;
beforeAll(async () => {
  // the queue is 4 s deep at this rate: longer than the connect deadline, which must not cut it
  t = await startTestHearth({ limits: { connectRatePerSecond: RATE, connectTimeoutMs: 2500 } });
});
afterAll(() => t?.close());

const metrics = async () => (await fetch(`${t.httpUrl}/metrics`)).text();

describe('connect storms', () => {
  it('a burst past the rate is held, not refused: every client gets CONNACK 0', async () => {
    const devices: SeededDevice[] = [];
    for (let i = 0; i < BURST; i++) devices.push(await t.seedDevice());
    const before = await metrics();
    const admittedBefore = sample(before, 'hearth_listener_connections_admitted_total', { listener: 'MQTT' }) ?? 0;
    expect(sample(before, 'hearth_listener_connections_held_total', { listener: 'MQTT' })).toBe(0);

    // all sockets opened in one turn of this event loop: the server accepts them as one burst
    const refused: string[] = [];
    const clients: MqttClient[] = devices.map((d) => {
      const c = mqtt.connect(`mqtt://127.0.0.1:${t.hearth.mqttPort}`, {
        username: String(d.id),
        password: d.key,
        reconnectPeriod: 0,
        connectTimeout: 4 * MIN_WAIT_MS,
        keepalive: 60,
      });
      c.on('error', (e) => refused.push(`${d.id}: ${e.message}`));
      c.on('close', () => {
        if (!c.connected) refused.push(`${d.id}: closed before CONNACK`);
      });
      onTestFinished(() => void c.end(true));
      return c;
    });
    await Promise.all(clients.map((c) => (c.connected ? undefined : new Promise((r) => c.once('connect', r)))));
    expect(refused).toEqual([]);
    expect(clients.every((c) => c.connected)).toBe(true);

    const after = await metrics();
    const held = sample(after, 'hearth_listener_connections_held_total', { listener: 'MQTT' }) ?? 0;
    expect(held).toBeGreaterThan(0);
    expect(held).toBeLessThanOrEqual(BURST);
    expect((sample(after, 'hearth_listener_connections_admitted_total', { listener: 'MQTT' }) ?? 0) - admittedBefore).toBe(BURST);
    expect(sample(after, 'hearth_listener_connections_waiting', { listener: 'MQTT' })).toBe(0);
    expect(sample(after, 'hearth_broker_connect_refusals_total', { transport: 'mqtt', reason: 'CONNECTION_REFUSED' }) ?? 0).toBe(0);
    await eventually(() => t.hearth.broker!.connectionCount === BURST, MIN_WAIT_MS, `${BURST} device connections on the broker`);
    // and they stay: none is closed by a deadline once connected
    expect(refused).toEqual([]);
  });
});
