// Module settings that are refused when saved (docs/webhooks.md, docs/webhooks.md#templates (rule 8)): malformed ids, URLs and
// templates (with the position of the error), reserved headers, duplicates; and the 404s.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeHarness, type Harness } from './harness.js';
import { runCommonRouteTests } from '../../helpers/auth-cases.js';
import { makeTestApi, type TestApi } from '../../helpers/api.js';

const issues = (body: any): { path: string; message: string; position?: number }[] => body?.data?.issues ?? [];

describe('module settings refused when saved', () => {
  it.each([
    ['too short', 'ab'],
    ['uppercase', 'Hooks'],
    ['ends with a dash', 'hooks-'],
    ['starts with an underscore', '_hooks'],
    ['a space', 'my hooks'],
    ['not a string', 42],
  ])('refuses an id that is %s', async (_why, id) => {
    const h = await makeHarness({ startWorker: false });
    const r = await h.t.req('POST', '/projects/1/smartModules', { token: h.t.adminKey, body: { id } });
    expect(r.status).toBe(403);
    expect(r.body.reason).toBe('INVALID_PARAMETERS');
    expect(issues(r.body)[0].path).toBe('id');
  });

  it('refuses a second module with the same id', async () => {
    const h = await makeHarness({ startWorker: false });
    await h.createModule({ id: 'twice' });
    const r = await h.t.req('POST', '/projects/1/smartModules', { token: h.t.adminKey, body: { id: 'twice' } });
    expect(r.status).toBe(403);
    expect(r.body.reason).toBe('ALREADY_EXISTS');
  });

  it.each([
    ['not a URL', 'nope'],
    ['an ftp URL', 'ftp://127.0.0.1/x'],
    ['a file URL', 'file:///etc/passwd'],
  ])('refuses a webhook URL that is %s', async (_why, url) => {
    const h = await makeHarness({ startWorker: false });
    const r = await h.t.req('POST', '/projects/1/smartModules', { token: h.t.adminKey, body: { id: 'bad-url', eventWebhook: { url } } });
    expect(r.status).toBe(403);
    expect(r.body.reason).toBe('INVALID_PARAMETERS');
    expect(issues(r.body)[0].path).toBe('eventWebhook.url');
  });

  it('refuses a malformed body template with the position of the error', async () => {
    const h = await makeHarness({ startWorker: false });
    const r = await h.t.req('POST', '/projects/1/smartModules', {
      token: h.t.adminKey,
      body: { id: 'tmpl', eventWebhook: { url: 'http://127.0.0.1:9/', body: '{"a": {{ eventData..x }}}' } },
    });
    expect(r.status).toBe(403);
    expect(r.body.reason).toBe('INVALID_PARAMETERS');
    const [issue] = issues(r.body);
    expect(issue.path).toBe('eventWebhook.body');
    // the second dot of `eventData..x`
    expect(issue.position).toBe(19);
    expect(issue.message).toContain('position 19');
  });

  it('refuses an unclosed tag in a header value, naming the header', async () => {
    const h = await makeHarness({ startWorker: false });
    const r = await h.t.req('POST', '/projects/1/smartModules', {
      token: h.t.adminKey,
      body: { id: 'tmpl', eventWebhook: { url: 'http://127.0.0.1:9/', headers: { 'X-Type': 'type {{ eventType' } } },
    });
    expect(r.status).toBe(403);
    const [issue] = issues(r.body);
    expect(issue.path).toBe('eventWebhook.headers.X-Type');
    expect(issue.position).toBe(5);
  });

  it('refuses a broken template on PATCH and keeps the module as it was', async () => {
    const h = await makeHarness({ startWorker: false });
    await h.createModule({ id: 'kept', eventWebhook: { url: 'http://127.0.0.1:9/', body: '{"t": "{{eventType}}"}' } });
    const r = await h.t.req('PATCH', '/projects/1/smartModules/kept', { token: h.t.adminKey, body: { eventWebhook: { body: '{"t": "{{eventData[}}"}' } } });
    expect(r.status).toBe(403);
    expect(issues(r.body)[0].path).toBe('eventWebhook.body');
    const g = await h.t.req('GET', '/projects/1/smartModules/kept', { token: h.t.adminKey });
    expect(g.body.eventWebhook.body).toBe('{"t": "{{eventType}}"}');
  });

  it.each(['X-Service-Signature', 'x-mode-signature', 'X-SERVICE-DELIVERY'])('refuses a template for the service header %s', async (name) => {
    const h = await makeHarness({ startWorker: false });
    const r = await h.t.req('POST', '/projects/1/smartModules', {
      token: h.t.adminKey,
      body: { id: 'forger', eventWebhook: { url: 'http://127.0.0.1:9/', headers: { [name]: 'x' } } },
    });
    expect(r.status).toBe(403);
    expect(issues(r.body)[0].path).toBe(`eventWebhook.headers.${name}`);
  });

  it('refuses subscriptions that are not event types', async () => {
    const h = await makeHarness({ startWorker: false });
    const r = await h.t.req('POST', '/projects/1/smartModules', {
      token: h.t.adminKey,
      body: { id: 'subs', eventWebhook: { url: 'http://127.0.0.1:9/', subscriptions: 'ok\nnot ok' } },
    });
    expect(r.status).toBe(403);
    expect(issues(r.body)[0].path).toBe('eventWebhook.subscriptions');
  });

  it('refuses adding a webhook by PATCH without a url, and rotating keys of a module without webhooks', async () => {
    const h = await makeHarness({ startWorker: false });
    await h.createModule({ id: 'bare' });
    const p = await h.t.req('PATCH', '/projects/1/smartModules/bare', { token: h.t.adminKey, body: { eventWebhook: { subscriptions: 'a' } } });
    expect(p.status).toBe(403);
    expect(issues(p.body)[0].path).toBe('eventWebhook.url');
    const k = await h.t.req('POST', '/projects/1/smartModules/bare/keys', { token: h.t.adminKey });
    expect(k.status).toBe(403);
    expect(k.body.reason).toBe('INVALID_PARAMETERS');
  });
});

describe('what does not exist', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await makeHarness({ startWorker: false, cleanup: 'caller' });
  }, 30_000);
  afterAll(() => h?.close());

  it.each([
    ['GET', '/projects/1/smartModules/nope', 'MODULE_NOT_FOUND'],
    ['PATCH', '/projects/1/smartModules/nope', 'MODULE_NOT_FOUND'],
    ['DELETE', '/projects/1/smartModules/nope', 'MODULE_NOT_FOUND'],
    ['POST', '/projects/1/smartModules/nope/keys', 'MODULE_NOT_FOUND'],
    ['GET', '/projects/1/smartModules/nope/deliveries', 'MODULE_NOT_FOUND'],
    ['GET', '/projects/1/smartModules/NOPE', 'MODULE_NOT_FOUND'],
    ['GET', '/projects/x/smartModules', 'PROJECT_NOT_FOUND'],
    ['GET', '/projects/2/smartModules', 'PROJECT_NOT_FOUND'],
    ['GET', '/homes/999/smartModules', 'HOME_NOT_FOUND'],
    ['GET', '/homes/abc/smartModules', 'HOME_NOT_FOUND'],
  ])('%s %s → 404 %s', async (method, path, reason) => {
    const r = await h.t.req(method, path, { token: h.t.adminKey, body: method === 'GET' || method === 'DELETE' ? undefined : {} });
    expect(r.status).toBe(404);
    expect(r.body.reason).toBe(reason);
  });

  it('answers 404 for an unknown delivery of an existing module', async () => {
    await h.createModule({ id: 'exists' });
    const r = await h.t.req('GET', '/projects/1/smartModules/exists/deliveries/none', { token: h.t.adminKey });
    expect(r.status).toBe(404);
    const rd = await h.t.req('POST', '/projects/1/smartModules/exists/deliveries/none/redeliver', { token: h.t.adminKey });
    expect(rd.status).toBe(404);
  });

  it('refuses a bad status filter on the delivery log', async () => {
    await h.createModule({ id: 'filtered' });
    const r = await h.t.req('GET', '/projects/1/smartModules/filtered/deliveries?status=lost', { token: h.t.adminKey });
    expect(r.status).toBe(403);
    expect(r.body.reason).toBe('INVALID_PARAMETERS');
  });
});

describe('command trigger errors', () => {
  it('answers 404 MODULE_NOT_FOUND when the module or its command webhook does not exist', async () => {
    const h = await makeHarness({ startWorker: false });
    await h.createModule({ id: 'events-only', eventWebhook: { url: 'http://127.0.0.1:9/' } });
    for (const id of ['missing', 'events-only']) {
      const r = await h.t.req('PUT', `/homes/${h.homeId}/smartModules/${id}/command`, { token: h.t.adminKey, body: { action: 'go' + 'o' } });
      expect(r.status).toBe(404);
      expect(r.body.reason).toBe('MODULE_NOT_FOUND');
    }
    // a home id is an id like any other (domain/id.ts): past the SQL integer range names nothing
    for (const [homeId, named] of [
      ['999', 999],
      ['99999999999', '99999999999'],
      ['0', '0'],
      ['abc', 'abc'],
    ]) {
      const r = await h.t.req('PUT', `/homes/${homeId}/smartModules/events-only/command`, { token: h.t.adminKey, body: { action: 'goo' } });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ reason: 'HOME_NOT_FOUND', data: { homeId: named } });
    }
  });

  it('refuses an action that breaks the docs/concepts.md#commands pattern and parameters that are not an object', async () => {
    const h = await makeHarness({ startWorker: false });
    await h.createModule({ id: 'cmd', commandWebhook: { url: 'http://127.0.0.1:9/' } });
    for (const body of [{ action: 'Go!' }, {}, { action: 'goo', parameters: [1] }]) {
      const r = await h.t.req('PUT', `/homes/${h.homeId}/smartModules/cmd/command`, { token: h.t.adminKey, body });
      expect(r.status).toBe(403);
      expect(r.body.reason).toBe('INVALID_PARAMETERS');
    }
    expect(await h.deliveries('cmd')).toHaveLength(0);
  });
});

describe('credentials', () => {
  let t: TestApi;
  beforeAll(async () => {
    t = await makeTestApi();
  });
  const routes: [string, string][] = [
    ['GET', '/projects/1/smartModules'],
    ['POST', '/projects/1/smartModules'],
    ['GET', '/projects/1/smartModules/m-1'],
    ['PATCH', '/projects/1/smartModules/m-1'],
    ['DELETE', '/projects/1/smartModules/m-1'],
    ['POST', '/projects/1/smartModules/m-1/keys'],
    ['GET', '/projects/1/smartModules/m-1/deliveries'],
    ['GET', '/projects/1/smartModules/m-1/deliveries/d1'],
    ['POST', '/projects/1/smartModules/m-1/deliveries/d1/redeliver'],
    ['GET', '/homes/1/smartModules'],
    ['PUT', '/homes/1/smartModules/m-1/command'],
  ];
  afterAll(() => t.close());
  for (const [method, path] of routes) {
    describe(`${method} ${path}`, () => runCommonRouteTests(() => t, { method, path: () => path, body: method === 'GET' ? undefined : () => ({}) }));
  }
});
