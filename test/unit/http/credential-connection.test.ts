// op()'s admission keeps the reading of a connection's Authorization header (the token's kind and
// hash) on the connection, for its next requests (src/http/op.ts, credentialOf). Only the reading:
// on one keep-alive connection, a key revoked between two requests is refused by the next one, and
// a header that changes from request to request is read afresh each time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, createServer, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { seedDevice } from '../../helpers/store-seed.js';
import { EdgeResponse } from '../../../src/http/edge/response.js';
import { createRequestListener } from '../../../src/http/edge/listener.js';

describe('a credential on one keep-alive connection', () => {
  let t: TestApi;
  let server: Server;
  let port: number;
  let deviceId: number;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const sockets = new Set<Socket>();

  beforeAll(async () => {
    t = await makeTestApi();
    ({
      device: { id: deviceId },
    } = await seedDevice(t.deps));
    server = createServer({ ServerResponse: EdgeResponse as typeof ServerResponse }, createRequestListener(t.app.fetch));
    server.on('connection', (s: Socket) => sockets.add(s));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    agent.destroy();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await t.close();
  });

  const get = (path: string, authorization?: string) =>
    new Promise<{ status: number; body: { reason?: string } }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path, agent, headers: authorization === undefined ? {} : { authorization } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) as { reason?: string } }));
      });
      req.on('error', reject);
      req.end();
    });

  it('refuses a key on the first request after it is revoked, on the connection that used it', async () => {
    const k = (await t.req('POST', '/projects/1/apiKeys', { token: t.adminKey, body: { name: 'soon gone', scopes: ['devices'] } })).body as {
      id: string;
      key: string;
    };
    const path = `/devices/${deviceId}`;
    expect((await get(path, `ModeCloud ${k.key}`)).status).toBe(200);
    expect((await get(path, `ModeCloud ${k.key}`)).status).toBe(200);
    expect((await t.req('DELETE', `/projects/1/apiKeys/${k.id}`, { token: t.adminKey })).status).toBe(204);
    const refused = await get(path, `ModeCloud ${k.key}`);
    expect(refused.status).toBe(401);
    expect(refused.body.reason).toBe('INVALID_TOKEN');
    // all on one connection: what the connection kept was there to be (wrongly) reused
    expect(sockets.size).toBe(1);
  });

  it('reads a header that changes between requests afresh: another key, none, a malformed one, the first again', async () => {
    const path = `/devices/${deviceId}`;
    expect((await get(path, `ModeCloud ${t.adminKey}`)).status).toBe(200);
    expect((await get(path)).status).toBe(401);
    expect((await get(path, `ModeCloud pk.not-a-key`)).body.reason).toBe('INVALID_TOKEN');
    expect((await get(path, `Basic ${t.adminKey}`)).status).toBe(401);
    expect((await get(path, `Bearer ${t.adminKey}`)).status).toBe(200);
    expect((await get(path, `ModeCloud ${t.adminKey}`)).status).toBe(200);
    expect(sockets.size).toBe(1);
  });
});
