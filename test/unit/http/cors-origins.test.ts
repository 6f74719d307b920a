// HEARTH_CORS_ORIGINS (API.md §0): with a list, a listed Origin is echoed in
// Access-Control-Allow-Origin and every answer carries `Vary: Origin`; any other origin gets no
// Allow-Origin (the browser then refuses to hand the answer to the page). The default `*` stays
// as it was, with no Vary. Checked on the API's real server (EdgeResponse) and through
// app.request() (the answer Hono builds).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHearth, type TestHearth } from '../../helpers/hearth.js';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { createApi } from '../../../src/http/app.js';

const ALLOWED = 'https://app.example.com';
const OTHER = 'https://evil.example.net';

type Get = (path: string, init?: { method?: string; headers?: Record<string, string> }) => Promise<Response>;

function corsCases(name: string, setup: () => Promise<{ get: Get; close: () => Promise<void> }>) {
  describe(name, () => {
    let get: Get;
    let close: () => Promise<void>;
    beforeAll(async () => ({ get, close } = await setup()));
    afterAll(() => close?.());

    it('echoes a listed origin, exposes the API headers, and varies by Origin', async () => {
      const r = await get('/healthz', { headers: { origin: ALLOWED } });
      expect(r.status).toBe(200);
      expect(r.headers.get('access-control-allow-origin')).toBe(ALLOWED);
      expect(r.headers.get('access-control-expose-headers')).toContain('vnd.tinkermode.range');
      expect(r.headers.get('vary')).toMatch(/\bOrigin\b/);
      expect(r.headers.get('x-request-id')).toBeTruthy();
    });

    it('the second listed origin too, and on error answers (404 of an unknown route)', async () => {
      const r = await get('/no/such/route', { headers: { origin: 'http://localhost:5173' } });
      expect(r.status).toBe(404);
      expect(await r.json()).toMatchObject({ reason: 'NOT_FOUND' });
      expect(r.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
      expect(r.headers.get('vary')).toMatch(/\bOrigin\b/);
    });

    it('gives an origin not listed, or none, no Allow-Origin, but still Vary: Origin', async () => {
      for (const headers of [{ origin: OTHER }, {} as Record<string, string>, { origin: `${ALLOWED}.evil.net` }, { origin: 'null' }]) {
        const r = await get('/healthz', { headers });
        expect(r.status).toBe(200);
        expect(r.headers.get('access-control-allow-origin')).toBeNull();
        expect(r.headers.get('access-control-expose-headers')).toBeNull();
        expect(r.headers.get('vary')).toMatch(/\bOrigin\b/);
      }
    });

    it('answers a preflight of a listed origin with the allowed methods; another origin gets none', async () => {
      const ok = await get('/devices/1/kv', { method: 'OPTIONS', headers: { origin: ALLOWED, 'access-control-request-method': 'PUT' } });
      expect(ok.status).toBe(204);
      expect(ok.headers.get('access-control-allow-origin')).toBe(ALLOWED);
      expect(ok.headers.get('access-control-allow-methods')).toContain('PUT');
      expect(ok.headers.get('vary')).toMatch(/\bOrigin\b/);
      const refused = await get('/devices/1/kv', { method: 'OPTIONS', headers: { origin: OTHER, 'access-control-request-method': 'PUT' } });
      expect(refused.headers.get('access-control-allow-origin')).toBeNull();
      expect(refused.headers.get('access-control-allow-methods')).toBeNull();
      expect(refused.headers.get('vary')).toMatch(/\bOrigin\b/);
    });
  });
}

corsCases('a list of origins on the real server', async () => {
  const t: TestHearth = await startTestHearth({ corsOrigins: [ALLOWED, 'http://localhost:5173'] });
  return { get: (path, init) => fetch(t.httpUrl + path, init), close: () => t.close() };
});

corsCases('a list of origins through app.request()', async () => {
  const api: TestApi = await makeTestApi();
  const app = createApi({ ...api.deps, corsOrigins: [ALLOWED, 'http://localhost:5173'] });
  return { get: async (path, init) => app.request(path, init), close: () => api.close() };
});

describe('the default *', () => {
  let t: TestHearth;
  beforeAll(async () => (t = await startTestHearth()));
  afterAll(() => t?.close());

  it('answers every origin with * and adds no Vary', async () => {
    for (const headers of [{ origin: OTHER }, {} as Record<string, string>]) {
      const r = await fetch(`${t.httpUrl}/healthz`, { headers });
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
      expect(r.headers.get('vary')).toBeNull();
    }
    const pre = await fetch(`${t.httpUrl}/devices/1/kv`, { method: 'OPTIONS', headers: { origin: OTHER, 'access-control-request-method': 'PUT' } });
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
  });
});
