// End to end over real sockets: a device on MQTT learns of a log request through its KV store
// (live, or on its next reload when it was offline), uploads a multi-part file over HTTP, and the
// operator downloads the same bytes (docs/concepts.md#log-requests).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { startTestHearth, type TestHearth } from '../../helpers/hearth.js';
import { startSimDevice } from './device-sim.js';

let t: TestHearth;
beforeAll(async () => {
  // small parts so a file of a few KiB is several parts
  t = await startTestHearth({ logRequests: { maxFileBytes: 1 << 20, partBytes: 1024, uploadTtlSeconds: 60 } });
});
afterAll(() => t?.close());

async function download(deviceId: number, requestId: string) {
  const res = await fetch(`${t.httpUrl}/devices/${deviceId}/logRequests/${requestId}/file`, { headers: { authorization: `ModeCloud ${t.adminKey}` } });
  return { status: res.status, type: res.headers.get('content-type'), bytes: new Uint8Array(await res.arrayBuffer()) };
}

describe('device log upload over MQTT and HTTP', () => {
  it('a connected device sees the request arrive, uploads in parts, and the same bytes come back', async () => {
    const d = await t.seedDevice();
    // resolves after the SUBACK of its KV topic: the request's sync reaches it
    const dev = await startSimDevice({ mqttPort: t.mqttPort, httpUrl: t.httpUrl, id: d.id, key: d.key });
    const created = await t.http('POST', `/devices/${d.id}/logRequests`, { token: t.adminKey, body: { start: '2026-01-01T00:00:00Z', prefixes: ['kernel'] } });
    expect(created.status).toBe(201);
    const key = await dev.logRequest();
    expect(key).toEqual({ id: created.body.id, token: created.body.token, start: '2026-01-01T00:00:00.000Z', end: null, prefixes: ['kernel'] });
    const file = randomBytes(5000);
    await dev.upload(key, file, { contentType: 'application/x-ndjson', filename: 'kernel.log' });
    await dev.logRequestGone();
    const got = await t.http('GET', `/devices/${d.id}/logRequests/${key.id}`, { token: t.adminKey });
    expect(got.body).toMatchObject({ status: 'success', filename: 'kernel.log', contentType: 'application/x-ndjson' });
    expect(got.body.url).toBe(`${t.httpUrl}/devices/${d.id}/logRequests/${key.id}/file`);
    const dl = await download(d.id, key.id);
    expect(dl.status).toBe(200);
    expect(dl.type).toBe('application/x-ndjson');
    expect(Buffer.from(dl.bytes).equals(file)).toBe(true);
  });

  it('an offline device finds the request in the reload of its next connection; parts may go in any order', async () => {
    const d = await t.seedDevice();
    const created = await t.http('POST', `/devices/${d.id}/logRequests`, { token: t.adminKey, body: {} });
    const dev = await startSimDevice({ mqttPort: t.mqttPort, httpUrl: t.httpUrl, id: d.id, key: d.key });
    const key = await dev.logRequest();
    expect(key.id).toBe(created.body.id);
    const file = randomBytes(3 * 1024 + 17);
    await dev.upload(key, file, { order: (n) => Array.from({ length: n }, (_, i) => n - 1 - i) });
    expect(Buffer.from((await download(d.id, key.id)).bytes).equals(file)).toBe(true);
  });

  it('a device that gives up reports failure; the key goes and the token is spent', async () => {
    const d = await t.seedDevice();
    const dev = await startSimDevice({ mqttPort: t.mqttPort, httpUrl: t.httpUrl, id: d.id, key: d.key });
    await t.http('POST', `/devices/${d.id}/logRequests`, { token: t.adminKey, body: {} });
    const key = await dev.logRequest();
    const res = await fetch(`${t.httpUrl}/deviceLogger/${key.token}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'failure', reason: 'disk full' }),
    });
    expect(res.status).toBe(204);
    await dev.logRequestGone();
    await expect(dev.upload(key, randomBytes(10))).rejects.toThrow(/401/);
    expect((await t.http('GET', `/devices/${d.id}/logRequests/${key.id}`, { token: t.adminKey })).body.status).toBe('failure');
  });

  it('a real part of 5 MiB passes the API body limit; one byte more does not', async () => {
    const big = await startTestHearth({ logRequests: { maxFileBytes: 10 << 20, partBytes: 5 << 20, uploadTtlSeconds: 60 } });
    try {
      const d = await big.seedDevice();
      const created = await big.http('POST', `/devices/${d.id}/logRequests`, { token: big.adminKey, body: {} });
      const token = created.body.token;
      const start = await big.http('POST', `/deviceLogger/${token}`, { body: { size: (5 << 20) + 10, contentType: 'text/plain' } });
      expect(start.body.numOfParts).toBe(2);
      const tooBig = await fetch(start.body.urls[0], { method: 'PUT', body: randomBytes((5 << 20) + 1) });
      expect(tooBig.status).toBe(403);
      const file = randomBytes((5 << 20) + 10);
      for (const [i, url] of start.body.urls.entries()) {
        expect((await fetch(url, { method: 'PUT', body: file.subarray(i * (5 << 20), (i + 1) * (5 << 20)) })).status).toBe(204);
      }
      expect((await fetch(`${big.httpUrl}/deviceLogger/${token}/uploads/${start.body.uploadId}`, { method: 'POST' })).status).toBe(204);
      const res = await fetch(`${big.httpUrl}/devices/${d.id}/logRequests/${created.body.id}/file`, {
        headers: { authorization: `ModeCloud ${big.adminKey}` },
      });
      expect(Buffer.from(await res.arrayBuffer()).equals(file)).toBe(true);
    } finally {
      await big.close();
    }
  }, 30_000);
});
