// The device command WebSocket (docs/devices.md#mqtt): GET /devices/{id}/command with the device key in the
// header or `authToken` in the query; one text frame per command; pings answered; a peer that
// stops answering the service's pings is dropped.
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { WebSocket } from 'ws';
import { startTestHearth, type TestHearth } from '../../helpers/hearth.js';
import { eventually, wsConnect } from './clients.js';

let t: TestHearth;
beforeAll(async () => {
  t = await startTestHearth();
});
afterAll(() => t?.close());

// The liveness tests get their own service with pings every 1.5 s: short enough that a silent peer
// is gone within two rounds (3 s), long enough that a 10x slower machine still sees every pong
// before the next round. The other tests keep the default interval, so a stalled event loop
// cannot drop their sockets.
const PING_MS = 1500;

describe('commands', () => {
  it('one text frame {action, parameters} per command, key in the Authorization header', async () => {
    const d = await t.seedDevice();
    const peer = await wsConnect(t, `/devices/${d.id}/command`, { token: d.key });
    for (const action of ['first', 'second']) {
      expect((await t.http('PUT', `/devices/${d.id}/command`, { token: t.adminKey, body: { action, parameters: { x: action } } })).status).toBe(204);
    }
    expect(await peer.next()).toEqual({ action: 'first', parameters: { x: 'first' } });
    expect(await peer.next()).toEqual({ action: 'second', parameters: { x: 'second' } });
  });

  it('accepts the key as `authToken` in the query (browsers cannot set headers)', async () => {
    const d = await t.seedDevice();
    const peer = await wsConnect(t, `/devices/${d.id}/command?authToken=${encodeURIComponent(d.key)}`);
    await t.http('PUT', `/devices/${d.id}/command`, { token: t.adminKey, body: { action: 'via-query' } });
    expect(await peer.next()).toEqual({ action: 'via-query', parameters: {} });
  });

  it('after the socket closes, commands answer 403 DEVICE_OFFLINE', async () => {
    const d = await t.seedDevice();
    const peer = await wsConnect(t, `/devices/${d.id}/command`, { token: d.key });
    peer.ws.close();
    await peer.closed;
    await eventually(
      async () => (await t.http('PUT', `/devices/${d.id}/command`, { token: t.adminKey, body: { action: 'late' } })).body?.reason === 'DEVICE_OFFLINE',
    );
  });

  it('refuses a non-numeric device id with 404', async () => {
    await expect(wsConnect(t, '/devices/abc/command', { token: t.device.key })).rejects.toMatchObject({ status: 404, body: { reason: 'DEVICE_NOT_FOUND' } });
  });

  it('records the upgrade in the access log without the token', async () => {
    const d = await t.seedDevice();
    await wsConnect(t, `/devices/${d.id}/command?authToken=${encodeURIComponent(d.key)}`);
    await eventually(async () => {
      const r = await t.deps.store.accessLogs.list({ projectId: 1, pathPrefix: `/devices/${d.id}/command` }, { skip: 0, limit: 5 });
      return r.items.some((i) => i.statusCode === 101 && i.path === `/devices/${d.id}/command`);
    });
  });
});

describe('limits', () => {
  it('closes a socket that sends a frame over the frame cap (1009), without buffering it', async () => {
    const peer = await wsConnect(t, `/devices/${t.device.id}/command`, { token: t.device.key });
    peer.ws.send(Buffer.alloc(t.hearth.config.limits.wsFrameBytes + 1));
    expect((await peer.closed).code).toBe(1009);
  });

  it('applies the same cap to MQTT over WebSocket', async () => {
    const peer = await wsConnect(t, '/mqtt', { protocols: ['mqtt'] });
    peer.ws.send(Buffer.alloc(t.hearth.config.limits.wsFrameBytes + 1));
    expect((await peer.closed).code).toBe(1009);
  });
});

describe('liveness', () => {
  let live: TestHearth;
  beforeAll(async () => {
    live = await startTestHearth({ broker: { wsPingIntervalMs: PING_MS } });
  });
  afterAll(() => live?.close());

  it('answers the client’s pings', async () => {
    const peer = await wsConnect(t, `/devices/${t.device.id}/command`, { token: t.device.key });
    const pong = new Promise<string>((r) => peer.ws.once('pong', (data) => r(data.toString())));
    peer.ws.ping('hello');
    expect(await pong).toBe('hello');
  });

  it('pings the peer and keeps one that answers', async () => {
    const peer = await wsConnect(live, `/devices/${live.device.id}/command`, { token: live.device.key });
    // each round after the first checks the answer to the previous ping before pinging again: a
    // third ping means two rounds found the peer alive and kept it
    let pings = 0;
    const third = new Promise<void>((r) => peer.ws.on('ping', () => ++pings === 3 && r()));
    await Promise.race([third, peer.closed.then((c) => expect.fail(`closed (${c.code}) after ${pings} pings`))]);
    expect(peer.ws.readyState).toBe(WebSocket.OPEN);
  });

  it('drops a peer that stops answering its pings, and the device goes offline', async () => {
    const d = await live.seedDevice();
    const ws = new WebSocket(`${live.wsUrl}/devices/${d.id}/command`, { headers: { authorization: `ModeCloud ${d.key}` }, autoPong: false });
    onTestFinished(() => ws.terminate());
    await new Promise((r, j) => {
      ws.once('open', r);
      ws.once('error', j);
    });
    await eventually(async () => (await live.deviceRow(d.id))?.isConnected === true);
    await new Promise<void>((r) => ws.once('close', () => r()));
    await eventually(async () => (await live.deviceRow(d.id))?.isConnected === false);
  });
});
