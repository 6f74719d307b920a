// Admission control (docs/operations.md#connect-storms): a burst of real MQTT clients larger than
// limits.connectRatePerSecond all get CONNACK 0; the ones past the rate wait, unread, instead of
// being refused, and their connect deadline does not run while they wait. The server's own
// counters show that connections were held; no timing is asserted.
// The connect deadline (docs/operations.md#connection-limits) stops once the CONNECT arrived: a
// node that takes longer than it to answer still answers (issue #25: a storm larger than the node
// could answer within the deadline was closed and retried without end).
// The in-flight cap (limits.connectsInFlight) holds a burst back the same way until CONNACKs give
// their places back.
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import mqtt, { type MqttClient } from 'mqtt';
import { startTestHearth, type SeededDevice, type TestHearth } from '../../helpers/hearth.js';
import { MIN_WAIT_MS, eventually, sample } from './clients.js';
import { closedWithin, connectPacket, rawMqtt } from './raw-mqtt.js';
import type { Socket } from 'node:net';

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

describe('the in-flight cap', () => {
  const CAP = 2;
  let capped: TestHearth;
  beforeAll(async () => {
    // no rate: only the cap holds connections back
    capped = await startTestHearth({ limits: { connectRatePerSecond: 0, connectsInFlight: CAP } });
  });
  afterAll(() => capped?.close());

  it('a burst past limits.connectsInFlight waits for CONNACKs, not refused: every client gets CONNACK 0', async () => {
    const devices: SeededDevice[] = [];
    for (let i = 0; i < 15; i++) devices.push(await capped.seedDevice());
    const problems: string[] = [];
    // opened in one turn: 15 arrive at once, two are passed on, the rest wait for their CONNACKs
    const clients: MqttClient[] = devices.map((d) => {
      const c = mqtt.connect(`mqtt://127.0.0.1:${capped.hearth.mqttPort}`, {
        username: String(d.id),
        password: d.key,
        reconnectPeriod: 0,
        connectTimeout: 4 * MIN_WAIT_MS,
        keepalive: 60,
      });
      c.on('error', (e) => problems.push(`${d.id}: ${e.message}`));
      c.on('close', () => {
        if (!c.connected) problems.push(`${d.id}: closed before CONNACK`);
      });
      onTestFinished(() => void c.end(true));
      return c;
    });
    await Promise.all(clients.map((c) => (c.connected ? undefined : new Promise((r) => c.once('connect', r)))));
    expect(problems).toEqual([]);
    const text = await (await fetch(`${capped.httpUrl}/metrics`)).text();
    expect(sample(text, 'hearth_listener_connections_held_total', { listener: 'MQTT' }) ?? 0).toBeGreaterThan(0);
    expect(sample(text, 'hearth_listener_connections_admitted_total', { listener: 'MQTT' })).toBe(devices.length);
    // every CONNACK gave its place back
    expect(sample(text, 'hearth_listener_connections_in_flight', { listener: 'MQTT' })).toBe(0);
    expect(sample(text, 'hearth_listener_connections_waiting', { listener: 'MQTT' })).toBe(0);
  });
});

/** the CONNACK's return code, or 'closed' when the socket closes before one arrives */
function answerOf(s: Socket): Promise<number | 'closed'> {
  return new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0);
    const t = setTimeout(() => reject(new Error('neither a CONNACK nor a close')), 4 * MIN_WAIT_MS);
    s.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      if (buf.length >= 4 && buf[0] === 0x20) (clearTimeout(t), resolve(buf[3]));
    });
    s.once('close', () => (clearTimeout(t), resolve('closed')));
  });
}

describe('the connect deadline', () => {
  const DEADLINE_MS = 400;
  let slow: TestHearth;
  beforeAll(async () => {
    // a refusal of repeated bad credentials is answered 2 s late: five times the deadline (a
    // real way for the node to take longer than the deadline to answer a CONNECT)
    slow = await startTestHearth({ limits: { connectTimeoutMs: DEADLINE_MS }, mqtt: { authFailureDelayMs: 2000, authFailureMaxDelayMs: 2000 } });
  });
  afterAll(() => slow?.close());

  it('stops when the CONNECT arrives: an answer that takes longer than the deadline still comes', async () => {
    const d = await slow.seedDevice();
    const bad = connectPacket({ clientId: 'c', username: String(d.id), password: 'dk.not-the-key', keepalive: 60 });
    // the deadline runs: a socket that sends nothing is closed (positive control)
    const idle = await rawMqtt(slow);
    await closedWithin(idle, MIN_WAIT_MS);
    // the first bad key from this address is refused at once, the second 2 s later
    const first = await rawMqtt(slow);
    const firstAnswer = answerOf(first);
    first.write(bad);
    expect(await firstAnswer).toBe(4);
    const second = await rawMqtt(slow);
    const secondAnswer = answerOf(second);
    second.write(bad);
    // before the fix the deadline closed it first, without an answer
    expect(await secondAnswer).toBe(4);
  });
});
