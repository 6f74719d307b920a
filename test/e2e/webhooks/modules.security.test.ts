// Who may touch modules and where webhooks may point: the SSRF rules of docs/webhooks.md at
// registration, keys sealed at rest, scopes, and another project's or home's modules reported
// as not existing.
import { describe, expect, it } from 'vitest';
import { makeHarness } from './harness.js';
import { startReceiver, waitFor } from './receiver.js';
import { hashToken } from '../../../src/domain/auth/tokens.js';
import { generateToken } from '../../helpers/credentials.js';

describe('webhook targets (allowPrivateTargets off)', () => {
  it.each([
    'http://127.0.0.1:8080/hook',
    'http://localhost/hook',
    'http://10.1.2.3/hook',
    'http://192.168.0.10/hook',
    'http://172.16.0.1/hook',
    'http://169.254.169.254/latest/meta-data',
    'http://100.64.0.1/hook',
    'http://0.0.0.0/hook',
    'http://[::1]/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://[fd00::1]/hook',
    'http://[fe80::1]/hook',
    'http://224.0.0.1/hook',
    'http://2130706433/hook',
  ])('refuses %s at registration with 403', async (url) => {
    const h = await makeHarness({ allowPrivateTargets: false, startWorker: false });
    const r = await h.t.req('POST', '/projects/1/smartModules', { token: h.t.adminKey, body: { id: 'ssrf', eventWebhook: { url } } });
    expect(r.status).toBe(403);
    expect(r.body.reason).toBe('INVALID_PARAMETERS');
    expect(r.body.data.issues[0]).toMatchObject({ path: 'eventWebhook.url', code: 'TARGET_NOT_ALLOWED' });
  });

  it('refuses a private command webhook and a PATCH to a private URL', async () => {
    const h = await makeHarness({ allowPrivateTargets: false, startWorker: false });
    const c = await h.t.req('POST', '/projects/1/smartModules', { token: h.t.adminKey, body: { id: 'ssrf', commandWebhook: { url: 'http://127.0.0.1/c' } } });
    expect(c.status).toBe(403);
    expect(c.body.data.issues[0].path).toBe('commandWebhook.url');
    // a public address literal needs no DNS to be accepted
    await h.createModule({ id: 'public', eventWebhook: { url: 'http://93.184.215.14/hook' } });
    const p = await h.t.req('PATCH', '/projects/1/smartModules/public', { token: h.t.adminKey, body: { eventWebhook: { url: 'http://[::ffff:7f00:1]/' } } });
    expect(p.status).toBe(403);
    expect(p.body.data.issues[0].code).toBe('TARGET_NOT_ALLOWED');
  });
});

describe('keys at rest', () => {
  it('keeps webhook keys sealed in the store, never in plain text', async () => {
    const h = await makeHarness({ startWorker: false });
    const m = await h.createModule({ id: 'sealed', eventWebhook: { url: 'http://127.0.0.1:9/' }, commandWebhook: { url: 'http://127.0.0.1:9/' } });
    const { sql } = await import('kysely');
    const store = h.t.deps.store as unknown as { sql: { db: any } };
    const rows = await sql<Record<string, string>>`select * from modules`.execute(store.sql.db);
    const dump = JSON.stringify(rows.rows);
    expect(dump).not.toContain(m.eventWebhook.key);
    expect(dump).not.toContain(m.commandWebhook.key);
    expect(dump).not.toContain(m.eventWebhook.key.slice(4));
  });
});

describe('who may manage modules', () => {
  it('needs a project key with scope modules (or admin)', async () => {
    const h = await makeHarness({ startWorker: false });
    const noScope = await h.projectKey(['devices']);
    const r = await h.t.req('POST', '/projects/1/smartModules', { token: noScope, body: { id: 'nope' } });
    expect(r.status).toBe(403);
    expect(r.body.reason).toBe('PERMISSION_DENIED');
    const scoped = await h.projectKey(['modules']);
    expect((await h.t.req('POST', '/projects/1/smartModules', { token: scoped, body: { id: 'yes' } })).status).toBe(201);
    expect((await h.t.req('GET', '/projects/1/smartModules/yes/deliveries', { token: noScope })).status).toBe(403);
  });

  it('refuses users and devices', async () => {
    const h = await makeHarness({ startWorker: false });
    const user = await h.userToken();
    for (const token of [user, h.deviceKey]) {
      const r = await h.t.req('GET', '/projects/1/smartModules', { token });
      expect(r.status).toBe(403);
      expect(r.body.reason).toBe('PERMISSION_DENIED');
    }
  });

  it("reports another project's modules, homes and deliveries as not existing", async () => {
    const h = await makeHarness({ startWorker: false });
    await h.createModule({ id: 'mine', commandWebhook: { url: 'http://127.0.0.1:9/' } });
    const store = h.t.deps.store;
    const now = new Date().toISOString();
    const p2 = await store.projects.create({ name: 'other', creationTime: now });
    const otherKey = generateToken('pk.');
    await store.apiKeys.create({ id: 'other-admin', projectId: p2.id, name: 'admin', scopes: ['admin'], keyHash: hashToken(otherKey), creationTime: now });
    const otherHome = await store.homes.create({ projectId: p2.id, name: 'theirs', creationTime: now });
    for (const [method, path, reason] of [
      ['GET', '/projects/1/smartModules', 'PROJECT_NOT_FOUND'],
      ['GET', '/projects/1/smartModules/mine', 'PROJECT_NOT_FOUND'],
      ['GET', '/projects/1/smartModules/mine/deliveries', 'PROJECT_NOT_FOUND'],
      ['GET', `/homes/${h.homeId}/smartModules`, 'HOME_NOT_FOUND'],
      ['PUT', `/homes/${h.homeId}/smartModules/mine/command`, 'HOME_NOT_FOUND'],
      ['PUT', `/homes/${otherHome.id}/smartModules/mine/command`, 'MODULE_NOT_FOUND'],
    ] as const) {
      const r = await h.t.req(method, path, { token: otherKey, body: method === 'PUT' ? { action: 'goo' } : undefined });
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.body.reason).toBe(reason);
    }
  });
});

describe('who may trigger commands', () => {
  it('a member of the home, named as originUserId in the body', async () => {
    const h = await makeHarness();
    const rx = await startReceiver();
    const m = await h.createModule({ id: 'cmd', commandWebhook: { url: rx.url } });
    rx.trust(m.commandWebhook.key);
    const member = await h.userToken(true);
    expect((await h.t.req('PUT', `/homes/${h.homeId}/smartModules/cmd/command`, { token: member, body: { action: 'open' } })).status).toBe(204);
    await waitFor(() => rx.received.length === 1);
    expect(rx.received[0].verified).toBe(true);
    expect(rx.received[0].body.originUserId).toEqual(expect.any(Number));
    expect(rx.received[0].body).not.toHaveProperty('originProjectKeyID');
  });

  it('not a user outside the home, nor a device, nor a key without scope commands', async () => {
    const h = await makeHarness({ startWorker: false });
    await h.createModule({ id: 'cmd', commandWebhook: { url: 'http://127.0.0.1:9/' } });
    const outsider = await h.userToken(false);
    const path = `/homes/${h.homeId}/smartModules/cmd/command`;
    const o = await h.t.req('PUT', path, { token: outsider, body: { action: 'open' } });
    expect(o.status).toBe(404);
    expect(o.body.reason).toBe('HOME_NOT_FOUND');
    expect((await h.t.req('PUT', path, { token: h.deviceKey, body: { action: 'open' } })).status).toBe(403);
    expect((await h.t.req('PUT', path, { token: await h.projectKey(['events']), body: { action: 'open' } })).status).toBe(403);
    expect(await h.deliveries('cmd')).toHaveLength(0);
  });
});
