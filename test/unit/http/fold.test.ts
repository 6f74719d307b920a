// Each route reaches the router as one handler: the edge around op()'s admission around the
// route's one handler (src/http/edge/). These routes are built here to reach what Hearth's own
// routes do not use today: a handler that calls next(), and two routes matching one path. Each
// must answer as Hono's compose would, with the edge run once. A route of more handlers is
// refused when it is mounted (house rule 6: the handler inline after the path).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { createEdge } from '../../../src/http/edge/index.js';
import { op } from '../../../src/http/op.js';
import { onError } from '../../../src/http/errors.js';
import { createHttpMetrics } from '../../../src/http/metrics.js';
import { AppError } from '../../../src/domain/errors.js';
import type { HttpEnv } from '../../../src/http/env.js';

const open = { authenticated: false, tag: 't', statuses: [404, 500], success: 200, summary: 's' } as const;

describe('routes folded under the edge', () => {
  let t: TestApi;
  let app: Hono<HttpEnv>;
  const metrics = createHttpMetrics();
  const count = async (route: string) => {
    const m = new RegExp(`hearth_http_request_duration_seconds_count\\{route="${route}",method="GET"\\} (\\d+)`).exec(await metrics.registry.metrics());
    return m ? Number(m[1]) : 0;
  };

  beforeAll(async () => {
    t = await makeTestApi();
    const edge = createEdge({ ...t.deps, metrics });
    app = new Hono<HttpEnv>();
    app.on(
      'GET',
      '/one',
      edge.route([
        op({ ...open, operationId: 'one' }),
        (c) => {
          c.header('x-step', 'one');
          return c.json({ caller: c.get('caller').type, op: c.get('op')?.operationId });
        },
      ]),
    );
    app.on(
      'GET',
      '/throws',
      edge.route([
        op({ ...open, operationId: 'throws' }),
        async () => {
          throw new AppError('DEVICE_NOT_FOUND', { deviceId: 7 });
        },
      ]),
    );
    app.on('GET', '/passes', edge.route([op({ ...open, operationId: 'passes' }), (_c, next) => next()]));
    // two patterns for one path: the first hands over with next(), the second answers
    app.on('GET', '/both/:x', edge.route([op({ ...open, operationId: 'first' }), (_c, next) => next()]));
    app.on('GET', '/both/b', edge.route([op({ ...open, operationId: 'second' }), (c) => c.json({ second: true, x: c.req.param('x') ?? null })]));
    app.notFound(edge.notFound((c) => c.json({ reason: 'NOT_FOUND', path: c.req.path }, 404)));
    app.onError(onError);
  });
  afterAll(() => t.close());

  it("runs the handler after op(), the headers it sets kept beside the edge's", async () => {
    const r = await app.request('/one');
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ caller: 'nobody', op: 'one' });
    expect(r.headers.get('x-step')).toBe('one');
    expect(r.headers.get('x-request-id')).toMatch(/^[A-Za-z0-9._-]+$/);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    expect(await count('one')).toBe(1);
  });

  it("answers a handler's error through onError, with the edge's headers", async () => {
    const r = await app.request('/throws');
    expect(r.status).toBe(404);
    expect(await r.json()).toEqual({ reason: 'DEVICE_NOT_FOUND', data: { deviceId: 7 } });
    expect(r.headers.get('x-request-id')).toMatch(/.+/);
    expect(await count('throws')).toBe(1);
  });

  it('gives the not-found answer to a route that calls next(), without a second edge', async () => {
    const r = await app.request('/passes', { headers: { 'x-request-id': 'given-1' } });
    expect(r.status).toBe(404);
    expect(await r.json()).toEqual({ reason: 'NOT_FOUND', path: '/passes' });
    expect(r.headers.get('x-request-id')).toBe('given-1');
    expect(await count('passes')).toBe(1);
  });

  it('runs a second matching route after the first hands over, the edge once around both', async () => {
    const r = await app.request('/both/b', { headers: { 'x-request-id': 'given-2' } });
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ second: true, x: null });
    expect(r.headers.get('x-request-id')).toBe('given-2');
    // counted once, under the operation that answered
    expect(await count('second')).toBe(1);
    expect(await count('first')).toBe(0);
  });

  it('answers a path no route has with the edge around the not-found answer', async () => {
    const r = await app.request('/nowhere');
    expect(r.status).toBe(404);
    expect(r.headers.get('x-request-id')).toMatch(/.+/);
    expect(await count('unmatched')).toBe(1);
  });

  it('refuses to mount a route without op() first', () => {
    const edge = createEdge(t.deps);
    expect(() => edge.route([(c) => c.json({})])).toThrow(/op\(\)/);
  });

  it('refuses to mount a route of more than one handler after op(), or none', () => {
    const edge = createEdge(t.deps);
    expect(() => edge.route([op({ ...open, operationId: 'x' }), async (_c, next) => next(), (c) => c.json({})])).toThrow(/one handler/);
    expect(() => edge.route([op({ ...open, operationId: 'x' })])).toThrow(/one handler/);
  });
});
