// The API's request listener (src/http/edge/listener.ts) against @hono/node-server's own: the same
// Hono app behind each on a real loopback server, every request sent to both, the answers
// compared (status, headers but Date, body). The listener's own way (a GET with a body in hand)
// and what it hands the adapter (other methods, odd targets and hosts, streams, null bodies,
// errors) must answer alike. Its URL without parsing is checked against `new URL()` itself.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, createServer, request, type IncomingHttpHeaders, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Hono } from 'hono';
import { getRequestListener } from '@hono/node-server';
import { createRequestListener, simpleUrl } from '../../../src/http/edge/listener.js';
import { requestText } from '../../../src/http/request-body.js';

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

function send(
  port: number,
  method: string,
  target: string,
  headers: Record<string, string> = {},
  body?: string | string[],
  agent: Agent | false = false,
): Promise<Answer & { reused: boolean }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path: target, headers, setHost: !('host' in headers), agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => {
        const { date: _date, ...rest } = res.headers;
        resolve({ status: res.statusCode!, headers: rest, body: text, reused: req.reusedSocket });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    // several pieces: a body sent chunked (no Content-Length)
    if (Array.isArray(body)) {
      for (const piece of body) req.write(piece);
      req.end();
    } else req.end(body);
  });
}

const listening = (server: Server) => new Promise<number>((r) => server.listen(0, '127.0.0.1', () => r((server.address() as AddressInfo).port)));

describe('the API request listener answers as @hono/node-server does', () => {
  /** what the handlers saw of their request, by server */
  const seen: Record<'adapter' | 'ours', string[]> = { adapter: [], ours: [] };
  /** a request whose handler waits for its signal to abort, by server */
  const aborted: Record<'adapter' | 'ours', Promise<string>> = {} as never;
  const servers: Server[] = [];
  /** the class of the last PUT /event request its handler had */
  const made: Record<'adapter' | 'ours', string> = { adapter: '', ours: '' };
  let adapterPort = 0;
  let oursPort = 0;

  function app(who: 'adapter' | 'ours'): Hono {
    const a = new Hono();
    a.get('/json/:id', (c) => c.json({ id: c.req.param('id'), q: c.req.query('q') ?? null, url: new URL(c.req.url).pathname }));
    a.get('/text', (c) => c.text('plain'));
    a.get('/url/*', (c) => c.json({ url: c.req.url, path: c.req.path }));
    a.get('/bytes', (c) => c.body(new Uint8Array([104, 105]), 200, { 'content-type': 'application/octet-stream' }));
    a.get('/headers', (c) => {
      seen[who].push(`${c.req.header('x-one')}|${c.req.raw.headers.get('x-one')}|${c.req.raw.method}`);
      return c.json({ one: c.req.header('x-one') ?? null });
    });
    a.get('/body', async (c) => c.json({ text: await c.req.raw.text(), used: c.req.raw.bodyUsed }));
    a.get('/prepared', (c) => {
      c.header('x-set', 'before');
      return c.json({ ok: true }, 201);
    });
    a.get('/not-modified', (c) => c.body(null, 304, { etag: '"x"' }));
    a.get('/stream', (c) =>
      c.body(
        new ReadableStream({
          start(ctl) {
            ctl.enqueue(new TextEncoder().encode('part one, '));
            ctl.enqueue(new TextEncoder().encode('part two'));
            ctl.close();
          },
        }),
        200,
        { 'content-type': 'text/plain' },
      ),
    );
    a.get('/later', async (c) => {
      await new Promise((r) => setImmediate(r));
      return c.json({ later: true });
    });
    a.get('/throws', () => {
      throw new Error('handler failed');
    });
    a.get('/wait-abort', (c) => {
      aborted[who] = new Promise((resolve) => c.req.raw.signal.addEventListener('abort', () => resolve(String(c.req.raw.signal.reason))));
      return new Promise<Response>(() => {});
    });
    a.post('/echo', async (c) => c.json({ got: await c.req.text() }));
    // PUTs: the body read as the API reads it (request-body.ts), through the WHATWG Request (text,
    // json, the stream), not at all (a refusal), or read and then failed
    a.put('/event/:id', async (c) => {
      seen[who].push(`${c.req.method} ${c.req.param('id')} ${await requestText(c)}`);
      made[who] = c.req.raw.constructor.name;
      return c.body('' as unknown as null, 204, {});
    });
    a.put('/text', async (c) => c.json({ text: await c.req.text(), method: c.req.raw.method }, 201));
    a.put('/json', async (c) => c.json({ json: await c.req.json() }));
    a.put('/stream', async (c) => {
      let n = 0;
      for await (const chunk of c.req.raw.body!) n += (chunk as Uint8Array).byteLength;
      return c.json({ n });
    });
    a.put('/read-twice', async (c) => c.json({ first: await requestText(c), again: await c.req.text() }));
    a.put('/refuse', (c) => c.json({ error: 'UNAUTHORIZED' }, 401));
    a.put('/refuse-later', async (c) => {
      await new Promise((r) => setImmediate(r));
      return c.json({ error: 'FORBIDDEN' }, 403);
    });
    a.put('/fails', async (c) => {
      await requestText(c);
      throw new Error('handler failed after the body');
    });
    a.put('/null', async (c) => {
      await requestText(c);
      return c.body(null, 204);
    });
    return a;
  }

  beforeAll(async () => {
    const adapter = createServer(getRequestListener(app('adapter').fetch));
    const ours = createServer(createRequestListener(app('ours').fetch));
    servers.push(adapter, ours);
    adapterPort = await listening(adapter);
    oursPort = await listening(ours);
  });
  afterAll(async () => {
    for (const s of servers) {
      s.closeAllConnections();
      await new Promise((r) => s.close(r));
    }
  });

  const both = async (method: string, target: string, headers: Record<string, string> = {}, body?: string | string[]) => {
    const [a, o] = await Promise.all([send(adapterPort, method, target, headers, body), send(oursPort, method, target, headers, body)]);
    expect(o).toEqual(a);
    return o;
  };

  it('answers a GET with JSON, text and bytes alike, with the parameters and query read from its URL', async () => {
    const json = await both('GET', '/json/42?q=a%20b&r=1');
    expect(json.status).toBe(200);
    expect(JSON.parse(json.body)).toEqual({ id: '42', q: 'a b', url: '/json/42' });
    expect(json.headers['content-length']).toBe(String(Buffer.byteLength(json.body)));
    expect((await both('GET', '/text')).body).toBe('plain');
    expect((await both('GET', '/bytes')).body).toBe('hi');
    expect((await both('GET', '/later')).body).toBe('{"later":true}');
  });

  it('gives handlers the request headers, and a body-less request body', async () => {
    expect(JSON.parse((await both('GET', '/headers', { 'x-one': 'first' })).body)).toEqual({ one: 'first' });
    expect(seen.ours).toEqual(seen.adapter);
    expect(seen.ours).toEqual(['first|first|GET']);
    expect(JSON.parse((await both('GET', '/body')).body)).toEqual({ text: '', used: false });
  });

  it('answers what it hands the adapter alike: a prepared header, a 304, a stream, a handler error, a HEAD, a POST', async () => {
    const prepared = await both('GET', '/prepared');
    expect(prepared.status).toBe(201);
    expect(prepared.headers['x-set']).toBe('before');
    const notModified = await both('GET', '/not-modified');
    expect(notModified.status).toBe(304);
    expect(notModified.body).toBe('');
    expect((await both('GET', '/stream')).body).toBe('part one, part two');
    expect((await both('GET', '/throws')).status).toBe(500);
    expect((await both('HEAD', '/text')).body).toBe('');
    expect(JSON.parse((await both('POST', '/echo', { 'content-type': 'text/plain' }, 'posted')).body)).toEqual({ got: 'posted' });
    expect((await both('GET', '/nowhere')).status).toBe(404);
  });

  it('answers a PUT with a sized body alike, however its handler reads it, or when it does not', async () => {
    const json = { 'content-type': 'application/json' };
    const event = await both('PUT', '/event/7', json, '{"eventType":"t","eventData":{"v":"à"}}');
    expect(event.status).toBe(204);
    expect(event.body).toBe('');
    expect(seen.ours.at(-1)).toBe('PUT 7 {"eventType":"t","eventData":{"v":"à"}}');
    expect(seen.ours.at(-1)).toBe(seen.adapter.at(-1));
    // the listener's own way was taken (its light request), not the adapter's
    expect(made.ours).toBe('LightRequest');
    expect(made.adapter).not.toBe('LightRequest');
    expect(JSON.parse((await both('PUT', '/text', {}, 'some text')).body)).toEqual({ text: 'some text', method: 'PUT' });
    expect(JSON.parse((await both('PUT', '/json', json, '{"a":[1,2]}')).body)).toEqual({ json: { a: [1, 2] } });
    expect(JSON.parse((await both('PUT', '/stream', {}, 'x'.repeat(100_000))).body)).toEqual({ n: 100_000 });
    expect(JSON.parse((await both('PUT', '/read-twice', {}, 'twice')).body)).toEqual({ first: 'twice', again: 'twice' });
    expect((await both('PUT', '/refuse', {}, 'unread')).status).toBe(401);
    expect((await both('PUT', '/refuse-later', {}, 'y'.repeat(200_000))).status).toBe(403);
    expect((await both('PUT', '/fails', {}, 'read')).status).toBe(500);
    expect((await both('PUT', '/null', {}, 'read')).status).toBe(204);
    expect((await both('PUT', '/event/8', {}, '')).status).toBe(204);
    // chunked (no Content-Length): the adapter's way
    expect(JSON.parse((await both('PUT', '/text', {}, ['one, ', 'two'])).body)).toEqual({ text: 'one, two', method: 'PUT' });
  });

  it('keeps a connection after a PUT as the adapter does, its body read or refused unread', async () => {
    const agents = [new Agent({ keepAlive: true, maxSockets: 1 }), new Agent({ keepAlive: true, maxSockets: 1 })];
    try {
      const steps: [string, string, string | undefined][] = [
        ['PUT', '/event/1', '{"n":1}'],
        ['PUT', '/event/2', '{"n":2}'],
        ['PUT', '/refuse', 'z'.repeat(1000)],
        ['GET', '/text', undefined],
        ['PUT', '/refuse-later', 'z'.repeat(1000)],
        ['PUT', '/event/3', '{"n":3}'],
        ['PUT', '/fails', 'read'],
        ['PUT', '/null', 'read'],
        ['GET', '/text', undefined],
      ];
      const answers: Record<string, unknown[]> = { adapter: [], ours: [] };
      for (const [method, target, body] of steps) {
        const [a, o] = await Promise.all([send(adapterPort, method, target, {}, body, agents[0]), send(oursPort, method, target, {}, body, agents[1])]);
        answers.adapter.push(a);
        answers.ours.push(o);
      }
      expect(answers.ours).toEqual(answers.adapter);
      // the positive control: the adapter keeps the connection after a PUT whose body was read
      expect((answers.adapter[1] as { reused: boolean }).reused).toBe(true);
    } finally {
      for (const a of agents) a.destroy();
    }
  });

  it('gives each request of a connection its own URL, when its target or Host differs from the last one', async () => {
    const agents = [new Agent({ keepAlive: true, maxSockets: 1 }), new Agent({ keepAlive: true, maxSockets: 1 })];
    try {
      const steps: [string, string, Record<string, string>][] = [
        ['GET', '/url/a', { host: 'api.test:3000' }],
        ['GET', '/url/a', { host: 'api.test:3000' }],
        ['GET', '/url/b?q=1', { host: 'api.test:3000' }],
        ['GET', '/url/b?q=1', { host: 'example.com:8080' }],
        ['GET', '/url/b?q=1', { host: 'example.com:80' }],
        ['GET', '/url/x/../c', { host: 'example.com:8080' }],
        ['PUT', '/url/x/../c', { host: 'example.com:8080' }],
        ['GET', '/url/b?q=1', { host: 'EXAMPLE.com:8080' }],
        ['GET', '/url/b?q=1', { host: 'example.com:8080' }],
        ['GET', '/url/a', { host: 'api.test:3000' }],
      ];
      const answers: Record<string, unknown[]> = { adapter: [], ours: [] };
      for (const [method, target, headers] of steps) {
        const body = method === 'PUT' ? 'x' : undefined;
        const [a, o] = await Promise.all([
          send(adapterPort, method, target, headers, body, agents[0]),
          send(oursPort, method, target, headers, body, agents[1]),
        ]);
        answers.adapter.push(a);
        answers.ours.push(o);
      }
      expect(answers.ours).toEqual(answers.adapter);
      // the positive controls: one connection carried them all, and the URLs differ as sent
      expect(answers.ours.slice(1).every((a) => (a as { reused: boolean }).reused)).toBe(true);
      const urls = answers.ours.map((a) => (a as Answer).status === 200 && JSON.parse((a as Answer).body).url);
      expect(urls[0]).toBe('http://api.test:3000/url/a');
      expect(urls.slice(1, 6)).toEqual([
        urls[0],
        urls[0].replace('/url/a', '/url/b?q=1'),
        'http://example.com:8080/url/b?q=1',
        'http://example.com/url/b?q=1',
        'http://example.com:8080/url/c',
      ]);
      // a Host in capitals is the adapter's to judge (it refuses it), not the last request's URL
      expect(answers.ours.map((a) => (a as Answer).status).slice(6)).toEqual([404, 400, 200, 200]);
      expect(urls.slice(8)).toEqual(['http://example.com:8080/url/b?q=1', 'http://api.test:3000/url/a']);
    } finally {
      for (const a of agents) a.destroy();
    }
  });

  it('routes an odd target or Host as the adapter does: dot segments resolved, a bad Host or a backslash refused', async () => {
    expect(JSON.parse((await both('GET', '/x/../json/7')).body)).toMatchObject({ id: '7', url: '/json/7' });
    expect(JSON.parse((await both('GET', '/json/%2e%2e/json/8')).body)).toMatchObject({ id: '8' });
    expect((await both('GET', '/json/1', { host: 'bad host' })).status).toBe(400);
    expect((await both('GET', '/json/1', { host: 'example.com:99999' })).status).toBe(400);
    expect((await both('GET', '/json\\1')).status).toBe(400);
    await both('GET', '/json/1', { host: 'EXAMPLE.com:80' });
    await both('GET', '/json/1', { host: 'example.com:80' });
    expect(JSON.parse((await both('GET', '/json/%7Bx%7D?q={y}')).body)).toMatchObject({ q: '{y}' });
  });

  it("aborts a handler's signal when the client goes away before the answer, as the adapter does", async () => {
    const reasons: string[] = [];
    for (const [who, port] of [
      ['adapter', adapterPort],
      ['ours', oursPort],
    ] as const) {
      const req = request({ host: '127.0.0.1', port, path: '/wait-abort' });
      req.on('error', () => {});
      req.end();
      // the handler has its signal once the request reached it
      await expect.poll(() => aborted[who] !== undefined, { timeout: 30_000 }).toBe(true);
      req.destroy();
      reasons.push(await aborted[who]);
    }
    expect(reasons[1]).toBe(reasons[0]);
    expect(reasons[0]).toMatch(/abort|closed/i);
  });
});

describe('the API request listener on an answer it cannot write', () => {
  it('fails that request alone, and serves the next', async () => {
    const a = new Hono();
    a.get('/frozen', (c) => c.body('x', 200, Object.freeze({ 'content-type': 'text/plain' })));
    a.get('/fine', (c) => c.text('fine'));
    const server = createServer(createRequestListener(a.fetch));
    const port = await listening(server);
    const errors: unknown[] = [];
    const logged = console.error;
    console.error = (e: unknown) => void errors.push(e);
    try {
      // the connection may close before the 500 is read: settled by whichever comes first
      const failed = await new Promise<number>((resolve) => {
        const req = request({ host: '127.0.0.1', port, path: '/frozen', agent: false }, (res) => {
          res.on('error', () => resolve(0));
          res.on('close', () => resolve(res.statusCode ?? 0));
          res.resume();
        });
        req.on('error', () => resolve(0));
        req.on('close', () => setImmediate(() => resolve(0)));
        req.end();
      });
      expect([0, 500]).toContain(failed);
      expect(errors).toHaveLength(1);
      expect((await send(port, 'GET', '/fine')).body).toBe('fine');
    } finally {
      console.error = logged;
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});

describe('simpleUrl: the request URL without parsing', () => {
  const incoming = (url: string, host: string | undefined, encrypted = false) =>
    ({ url, headers: host === undefined ? {} : { host }, socket: { encrypted } }) as unknown as IncomingMessage;

  it('is the URL of the common requests', () => {
    expect(simpleUrl(incoming('/devices/1', '127.0.0.1:8080'))).toBe('http://127.0.0.1:8080/devices/1');
    expect(simpleUrl(incoming('/devices?homeId=2&x=%20', 'api.example.com'))).toBe('http://api.example.com/devices?homeId=2&x=%20');
    expect(simpleUrl(incoming('/healthz', 'localhost:3000', true))).toBe('https://localhost:3000/healthz');
  });

  it('is either undefined or exactly what new URL() writes, for targets and hosts of every kind', () => {
    const hosts = [
      'localhost',
      'localhost:3000',
      '127.0.0.1',
      '127.0.0.1:80',
      '127.0.0.1:443',
      '127.1',
      '0x7f.0.0.1',
      '999.1.1.1',
      '1.2.3.04',
      'a.b.1',
      'example.com.',
      'EXAMPLE.com',
      'ex_ample.com',
      'xn--nxasmq6b.com',
      'xn--a.com',
      '-a.com',
      'a-.com',
      'host:0',
      'host:065',
      'host:65535',
      'host:65536',
      '[::1]:8080',
      'a..b',
      'ä.com',
    ];
    const targets = [
      '/',
      '/devices/1',
      '/a/./b',
      '/a/../b',
      '/a/%2e%2E/b',
      '/a/.hidden',
      '/a/b/.',
      '/a b',
      '/a"b',
      '/a<b>',
      '/a`b',
      '/a{b}',
      '/a|b^c',
      '/a[b]',
      '/a\\b',
      '/a#frag',
      "/a?x='y'",
      '/a?x=1?y=2',
      '/a?x=%zz',
      '/%',
      '/a%2Fb',
      '//double',
      '/ä',
      '/a\tb',
      'http://other/x',
      '*',
      "/a!$&'()*+,;=:@~b",
    ];
    let defined = 0;
    for (const encrypted of [false, true])
      for (const host of hosts)
        for (const target of targets) {
          const ours = simpleUrl(incoming(target, host, encrypted));
          if (ours === undefined) continue;
          defined++;
          expect(ours, `${host} ${target}`).toBe(new URL(`${encrypted ? 'https' : 'http'}://${host}${target}`).href);
        }
    // the positive control: many are built without parsing
    expect(defined).toBeGreaterThan(50);
  });

  it('is undefined without a Host, or for a target that is not a path', () => {
    expect(simpleUrl(incoming('/x', undefined))).toBeUndefined();
    expect(simpleUrl(incoming('http://a/x', 'a'))).toBeUndefined();
    expect(simpleUrl(incoming('*', 'a'))).toBeUndefined();
  });
});
