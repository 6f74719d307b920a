// Issue 23 defect 1, KV reload amplification (docs/devices.md#limits, docs/devices.md#kv-sync): the
// whole KV store is bounded by its `reload` message (limits.kvStoreBytes) over HTTP, MQTT and the
// KV WebSocket; reload requests merge (one per connection at a time); every kind of connection
// that stops reading is closed once its unsent output passes limits.connectionOutputBytes, logged
// and counted in /metrics; and the attack shape (a full store, 8 subscribers that do not read,
// 50 reloads each) leaves memory flat.
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startTestHearth, type SeededDevice, type TestHearth } from '../../helpers/hearth.js';
import { brokerLogLines, eventually, mqttConnect, wsConnect } from './clients.js';
import { connackOf, connectPacket, packetsOf, publishPacket, rawMqtt, subscribePacket } from './raw-mqtt.js';

let t: TestHearth;
beforeAll(async () => {
  // the drain timeout out of the way: only the output bound may close a connection here
  t = await startTestHearth({ broker: { drainTimeoutMs: 3_600_000 } });
});
afterAll(() => t?.close());

const STORE = 262_144;
/** the largest value a pair may hold: 64 KiB serialised */
const BIG = 'x'.repeat(65_534);
const kv = (d: SeededDevice) => `/devices/${d.id}/kv`;
const put = (d: SeededDevice, key: string, value: unknown) => t.http('PUT', `${kv(d)}/${key}`, { token: t.adminKey, body: { value } });

async function metric(name: string, labels: string): Promise<number> {
  const text = await (await fetch(`${t.httpUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line ? Number(line.split(' ').pop()) : 0;
}
const slowClosed = (transport: string) => metric('hearth_broker_slow_consumers_closed_total', `transport="${transport}"`);
const logged = (fragment: string) => eventually(async () => (await brokerLogLines(t)).some((l) => l.includes(fragment)), 5000, `log line with ${fragment}`);

/** the reload message's size, as the device receives it */
async function reloadBytes(d: SeededDevice): Promise<number> {
  const { rev, items } = await t.deps.store.kv.list('device', d.id);
  return Buffer.byteLength(JSON.stringify({ action: 'reload', rev, numItems: items.length, items }));
}

/** fills the store with 64 KiB pairs until the service refuses one; answers how many it took */
async function fill(d: SeededDevice, max = 20): Promise<number> {
  for (let i = 0; i < max; i++) {
    const r = await put(d, `big${i}`, BIG);
    if (r.status !== 204) {
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ reason: 'LIMIT_EXCEEDED' });
      return i;
    }
  }
  return max;
}

/** the payload of a QoS 0 PUBLISH body, parsed */
function payloadOf(body: Buffer): any {
  const n = body.readUInt16BE(0);
  return JSON.parse(body.subarray(2 + n).toString());
}

/** a raw MQTT device connection subscribed (QoS 0) to its kv topic, its reload received */
async function rawSubscriber(d: SeededDevice, clientId: string): Promise<{ s: Socket; packets: ReturnType<typeof packetsOf> }> {
  const s = await rawMqtt(t);
  s.on('error', () => undefined);
  s.write(connectPacket({ clientId, username: String(d.id), password: d.key }));
  expect(await connackOf(s)).toBe(0);
  const packets = packetsOf(s);
  s.write(subscribePacket(1, kv(d), 0));
  return { s, packets };
}

/**
 * PUTs 64 KiB values (each a `set` to every subscriber) until the server counts a close for
 * `transport` (a paused client cannot see the close itself); fails after `max`
 */
async function floodUntilClosed(d: SeededDevice, transport: string, before: number, max = 600): Promise<void> {
  let closed = false;
  for (let i = 0; i < max && !closed; i++) {
    const r = await put(d, 'flood', `${i}${BIG.slice(10)}`);
    expect(r.status).toBe(204);
    if (i % 4 === 3) closed = (await slowClosed(transport)) > before;
  }
  expect(await slowClosed(transport)).toBe(before + 1);
}

/** the same, with any request that makes output for the connection */
async function pushUntilClosed(push: (i: number) => Promise<unknown>, transport: string, before: number, max = 600): Promise<void> {
  let closed = false;
  for (let i = 0; i < max && !closed; i++) {
    await push(i);
    if (i % 4 === 3) closed = (await slowClosed(transport)) > before;
  }
  expect(await slowClosed(transport)).toBe(before + 1);
}

describe('the whole store is bounded by its reload message (limits.kvStoreBytes)', () => {
  it('over HTTP: the write past it is 403 LIMIT_EXCEEDED and changes nothing; a smaller one still fits', async () => {
    const d = await t.seedDevice();
    const taken = await fill(d);
    expect(taken).toBe(3);
    const before = await t.deps.store.kv.list('device', d.id);
    expect(await reloadBytes(d)).toBeLessThanOrEqual(STORE);
    const r = await put(d, 'one-more', BIG);
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ reason: 'LIMIT_EXCEEDED', data: { limit: STORE } });
    expect(await t.deps.store.kv.list('device', d.id)).toEqual(before);
    expect((await put(d, 'small', 'fits')).status).toBe(204);
    // home stores too
    const homeId = await t.seedHome();
    let status = 204;
    for (let i = 0; i < 10 && status === 204; i++)
      status = (await t.http('PUT', `/homes/${homeId}/kv/big${i}`, { token: t.adminKey, body: { value: BIG } })).status;
    expect(status).toBe(403);
  });

  it('over MQTT: the set past it is dropped and logged, the connection stays', async () => {
    const d = await t.seedDevice();
    await fill(d);
    const c = await mqttConnect(t, d);
    await c.publishAsync(kv(d), JSON.stringify({ action: 'set', key: 'over', value: BIG }), { qos: 1 });
    await logged(`dropped MQTT publish to ${kv(d)} from device ${d.id}`);
    await logged('LIMIT_EXCEEDED');
    // a positive control on the same connection: a small set is stored
    await c.publishAsync(kv(d), JSON.stringify({ action: 'set', key: 'after', value: 1 }), { qos: 1 });
    await eventually(async () => (await t.deps.store.kv.get('device', d.id, 'after')) !== undefined, 5000, 'the small set stored');
    expect(await t.deps.store.kv.get('device', d.id, 'over')).toBeUndefined();
    expect(c.connected).toBe(true);
  });

  it('over the KV WebSocket: the set past it is dropped and logged, the socket stays', async () => {
    const d = await t.seedDevice();
    await fill(d);
    const peer = await wsConnect(t, kv(d), { token: d.key });
    expect(await peer.next()).toMatchObject({ action: 'reload', numItems: 3 });
    peer.ws.send(JSON.stringify({ action: 'set', key: 'over', value: BIG }));
    await logged(`dropped KV WebSocket message for device ${d.id}: LIMIT_EXCEEDED`);
    peer.ws.send(JSON.stringify({ action: 'set', key: 'after', value: 1 }));
    expect(await peer.next()).toMatchObject({ action: 'set', key: 'after' });
    expect(await t.deps.store.kv.get('device', d.id, 'over')).toBeUndefined();
  });
});

describe('reload requests merge (one reload per connection at a time)', { timeout: 60_000 }, () => {
  // a store of 12 MiB: one reload is more than the kernel's socket buffers hold, so a client that
  // does not read has it in flight for certain and every later request must merge
  let main: TestHearth;
  beforeAll(async () => {
    main = t;
    t = await startTestHearth({
      broker: { drainTimeoutMs: 3_600_000 },
      limits: { kvValueBytes: 4 * 2 ** 20, kvStoreBytes: 16 * 2 ** 20, httpBodyBytes: 8 * 2 ** 20, connectionOutputBytes: 64 * 2 ** 20 },
    });
  });
  afterAll(async () => {
    await t.close();
    t = main;
  });
  const fillLarge = async (d: SeededDevice) => {
    for (let i = 0; i < 3; i++) expect((await put(d, `large${i}`, 'x'.repeat(4 * 2 ** 20 - 2))).status).toBe(204);
  };

  it('50 reload publishes from a connection that does not read yield at most 3 reloads, the last one current', async () => {
    const d = await t.seedDevice();
    await fillLarge(d);
    const { s } = await rawSubscriber(d, 'merge');
    // stop reading: the first reload and what follows stay in the kernel and the server
    s.pause();
    const kvBefore = await metric('hearth_broker_publishes_total', 'kind="kv"');
    for (let i = 0; i < 50; i++) s.write(publishPacket(kv(d), '{"action":"reload"}'));
    s.write(publishPacket(kv(d), JSON.stringify({ action: 'set', key: 'marker', value: 1 })));
    await eventually(async () => (await t.deps.store.kv.get('device', d.id, 'marker')) !== undefined, 10_000, 'the marker stored');
    await eventually(async () => (await metric('hearth_broker_publishes_total', 'kind="kv"')) >= kvBefore + 51, 5000, 'all 51 publishes received');
    // count on the stream as it comes (a reload is 12 MiB): reload starts, and the marker inside a reload
    const seen = { reloads: 0, markerInReload: 0 };
    const patterns: [keyof typeof seen, Buffer][] = [
      ['reloads', Buffer.from('{"action":"reload"')],
      ['markerInReload', Buffer.from('{"key":"marker","value":1,"modificationTime"')],
    ];
    let tail = Buffer.alloc(0);
    s.removeAllListeners('data');
    s.on('data', (chunk: Buffer) => {
      const buf = Buffer.concat([tail, chunk]);
      for (const [k, p] of patterns) for (let i = buf.indexOf(p); i >= 0; i = buf.indexOf(p, i + 1)) if (i + p.length > tail.length) seen[k]++;
      tail = buf.subarray(Math.max(0, buf.length - 64));
    });
    s.resume();
    await eventually(async () => seen.markerInReload > 0, 30_000, 'a current reload');
    const reloads = Array(seen.reloads);
    expect(reloads.length).toBeGreaterThanOrEqual(2);
    expect(reloads.length).toBeLessThanOrEqual(3);
    expect(s.destroyed).toBe(false);
  });

  it('reload requests on the KV WebSocket merge too', async () => {
    const d = await t.seedDevice();
    await fillLarge(d);
    const peer = await wsConnect(t, kv(d), { token: d.key });
    await eventually(async () => peer.frames.length >= 1, 5000, 'the first reload');
    const socket = (peer.ws as unknown as { _socket: Socket })._socket;
    socket.pause();
    for (let i = 0; i < 50; i++) peer.ws.send('{"action":"reload"}');
    peer.ws.send(JSON.stringify({ action: 'set', key: 'marker', value: 1 }));
    await eventually(async () => (await t.deps.store.kv.get('device', d.id, 'marker')) !== undefined, 10_000, 'the marker stored');
    socket.resume();
    await eventually(async () => peer.frames.some((f) => f.action === 'reload' && f.items.some((i: any) => i.key === 'marker')), 30_000, 'a current reload');
    // the first reload, at most one being written, one merged
    expect(peer.frames.filter((f) => f.action === 'reload').length).toBeLessThanOrEqual(3);
  });

  it('a persistent session that comes back gets one fresh reload, none queued while it was away', async () => {
    const d = await t.seedDevice();
    await fill(d);
    // a persistent session subscribed at QoS 1 that acknowledges nothing, asks 20 reloads and goes
    const s = await rawMqtt(t);
    s.on('error', () => undefined);
    s.write(connectPacket({ clientId: 'away', username: String(d.id), password: d.key, clean: false }));
    expect(await connackOf(s)).toBe(0);
    s.write(subscribePacket(1, kv(d), 1));
    s.pause();
    for (let i = 0; i < 20; i++) s.write(publishPacket(kv(d), '{"action":"reload"}'));
    s.write(publishPacket(kv(d), JSON.stringify({ action: 'set', key: 'marker', value: 1 })));
    await eventually(async () => (await t.deps.store.kv.get('device', d.id, 'marker')) !== undefined, 10_000, 'the marker stored');
    s.destroy();
    const again = await mqttConnect(t, d, { clientId: 'away', clean: false });
    const got: any[] = [];
    again.on('message', (_topic, payload) => got.push(JSON.parse(payload.toString())));
    await eventually(async () => got.some((m) => m.action === 'reload'), 10_000, 'the fresh reload');
    // a positive control after which nothing queued can still be on its way
    await put(d, 'control', 2);
    await eventually(async () => got.some((m) => m.action === 'set' && m.key === 'control'), 10_000, 'the control set');
    const reloads = got.filter((m) => m.action === 'reload');
    expect(reloads).toHaveLength(1);
    expect(reloads[0].items.some((i: any) => i.key === 'marker')).toBe(true);
  });
});

describe('a persistent session that reads but never acknowledges', { timeout: 120_000 }, () => {
  it('gets QoS 1 sets until their payloads pass limits.connectionOutputBytes, then QoS 0, not stored, logged', async () => {
    const d = await t.seedDevice();
    const s = await rawMqtt(t);
    s.on('error', () => undefined);
    const rx = packetsOf(s);
    s.write(connectPacket({ clientId: 'noack-kv', username: String(d.id), password: d.key, clean: false }));
    expect((await rx.next())[0]).toBe(0x20); // CONNACK
    s.write(subscribePacket(1, kv(d), 1));
    expect((await rx.next())[0]).toBe(0x90); // SUBACK
    expect((await rx.next())[0] & 0xf0).toBe(0x30); // the reload (QoS 0 for a persistent session)
    // 1 MiB of 64 KiB sets is 16; the count bound (1000) is far away
    const qos: number[] = [];
    for (let i = 0; i < 24; i++) {
      expect((await put(d, 'v', `${i}${BIG.slice(10)}`)).status).toBe(204);
      const [first] = await rx.next(10_000);
      expect(first & 0xf0).toBe(0x30);
      qos.push((first >> 1) & 3);
    }
    expect(qos.slice(0, 16)).toEqual(Array(16).fill(1));
    expect(qos.slice(17)).toEqual(Array(7).fill(0));
    await logged(`MQTT session of device ${d.id} has`);
    await logged('bytes of unacknowledged messages queued (limits.connectionOutputBytes)');
  });
});

describe('a connection that does not read is closed at limits.connectionOutputBytes, logged and counted', { timeout: 180_000 }, () => {
  it('MQTT over TCP', async () => {
    const d = await t.seedDevice();
    const before = await slowClosed('mqtt_tcp');
    const { s, packets } = await rawSubscriber(d, 'stalled');
    await packets.next(); // SUBACK
    s.pause();
    await floodUntilClosed(d, 'mqtt_tcp', before);
    await logged(`MQTT connection of device ${d.id} closed`);
    await logged('limits.connectionOutputBytes');
  });

  it('MQTT over WebSocket', async () => {
    const d = await t.seedDevice();
    const before = await slowClosed('mqtt_ws');
    const ws = new WebSocket(`${t.wsUrl}/mqtt`, ['mqtt']);
    ws.on('error', () => undefined);
    const frames: Buffer[] = [];
    ws.on('message', (b) => frames.push(b as Buffer));
    await new Promise((r) => ws.once('open', r));
    ws.send(connectPacket({ clientId: 'stalled-ws', username: String(d.id), password: d.key }));
    ws.send(subscribePacket(1, kv(d), 0));
    // CONNACK, SUBACK, the reload
    await eventually(async () => frames.some((f) => f[0] >> 4 === 3), 5000, 'the reload');
    (ws as unknown as { _socket: Socket })._socket.pause();
    await floodUntilClosed(d, 'mqtt_ws', before);
    ws.terminate();
    await logged(`MQTT connection of device ${d.id} closed`);
  });

  it('the KV WebSocket', async () => {
    const d = await t.seedDevice();
    const before = await slowClosed('kv_ws');
    const peer = await wsConnect(t, kv(d), { token: d.key });
    expect(await peer.next()).toMatchObject({ action: 'reload' });
    const socket = (peer.ws as unknown as { _socket: Socket })._socket;
    socket.pause();
    await floodUntilClosed(d, 'kv_ws', before);
    await logged(`KV WebSocket of device ${d.id} closed`);
  });

  it('the command WebSocket', async () => {
    const d = await t.seedDevice();
    const before = await slowClosed('command_ws');
    const peer = await wsConnect(t, `/devices/${d.id}/command`, { token: d.key });
    await eventually(async () => (await t.deps.presence!.count(d.id)) > 0, 5000, 'online');
    const socket = (peer.ws as unknown as { _socket: Socket })._socket;
    socket.pause();
    const parameters = { blob: BIG };
    await pushUntilClosed(
      (i) => t.http('PUT', `/devices/${d.id}/command`, { token: t.adminKey, body: { action: 'flood', parameters: { ...parameters, i } } }),
      'command_ws',
      before,
    );
    await logged(`command WebSocket of device ${d.id} closed`);
  });

  it('the user event stream', async () => {
    const d = await t.seedDevice();
    const before = await slowClosed('user_stream');
    const pk = await t.seedProjectKey(['events']);
    const peer = await wsConnect(t, `/userSession/websocket?authToken=${pk.key}&eventTypes=flood`);
    await new Promise((r) => (peer.ws.readyState === WebSocket.OPEN ? r(null) : peer.ws.once('open', r)));
    // a positive control: one event arrives while reading
    await eventually(
      async () => {
        await t.http('PUT', `/devices/${d.id}/event`, { token: d.key, body: { eventType: 'flood', eventData: { n: 0 } } });
        return peer.frames.length > 0;
      },
      5000,
      'the stream delivers',
    );
    const socket = (peer.ws as unknown as { _socket: Socket })._socket;
    socket.pause();
    const eventData = { s: BIG.slice(100) };
    await pushUntilClosed(
      async () => expect((await t.http('PUT', `/devices/${d.id}/event`, { token: d.key, body: { eventType: 'flood', eventData } })).status).toBe(204),
      'user_stream',
      before,
    );
    await logged(`event stream of project key ${pk.id} closed`);
  });
});

describe('the attack shape keeps memory bounded', { timeout: 120_000 }, () => {
  it('a full store, 8 subscribers that stop reading and 50 reloads each: resident memory grows far less than the 8 x 50 reloads', async () => {
    const d = await t.seedDevice();
    await fill(d, 20);
    const store = await reloadBytes(d);
    const subs = await Promise.all(Array.from({ length: 8 }, (_, i) => rawSubscriber(d, `attack${i}`)));
    for (const { packets } of subs) await packets.next(); // SUBACK
    global.gc?.();
    const rss0 = process.memoryUsage().rss;
    const kvBefore = await metric('hearth_broker_publishes_total', 'kind="kv"');
    for (const { s } of subs) {
      s.pause();
      for (let i = 0; i < 50; i++) s.write(publishPacket(kv(d), '{"action":"reload"}'));
    }
    await eventually(async () => (await metric('hearth_broker_publishes_total', 'kind="kv"')) >= kvBefore + 400, 20_000, 'all 400 reload requests received');
    await put(d, 'marker', 1);
    const grown = process.memoryUsage().rss - rss0;
    // what the server would hold without the bounds: every requested reload (a coarse net only)
    const unbounded = 8 * 50 * store;
    expect(grown).toBeLessThan(Math.max(unbounded / 4, 64 * 1024 * 1024));
    const h = await fetch(`${t.httpUrl}/healthz`);
    expect(h.status).toBe(200);
  });
});
