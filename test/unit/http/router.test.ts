// The app's router (src/http/edge/router.ts): Hono's RegExpRouter, never the TrieRouter that
// Hono's SmartRouter falls back to, silently, when one route has a literal segment where another
// of the same method has a parameter. Such a literal is folded into the parameter; the paths
// clients use, the 405 lists and /openapi.json keep the routes' own paths. And a 204 from the
// API's own server carries no Content-Type and no Content-Length (src/http/no-content.ts).
import { request as httpRequest } from 'node:http';
import { Hono } from 'hono';
import type { RouterRoute } from 'hono/types';
import { RegExpRouter } from 'hono/router/reg-exp-router';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FoldingRouter } from '../../../src/http/edge/router.js';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { startTestHearth, type TestHearth } from '../../helpers/hearth.js';

describe("the API's router", () => {
  let t: TestApi;
  beforeAll(async () => {
    t = await makeTestApi();
  });
  afterAll(() => t.close());

  it('is the RegExpRouter, its route set accepted whole', () => {
    expect(t.app.router.name).toBe('RegExpRouter');
    expect(t.app.router).toBeInstanceOf(FoldingRouter);
  });

  it('still has a route set the plain RegExpRouter refuses (the fold is what takes it)', () => {
    // the positive control of the test above: without the fold this route set would fall back
    const plain = new RegExpRouter<number>();
    expect(() => {
      for (const r of t.app.routes) plain.add(r.method, r.path, 0);
      plain.match('GET', '/');
    }).toThrow(/smartModules/);
  });

  it('answers the folded literal, the parameter routes beside it, and 405 for a value no route has', async () => {
    const preview = await t.req('POST', '/projects/1/smartModules/templatePreview', {
      token: t.adminKey,
      body: { event: { eventType: 'x', eventData: {}, timestamp: '2026-11-25T00:00:00.000Z', homeId: 1, originDeviceId: 1 } },
    });
    expect(preview.status).toBe(200);
    expect(typeof preview.body.body).toBe('string');
    // a module id where the literal was: no POST route has that path (the folded one must not take it)
    const other = await t.req('POST', '/projects/1/smartModules/some-module', { token: t.adminKey, body: {} });
    expect(other.status).toBe(405);
    expect(other.body.data.allowed.sort()).toEqual(['DELETE', 'GET', 'HEAD', 'PATCH']);
    // the parameter route beside the literal: reached, and it looks the module up
    const keys = await t.req('POST', '/projects/1/smartModules/some-module/keys', { token: t.adminKey, body: {} });
    expect(keys.status).toBe(404);
    expect(keys.body.reason).toBe('MODULE_NOT_FOUND');
  });
});

describe('FoldingRouter', () => {
  const app = (order: 'literal first' | 'parameter first') => {
    const a = new Hono({ router: new FoldingRouter<RouterRoute>() });
    const literal = () => a.get('/a/:p/me', (c) => c.text(`me ${c.req.param('p')}`));
    const param = () => a.get('/a/:p/:q', (c) => c.text(`q ${c.req.param('p')} ${c.req.param('q')}`));
    if (order === 'literal first') {
      literal();
      param();
    } else {
      param();
      literal();
    }
    a.post('/a/:p/only', (c) => c.text('only'));
    a.post('/a/:p/:q/deeper', (c) => c.text(`deeper ${c.req.param('q')}`));
    return a;
  };

  it('routes a literal beside a parameter as the routes were added, under RegExpRouter', async () => {
    const first = app('literal first');
    expect(await (await first.request('/a/1/me')).text()).toBe('me 1');
    expect(await (await first.request('/a/1/you')).text()).toBe('q 1 you');
    // added after the parameter route, the literal is never reached: as Hono's other routers do
    expect(await (await app('parameter first').request('/a/1/me')).text()).toBe('q 1 me');
  });

  it('falls through to not-found when the value is no literal and no route has the parameter there', async () => {
    const a = app('literal first');
    expect(await (await a.request('/a/1/only', { method: 'POST' })).text()).toBe('only');
    expect(await (await a.request('/a/1/x/deeper', { method: 'POST' })).text()).toBe('deeper x');
    expect((await a.request('/a/1/other', { method: 'POST' })).status).toBe(404);
  });

  it('matches by first segment what one router would: literal, parameter and wildcard first segments, in the order added', async () => {
    const a = new Hono({ router: new FoldingRouter<RouterRoute>() });
    // a parameter first segment (under a method of its own: the fold would take a literal beside it)
    a.put('/:any/info', (c, next) => (c.req.param('any') === 'skip' ? next() : c.text(`any ${c.req.param('any')}`)));
    a.get('/x/:id/more', (c) => c.text(`more ${c.req.param('id')}`));
    a.get('/x/:id', (c) => c.text(`x ${c.req.param('id')}`));
    a.get('/y', (c) => c.text('y'));
    a.get('/y.json', (c) => c.text('y.json'));
    a.get('/', (c) => c.text('root'));
    a.get('/z/*', (c) => c.text(`z ${c.req.path}`));
    a.post('/x/:id', (c) => c.text(`post x ${c.req.param('id')}`));
    const cases: [path: string, method: string, answer: string | number][] = [
      // in every first segment's router, and in the one of the first segments no route has
      ['/x/info', 'PUT', 'any x'],
      ['/w/info', 'PUT', 'any w'],
      ['/skip/info', 'PUT', 404],
      ['/x/info', 'GET', 'x info'],
      ['/x/7/more', 'GET', 'more 7'],
      ['/x/7', 'GET', 'x 7'],
      ['/x/7', 'POST', 'post x 7'],
      ['/y', 'GET', 'y'],
      ['/y.json', 'GET', 'y.json'],
      ['/y/', 'GET', 404],
      ['/', 'GET', 'root'],
      ['/z/a/b', 'GET', 'z /z/a/b'],
      // a first segment no route has, and a method no route of that segment has
      ['/nothing/here', 'GET', 404],
      ['/y', 'POST', 404],
    ];
    // Hono's own RegExpRouter over the same routes: the same answers
    const plain = new Hono({ router: new RegExpRouter() });
    for (const r of a.routes) plain.on(r.method, r.path, r.handler);
    for (const [path, method, answer] of cases) {
      for (const app of [a, plain]) {
        const r = await app.request(path, { method });
        expect([path, method, r.status === 200 ? await r.text() : r.status]).toEqual([path, method, answer]);
      }
    }
  });

  it('throws when the app is built, not at a request, for a route set RegExpRouter still refuses', () => {
    const r = new FoldingRouter<RouterRoute>();
    const a = new Hono({ router: r });
    a.get('/b/:x{[0-9]+}', (c) => c.text('digits'));
    a.get('/b/name', (c) => c.text('name'));
    expect(() => r.build()).toThrow();
  });
});

describe('a 204 from the API server', () => {
  let h: TestHearth;
  beforeAll(async () => {
    h = await startTestHearth();
  });
  afterAll(() => h.close());

  it('has the edge headers and neither Content-Type nor Content-Length', async () => {
    const head = await new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
      const body = JSON.stringify({ eventType: 'router-test', eventData: {} });
      const req = httpRequest(
        `${h.httpUrl}/devices/${h.device.id}/event`,
        {
          method: 'PUT',
          headers: { authorization: `ModeCloud ${h.device.key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    expect(head.status).toBe(204);
    expect(head.headers['x-request-id']).toMatch(/.+/);
    expect(head.headers['access-control-allow-origin']).toBe('*');
    expect(head.headers['content-type']).toBeUndefined();
    expect(head.headers['content-length']).toBeUndefined();
    expect(head.body).toBe('');
  });
});
