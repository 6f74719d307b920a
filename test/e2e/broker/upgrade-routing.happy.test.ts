// Upgrades on the HTTP port: WebSocket paths go to the broker before Hono; anything else (another
// path, or an `Upgrade: h2c` that curl sends) is answered by the API as a plain request.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHearth, type TestHearth } from '../../helpers/hearth.js';
import { wsConnect } from './clients.js';

let t: TestHearth;
beforeAll(async () => {
  t = await startTestHearth();
});
afterAll(() => t?.close());

/** one raw HTTP/1.1 exchange; resolves the whole answer as text */
function rawHttp(request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(t.httpPort, '127.0.0.1', () => s.write(request));
    let out = '';
    s.on('data', (d) => (out += d));
    s.on('end', () => resolve(out));
    s.on('error', reject);
    setTimeout(() => {
      s.destroy();
      resolve(out);
    }, 2000);
  });
}

describe('upgrade routing', () => {
  it('serves a request carrying Upgrade: h2c as a plain request', async () => {
    const answer = await rawHttp(
      'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n',
    );
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
  });

  it('answers a WebSocket upgrade of a path the broker does not serve as the API would (404)', async () => {
    await expect(wsConnect(t, '/devices/1/elsewhere', { token: t.adminKey })).rejects.toMatchObject({ status: 404, body: { reason: 'NOT_FOUND' } });
  });

  it('takes GET /devices/{id}/kv with Upgrade: websocket before the REST route', async () => {
    const peer = await wsConnect(t, `/devices/${t.device.id}/kv`, { token: t.adminKey });
    expect((await peer.next()).action).toBe('reload');
    // and without the upgrade, the REST list
    const r = await t.http('GET', `/devices/${t.device.id}/kv`, { token: t.adminKey });
    expect(r.status).toBe(200);
    expect(Array.isArray(r.body)).toBe(true);
  });
});
