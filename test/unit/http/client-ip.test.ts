// The client address behind reverse proxies (HEARTH_TRUSTED_PROXIES): X-Forwarded-For is believed
// only from a trusted peer and read from the right; the rate limits, the access log (API and
// WebSocket upgrades) and device events (MQTT over WebSocket) then see the real client. Without
// the setting the header is ignored: anybody can send it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import mqtt from 'mqtt';
import { createTrustedProxies } from '../../../src/http/client-ip.js';
import { startTestHearth, type TestHearth } from '../../helpers/hearth.js';
import { eventually, wsConnect } from '../../e2e/broker/clients.js';

describe('createTrustedProxies', () => {
  it('is undefined without proxies (the socket peer is the client, nothing to compute)', () => {
    expect(createTrustedProxies([])).toBeUndefined();
  });

  const proxies = createTrustedProxies(['10.0.0.0/8', '192.168.1.7', 'fd00::/8'])!;

  it('ignores the header of a peer that is not a trusted proxy', () => {
    expect(proxies.clientOf('203.0.113.9', '198.51.100.1')).toBe('203.0.113.9');
    expect(proxies.clientOf('192.168.1.8', '198.51.100.1')).toBe('192.168.1.8');
  });

  it('takes the rightmost address that is not a trusted proxy; what a client wrote left of it is not believed', () => {
    expect(proxies.clientOf('10.0.0.2', '203.0.113.7')).toBe('203.0.113.7');
    expect(proxies.clientOf('10.0.0.2', '198.51.100.1, 203.0.113.7, 10.0.0.5')).toBe('203.0.113.7');
    expect(proxies.clientOf('192.168.1.7', ' 203.0.113.7 ,192.168.1.7')).toBe('203.0.113.7');
    // several header lines are one list
    expect(proxies.clientOf('10.0.0.2', ['198.51.100.1', '203.0.113.8'])).toBe('203.0.113.8');
  });

  it('stops at the last trusted hop when every hop is trusted, when the header is empty, or a hop is not an address', () => {
    expect(proxies.clientOf('10.0.0.2', '10.1.1.1, 10.0.0.5')).toBe('10.1.1.1');
    expect(proxies.clientOf('10.0.0.2', '')).toBe('10.0.0.2');
    expect(proxies.clientOf('10.0.0.2', undefined)).toBe('10.0.0.2');
    expect(proxies.clientOf('10.0.0.2', 'unknown, 10.0.0.5')).toBe('10.0.0.5');
    expect(proxies.clientOf('10.0.0.2', '<script>')).toBe('10.0.0.2');
  });

  it('matches IPv4-mapped IPv6 peers and IPv6 ranges', () => {
    expect(proxies.clientOf('::ffff:10.0.0.2', '203.0.113.7')).toBe('203.0.113.7');
    expect(proxies.clientOf('fd12::1', '2001:db8::7')).toBe('2001:db8::7');
    expect(proxies.clientOf('2001:db8::1', '203.0.113.7')).toBe('2001:db8::1');
  });
});

describe('behind a trusted proxy (HEARTH_TRUSTED_PROXIES=127.0.0.1)', () => {
  let t: TestHearth;
  let plain: TestHearth;
  beforeAll(async () => {
    t = await startTestHearth({ trustedProxies: ['127.0.0.1'], rateLimit: { enabled: true, perSecond: 1, burst: 2 } });
    plain = await startTestHearth({ rateLimit: { enabled: true, perSecond: 1, burst: 2 } });
  });
  afterAll(async () => {
    await t?.close();
    await plain?.close();
  });

  const loggedIp = async (h: TestHearth, path: string) =>
    eventually(
      async () => (await h.deps.store.accessLogs.list({ projectId: 1, pathPrefix: path }, { skip: 0, limit: 5 })).items[0]?.clientIp,
      20_000,
      `access log of ${path}`,
    );

  it('the access log records the forwarded client; a server that trusts no proxy records the peer', { timeout: 60_000 }, async () => {
    const path = `/devices/${t.device.id}/kv`;
    expect((await t.http('GET', path, { token: t.adminKey, headers: { 'x-forwarded-for': '198.51.100.1, 203.0.113.7' } })).status).toBe(200);
    expect(await loggedIp(t, path)).toBe('203.0.113.7');
    const plainPath = `/devices/${plain.device.id}/kv`;
    expect((await plain.http('GET', plainPath, { token: plain.adminKey, headers: { 'x-forwarded-for': '203.0.113.7' } })).status).toBe(200);
    expect(await loggedIp(plain, plainPath)).toBe('127.0.0.1');
  });

  it('each forwarded client has its own rate-limit bucket', async () => {
    const guess = (h: TestHearth, ip: string) => h.http('GET', '/devices/1/kv', { token: 'pk.not-a-key', headers: { 'x-forwarded-for': ip } });
    // client A spends its bucket on bad tokens (burst 2)
    const a: number[] = [];
    for (let i = 0; i < 4; i++) a.push((await guess(t, '203.0.113.10')).status);
    expect(a).toContain(429);
    // client B, behind the same proxy, is not limited by A's guesses
    expect((await guess(t, '203.0.113.11')).status).toBe(401);
    // without trusted proxies the header changes nothing: one bucket for the peer
    const b: number[] = [];
    for (let i = 0; i < 4; i++) b.push((await guess(plain, '203.0.113.10')).status);
    expect(b).toContain(429);
    expect((await guess(plain, '203.0.113.11')).status).toBe(429);
  });

  it('a WebSocket upgrade is logged with the forwarded client', async () => {
    const d = await t.seedDevice();
    await wsConnect(t, `/devices/${d.id}/command`, { token: d.key, headers: { 'x-forwarded-for': '203.0.113.21' } });
    expect(await loggedIp(t, `/devices/${d.id}/command`)).toBe('203.0.113.21');
  });

  it('an event published over MQTT over WebSocket carries the forwarded client as originDeviceIp', async () => {
    const d = await t.seedDevice();
    const client = await mqtt.connectAsync(`${t.wsUrl}/mqtt`, {
      username: String(d.id),
      password: d.key,
      reconnectPeriod: 0,
      connectTimeout: 5000,
      wsOptions: { headers: { 'x-forwarded-for': '203.0.113.33' } },
    });
    try {
      await client.publishAsync(`/devices/${d.id}/event`, JSON.stringify({ eventType: 'viaProxy', eventData: {} }), { qos: 1 });
    } finally {
      await client.endAsync(true);
    }
    const rows = await t.deps.store.events.list({ projectId: 1, eventType: 'viaProxy' }, { skip: 0, limit: 5 });
    expect(rows.items.map((r) => r.event.originDeviceIp)).toEqual(['203.0.113.33']);
  });
});
