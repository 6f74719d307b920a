// docs/devices.md#mqtt, issue 13: one device cannot exhaust the broker (F3), an empty client id needs a
// clean session (F4), repeated bad credentials are slowed down. Embedded mode (Aedes's in-memory
// persistence); the Redis persistence runs the same bounds suite in
// test/e2e/cluster/mqtt-bounds.redis.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import mqtt from 'mqtt';
import { startTestHearth, type TestHearth } from '../../helpers/hearth.js';
import { brokerLogLines, eventually, mqttConnect, mqttRefused, subscribeGranted, wsConnect } from './clients.js';
import { BOUNDS, boundsSuite } from './mqtt-bounds.js';
import { connackOf, connectPacket, packetsOf, rawMqtt, subscribePacket } from './raw-mqtt.js';
import { generateToken } from '../../helpers/credentials.js';

let t: TestHearth;
beforeAll(async () => {
  t = await startTestHearth({ mqtt: { ...BOUNDS, maxQueuedPerSession: 3 } });
});
afterAll(() => t?.close());

const logged = (fragment: string) => eventually(async () => (await brokerLogLines(t)).some((l) => l.includes(fragment)), 5000, `log line with ${fragment}`);

boundsSuite(() => t);

describe('F4: an empty client id', () => {
  // MQTT.js ("Missing clientId for unclean clients") and mosquitto_sub ("You must provide a
  // client id if you are using the -c option") both refuse to send it: firmware with its own
  // stack might, so a raw CONNECT
  it('with clean session 0 is CONNACK 2 (identifier rejected, MQTT-3.1.3-8)', async () => {
    const d = await t.seedDevice();
    const s = await rawMqtt(t);
    s.write(connectPacket({ clientId: '', username: String(d.id), password: d.key, clean: false }));
    expect(await connackOf(s)).toBe(2);
    await logged('an empty client id needs clean session 1');
  });

  it('with clean session 1 is accepted (positive control)', async () => {
    const d = await t.seedDevice();
    const c = await mqttConnect(t, d, { clientId: '', clean: true });
    expect(c.connected).toBe(true);
    const s = await rawMqtt(t);
    s.write(connectPacket({ clientId: '', username: String(d.id), password: d.key }));
    expect(await connackOf(s)).toBe(0);
  });
});

describe('queued QoS 1 messages per persistent session', () => {
  it('past the bound, commands to a session that never acknowledges go at QoS 0 (not stored), logged', async () => {
    const d = await t.seedDevice();
    const s = await rawMqtt(t);
    const rx = packetsOf(s);
    s.write(connectPacket({ clientId: 'noack', username: String(d.id), password: d.key, clean: false }));
    expect((await rx.next())[0]).toBe(0x20); // CONNACK
    s.write(subscribePacket(1, `/devices/${d.id}/command`, 1));
    expect((await rx.next())[0]).toBe(0x90); // SUBACK
    for (let i = 0; i < 5; i++) {
      const r = await t.http('PUT', `/devices/${d.id}/command`, { token: t.adminKey, body: { action: 'blink', parameters: { i } } });
      expect(r.status).toBe(204);
      // PUBLISH: 0x32 at QoS 1, 0x30 at QoS 0; never acknowledged
      const [first] = await rx.next();
      expect(first & 0xf0).toBe(0x30);
      expect((first >> 1) & 3).toBe(i < 3 ? 1 : 0);
    }
    await logged(`MQTT session of device ${d.id} has 3 unacknowledged messages queued (the limit)`);
  });
});

describe('repeated bad credentials from one address', () => {
  let slow: TestHearth;
  beforeAll(async () => {
    slow = await startTestHearth({ mqtt: { authFailureDelayMs: 300, authFailureMaxDelayMs: 1200 } });
  });
  afterAll(() => slow?.close());

  const timed = async <T>(fn: () => Promise<T>): Promise<[T, number]> => {
    const start = Date.now();
    const v = await fn();
    return [v, Date.now() - start];
  };

  it('wait longer and longer for their CONNACK 4/5 (MQTT), and for the refusal of a device WebSocket', async () => {
    const d = await slow.seedDevice();
    const bad = generateToken('dk.');
    // the first failure is answered at once (positive control: a typo is not punished)
    const [code1] = await timed(() => mqttRefused(slow, String(d.id), bad));
    expect(code1).toBe(4);
    // then 300 ms, 600 ms, 1200 ms (the cap), 1200 ms: lower bounds only (a busy machine is slower, never faster)
    const [code2, t2] = await timed(() => mqttRefused(slow, String(d.id), bad));
    expect(code2).toBe(4);
    expect(t2).toBeGreaterThanOrEqual(290);
    const [code3, t3] = await timed(() => mqttRefused(slow, '999999', bad));
    expect(code3).toBe(5);
    expect(t3).toBeGreaterThanOrEqual(590);
    // the device channels share the count: a bad key on /devices/{id}/command waits the cap
    const [ws, t4] = await timed(() =>
      wsConnect(slow, `/devices/${d.id}/command`, { token: bad }).then(
        () => 0,
        (e: { status: number }) => e.status,
      ),
    );
    expect(ws).toBe(403);
    expect(t4).toBeGreaterThanOrEqual(1190);
    // a good key is not delayed, and still gets in
    const c = await mqttConnect(slow, d);
    expect(c.connected).toBe(true);
  });
});

describe('offline session lifetime, by the broker’s own timer', () => {
  let short: TestHearth;
  beforeAll(async () => {
    short = await startTestHearth({ mqtt: { sessionExpirySeconds: 1 } });
  });
  afterAll(() => short?.close());

  it('an offline session is removed about its lifetime after its connection ended', async () => {
    const d = await short.seedDevice();
    const c = await mqttConnect(short, d, { clientId: 'brief', clean: false });
    const granted = await subscribeGranted(c, { [`/devices/${d.id}/command`]: 1, [`/devices/${d.id}/kv`]: 1 });
    expect(Object.values(granted)).toEqual([1, 1]);
    await c.endAsync();
    const p = (short.hearth.broker!.aedes as unknown as { persistence: unknown }).persistence as {
      subscriptionsByClient(c: { id: string }): Promise<unknown[]>;
    };
    await eventually(async () => (await p.subscriptionsByClient({ id: `${d.id}/brief` })).length === 0, 10_000, 'the session removed');
    const again = mqtt.connect(`mqtt://127.0.0.1:${short.mqttPort}`, {
      username: String(d.id),
      password: d.key,
      clientId: 'brief',
      clean: false,
      reconnectPeriod: 0,
    });
    const present = await new Promise<boolean>((r) => again.once('connect', (p) => r(p.sessionPresent)));
    await again.endAsync(true);
    expect(present).toBe(false);
  });
});
