// HTTP body limit (docs/api.md#limits: 1 MiB by default): an oversized body is refused with 403
// BODY_TOO_LARGE before it is buffered — from its Content-Length when it has one, and while it is
// streamed when it is chunked (tested through a real HTTP server on loopback).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createAdaptorServer } from '@hono/node-server';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { seedDevice } from '../../helpers/store-seed.js';

const MiB = 1024 * 1024;

describe('HTTP body limit', () => {
  let t: TestApi;
  let server: Server;
  let port: number;
  let path: string;
  beforeAll(async () => {
    t = await makeTestApi();
    const { device } = await seedDevice(t.deps);
    path = `/devices/${device.id}/kv/big`;
    server = createAdaptorServer({ fetch: t.app.fetch }) as Server;
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await t.close();
  });

  const bodyOf = (res: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let s = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (s += d));
      res.on('end', () => resolve(s));
    });

  it('refuses a 2 MiB JSON body with 403 BODY_TOO_LARGE (in-process)', async () => {
    const r = await t.req('PUT', path, { token: t.adminKey, raw: JSON.stringify({ value: 'x'.repeat(2 * MiB) }) });
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ reason: 'BODY_TOO_LARGE', data: { limit: MiB } });
  });

  it('accepts a body just under the limit (then the KV value limit applies)', async () => {
    const r = await t.req('PUT', path, { token: t.adminKey, raw: JSON.stringify({ value: 'x'.repeat(MiB - 100) }) });
    expect(r.body.reason).toBe('INVALID_PARAMETERS');
  });

  it('answers from the Content-Length header alone, before any of the body arrives', async () => {
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = request(
        {
          port,
          host: '127.0.0.1',
          method: 'PUT',
          path,
          headers: { authorization: `ModeCloud ${t.adminKey}`, 'content-type': 'application/json', 'content-length': String(2 * MiB) },
        },
        resolve,
      );
      req.on('error', reject);
      req.flushHeaders(); // headers only: the body is never sent
    });
    expect(res.statusCode).toBe(403);
    expect(JSON.parse(await bodyOf(res)).reason).toBe('BODY_TOO_LARGE');
    res.socket.destroy();
  });

  it('answers a chunked body without Content-Length as soon as it passes the limit, before the client has finished sending', async () => {
    let sent = 0;
    let answeredAt = -1;
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = request(
        {
          port,
          host: '127.0.0.1',
          method: 'PUT',
          path,
          headers: { authorization: `ModeCloud ${t.adminKey}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        },
        (r) => {
          answeredAt = sent;
          resolve(r);
        },
      );
      req.on('error', (e) => (answeredAt >= 0 ? undefined : reject(e)));
      const chunk = Buffer.alloc(64 * 1024, 'x');
      req.write('{"value":"');
      // send 1.5 MiB, then stop without ending the request: the answer must come anyway
      const pump = () => {
        while (sent < 1.5 * MiB) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
      };
      pump();
    });
    expect(res.statusCode).toBe(403);
    expect(JSON.parse(await bodyOf(res)).reason).toBe('BODY_TOO_LARGE');
    expect(answeredAt).toBeGreaterThan(0);
    expect(answeredAt).toBeLessThanOrEqual(1.5 * MiB);
    res.socket.destroy();
  });

  it('still answers normal requests on the same server afterwards', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(res.status).toBe(200);
  });
});
