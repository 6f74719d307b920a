// The HTTP edge through a real @hono/node-server on loopback: the headers every answer carries
// are written by the Node response there (edge/response.ts on the API's own server, preset with
// setHeader on any other), not through Hono, so they are checked on real sockets, for
// successes, errors and answers the framework builds, with both kinds of Node response.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { Socket, type AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { seedDevice } from '../../helpers/store-seed.js';
import { EdgeResponse } from '../../../src/http/edge/response.js';
import { createRequestListener } from '../../../src/http/edge/listener.js';

type Fetch = TestApi['app']['fetch'];
describe.each([
  ['a plain Node response', false, (fetch: Fetch) => createAdaptorServer({ fetch }) as Server],
  ['EdgeResponse', true, (fetch: Fetch) => createAdaptorServer({ fetch, serverOptions: { ServerResponse: EdgeResponse as typeof ServerResponse } }) as Server],
  [
    "EdgeResponse and the API's request listener, as main.ts serves them",
    true,
    (fetch: Fetch) => createServer({ ServerResponse: EdgeResponse as typeof ServerResponse }, createRequestListener(fetch)),
  ],
])('HTTP edge on a real server with %s', (_kind, edgeResponse, serverOf) => {
  let t: TestApi;
  let server: Server;
  let base: string;
  let deviceId: number;
  beforeAll(async () => {
    t = await makeTestApi();
    ({
      device: { id: deviceId },
    } = await seedDevice(t.deps));
    server = serverOf(t.app.fetch);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await t.close();
  });

  const expectEdgeHeaders = (r: Response) => {
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    expect(r.headers.get('access-control-expose-headers')).toContain('vnd.tinkermode.range');
    expect(r.headers.get('access-control-allow-credentials')).toBeNull();
    expect(r.headers.get('x-request-id')).toMatch(/^[A-Za-z0-9._-]+$/);
  };

  it('carries CORS and x-request-id on a success, with its JSON body and range header intact', async () => {
    const r = await fetch(`${base}/devices/${deviceId}/kv`, { headers: { authorization: `ModeCloud ${t.adminKey}`, 'x-request-id': 'req-42' } });
    expect(r.status).toBe(200);
    expectEdgeHeaders(r);
    expect(r.headers.get('x-request-id')).toBe('req-42');
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.headers.get('vnd.tinkermode.range')).toBe('*/0');
    expect(await r.json()).toEqual([]);
  });

  it('carries them on errors: 401, 404 of an unknown route, 405, and a 204', async () => {
    const unauth = await fetch(`${base}/devices/${deviceId}/kv`);
    expect(unauth.status).toBe(401);
    expectEdgeHeaders(unauth);
    const missing = await fetch(`${base}/no/such/route`);
    expect(missing.status).toBe(404);
    expectEdgeHeaders(missing);
    const wrong = await fetch(`${base}/healthz`, { method: 'DELETE' });
    expect(wrong.status).toBe(405);
    expectEdgeHeaders(wrong);
    const put = await fetch(`${base}/devices/${deviceId}/kv/k`, {
      method: 'PUT',
      headers: { authorization: `ModeCloud ${t.adminKey}`, 'content-type': 'application/json' },
      body: '{"value":1}',
    });
    expect(put.status).toBe(204);
    expectEdgeHeaders(put);
  });

  it('answers a CORS preflight with 204 and the allowed methods and headers', async () => {
    const r = await fetch(`${base}/devices/${deviceId}/kv/k`, {
      method: 'OPTIONS',
      headers: { origin: 'http://x.example', 'access-control-request-method': 'PUT' },
    });
    expect(r.status).toBe(204);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    expect(r.headers.get('access-control-allow-methods')).toContain('PUT');
    expect(r.headers.get('access-control-allow-headers')).toContain('Authorization');
    // once each: the preflight's own CORS headers are not doubled by the edge's
    expect(r.headers.get('access-control-expose-headers')).toBeNull();
    expect(r.headers.get('x-request-id')!.split(',')).toHaveLength(1);
  });

  it('carries them on a HEAD and on a 429 with its Retry-After', async () => {
    const head = await fetch(`${base}/healthz`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expectEdgeHeaders(head);
    const limited = await makeTestApi({ rateLimit: { perSecond: 1, burst: 1 } });
    const s = serverOf(limited.app.fetch);
    try {
      await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
      const url = `http://127.0.0.1:${(s.address() as AddressInfo).port}/devices/${deviceId}/kv`;
      await fetch(url);
      const r = await fetch(url);
      expect(r.status).toBe(429);
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expectEdgeHeaders(r);
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
    } finally {
      s.closeAllConnections();
      await new Promise((r) => s.close(r));
      await limited.close();
    }
  });

  it('sends one x-request-id per answer, new for each request without one', async () => {
    const a = await fetch(`${base}/healthz`);
    const b = await fetch(`${base}/healthz`);
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
    expect(a.headers.get('x-request-id')!.split(',')).toHaveLength(1);
  });

  it('writes a JSON answer to its socket in one write on EdgeResponse, where Node gathers head and end into a writev', async () => {
    // what reaches Node's own gathering of buffered writes on this server's sockets
    const gathered: number[] = [];
    const writev = Object.getOwnPropertyDescriptor(Socket.prototype, '_writev')!;
    type Gather = (this: Socket & { server?: unknown }, chunks: unknown[], cb: (err?: Error | null) => void) => void;
    const original = writev.value as Gather;
    (Socket.prototype as unknown as { _writev: Gather })._writev = function (chunks, cb) {
      if (this.server === server) gathered.push(chunks.length);
      return original.call(this, chunks, cb);
    };
    try {
      for (let i = 0; i < 3; i++) {
        const r = await fetch(`${base}/devices/${deviceId}`, { headers: { authorization: `ModeCloud ${t.adminKey}` } });
        expect(r.status).toBe(200);
        expectEdgeHeaders(r);
        expect(await r.json()).toMatchObject({ id: deviceId });
      }
    } finally {
      Object.defineProperty(Socket.prototype, '_writev', writev);
    }
    // a plain Node response is the positive control: its end() hands the socket two writes
    if (edgeResponse) expect(gathered).toEqual([]);
    else expect(gathered.length).toBeGreaterThanOrEqual(3);
  });
});
