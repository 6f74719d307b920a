// Issue 15: MODE's own app and device libraries work unchanged. Each test speaks exactly as those
// clients do on the wire (written from their behaviour, not their code): the app library's login
// posted as a browser FormData (multipart/form-data), its self-signup with no credential, home
// members added by email, the Go device SDK's event without eventData over MQTT. Against the real
// server on loopback, with SQLite and (when HEARTH_TEST_DATABASE_URL is set) PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request as httpRequest } from 'node:http';
import { randomBytes } from 'node:crypto';
import { startTestHearth, type TestHearth } from '../helpers/hearth.js';
import { dropSchema, freshSchemaName, testDatabaseUrl } from '../helpers/db.js';
import { mqttConnect } from './broker/clients.js';
import { eventually } from '../helpers/wait.js';
import { seedProject } from '../helpers/store-seed.js';

const backends: [string, () => { databaseUrl: string | null; databaseSchema: string | null }][] = [
  ['sqlite', () => ({ databaseUrl: null, databaseSchema: null })],
];
if (testDatabaseUrl) backends.push(['postgres', () => ({ databaseUrl: testDatabaseUrl!, databaseSchema: freshSchemaName() })]);

/** a browser's FormData as it goes on the wire (what Chromium and Firefox send), written by hand */
function browserFormData(fields: [string, string][], boundary = `----WebKitFormBoundary${randomBytes(12).toString('base64url').slice(0, 16)}`) {
  let body = '';
  for (const [name, value] of fields) body += `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  body += `--${boundary}--\r\n`;
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

interface Answer {
  status: number;
  body: any;
  headers: Record<string, string | string[] | undefined>;
}

/** one HTTP request from a chosen local address (127.0.0.x: each its own client IP) */
function from(
  t: TestHearth,
  localAddress: string,
  method: string,
  path: string,
  opts: { body?: string | Buffer; headers?: Record<string, string> } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: t.httpPort, method, path, localAddress, headers: opts.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        let body: unknown = text;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          // not JSON
        }
        resolve({ status: res.statusCode!, body, headers: res.headers });
      });
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

const json = (body: unknown, token?: string) => ({
  body: JSON.stringify(body),
  headers: { 'content-type': 'application/json', ...(token ? { authorization: `ModeCloud ${token}` } : {}) },
});

describe.each(backends)('MODE clients against Hearth (%s)', (_name, backend) => {
  let t: TestHearth;
  const storage = backend();
  let addressSeq = 2;
  /** a client address no other test of this file uses */
  const freshAddress = () => `127.0.0.${addressSeq++}`;
  const local = '127.0.0.1';

  beforeAll(async () => {
    t = await startTestHearth({
      ...storage,
      authThrottle: { enabled: true, accountFreeFailures: 3, clientFreeFailures: 5, baseDelaySeconds: 1, maxDelaySeconds: 900, windowSeconds: 3600 },
    });
  });
  afterAll(async () => {
    await t?.close();
    if (storage.databaseUrl && storage.databaseSchema) await dropSchema(storage.databaseUrl, storage.databaseSchema);
  });

  /** the app's self-signup: POST /users {projectId, name, email, password}, no credential */
  const signUp = async (address = local, extra: Record<string, unknown> = {}) => {
    const email = `app-${randomBytes(5).toString('hex')}@example.com`;
    const password = 'correct horse battery';
    const r = await from(t, address, 'POST', '/users', json({ projectId: 1, name: 'App User', email, password, ...extra }));
    return { r, email, password };
  };

  describe('break 2: app login posted as a browser FormData', () => {
    it('signs in with a multipart/form-data body encoded as a browser does, and keeps the appId', async () => {
      const { r: created, email, password } = await signUp();
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const form = browserFormData([
        ['email', email],
        ['password', password],
        ['projectId', '1'],
        ['appId', 'controller'],
      ]);
      const login = await from(t, local, 'POST', '/auth/user', { body: form.body, headers: { 'content-type': form.contentType } });
      expect(login.status, JSON.stringify(login.body)).toBe(200);
      expect(login.body).toEqual({ userId: created.body.id, token: expect.stringMatching(/^ut\./), expirationTime: expect.any(String) });
      // break 6: the session carries the appId given at login
      const session = await t.http('GET', '/userSession', { token: login.body.token });
      expect(session.body).toEqual({
        userId: created.body.id,
        projectId: 1,
        appId: 'controller',
        creationTime: expect.any(String),
        expirationTime: login.body.expirationTime,
      });
    });

    it("signs in with Node's own FormData and Request (the body a fetch of a FormData sends)", async () => {
      const { email, password } = await signUp();
      const fd = new FormData();
      fd.append('email', email);
      fd.append('password', password);
      fd.append('projectId', '1');
      fd.append('appId', 'controller');
      const req = new Request(`${t.httpUrl}/auth/user`, { method: 'POST', body: fd });
      expect(req.headers.get('content-type')).toMatch(/^multipart\/form-data; boundary=/);
      const res = await fetch(req);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { token: string }).token).toMatch(/^ut\./);
    });

    it('refuses a file part in a login form cleanly, and a broken multipart body', async () => {
      const fd = new FormData();
      fd.append('email', 'someone@example.com');
      fd.append('password', new Blob(['secret']), 'password.txt');
      fd.append('projectId', '1');
      const res = await fetch(`${t.httpUrl}/auth/user`, { method: 'POST', body: fd });
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({
        reason: 'INVALID_PARAMETERS',
        data: { issues: [{ path: 'password', message: 'password must be a text field, not a file' }] },
      });
      const broken = await from(t, local, 'POST', '/auth/user', {
        body: '--nope\r\nnot a form',
        headers: { 'content-type': 'multipart/form-data; boundary=other' },
      });
      expect(broken.status).toBe(403);
      expect(broken.body.reason).toBe('INVALID_PARAMETERS');
    });

    it('applies the body size limit to multipart bodies too', async () => {
      const form = browserFormData([
        ['email', 'big@example.com'],
        ['password', 'x'.repeat(1024 * 1024 + 10)],
        ['projectId', '1'],
      ]);
      const r = await from(t, local, 'POST', '/auth/user', { body: form.body, headers: { 'content-type': form.contentType } });
      expect(r.status).toBe(403);
      expect(r.body.reason).toBe('BODY_TOO_LARGE');
    });
  });

  describe('break 3: self-signup', () => {
    it('creates a user with no credential while the project allows it, not with canCreateDevices', async () => {
      const { r, email } = await signUp(freshAddress());
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      expect(r.body).toEqual({
        id: expect.any(Number),
        projectId: 1,
        email,
        name: 'App User',
        canCreateDevices: false,
        verified: true,
        creationTime: expect.any(String),
      });
      const denied = await signUp(freshAddress(), { canCreateDevices: true });
      expect(denied.r.status).toBe(403);
      expect(denied.r.body.reason).toBe('PERMISSION_DENIED');
      expect((await t.http('GET', `/users?search=${encodeURIComponent(denied.email)}`, { token: t.adminKey })).body).toEqual([]);
    });

    it('follows the allowUserSignup setting, changed by a project key (multipart "false"/"true" coerced)', async () => {
      expect((await t.http('GET', '/projects/1', { token: t.adminKey })).body).toMatchObject({ id: 1, allowUserSignup: true });
      const set = async (value: string) => {
        const form = browserFormData([['allowUserSignup', value]]);
        const r = await from(t, local, 'PATCH', '/projects/1', {
          body: form.body,
          headers: { 'content-type': form.contentType, authorization: `ModeCloud ${t.adminKey}` },
        });
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        return r.body.allowUserSignup;
      };
      try {
        expect(await set('false')).toBe(false);
        const refused = await signUp(freshAddress());
        expect(refused.r.status).toBe(401);
        expect(refused.r.body.reason).toBe('AUTHORIZATION_REQUIRED');
      } finally {
        expect(await set('true')).toBe(true);
      }
      expect((await signUp(freshAddress())).r.status).toBe(201);
      // a user may not change it
      const u = await t.seedUser();
      expect((await t.http('PATCH', '/projects/1', { token: u.token, body: { allowUserSignup: false } })).status).toBe(403);
    });

    it('throttles signups per client IP like logins', async () => {
      const address = freshAddress();
      const statuses = [];
      for (let i = 0; i < 6; i++) statuses.push((await signUp(address)).r);
      expect(statuses.slice(0, 5).map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
      expect(statuses[5].status).toBe(429);
      expect(statuses[5].body.reason).toBe('RATE_LIMITED');
      expect(Number(statuses[5].headers['retry-after'])).toBeGreaterThanOrEqual(1);
      // another address signs up as usual
      expect((await signUp(freshAddress())).r.status).toBe(201);
    });
  });

  describe('F5 on the real server: failed logins back off', () => {
    it('answers 429 RATE_LIMITED with Retry-After after the free failures, and other accounts from other addresses sign in', async () => {
      const address = freshAddress();
      const victim = await signUp(freshAddress());
      const other = await signUp(freshAddress());
      const tries = [];
      for (let i = 0; i < 4; i++)
        tries.push(await from(t, address, 'POST', '/auth/user', json({ projectId: 1, email: victim.email, password: 'wrong password' })));
      expect(tries.slice(0, 3).map((r) => r.status)).toEqual([401, 401, 401]);
      expect(tries[3].status).toBe(429);
      expect(tries[3].headers['retry-after']).toBe('1');
      const bystander = await from(t, freshAddress(), 'POST', '/auth/user', json({ projectId: 1, email: other.email, password: other.password }));
      expect(bystander.status).toBe(200);
    });
  });

  describe('breaks 4 and 5: members by email, roles', () => {
    it('adds an existing user by {email, phoneNumber, role}, lists name/email/verified, changes roles keeping an owner', async () => {
      const ownerSignup = await signUp(freshAddress());
      const owner = (await t.http('POST', '/auth/user', { body: { projectId: 1, email: ownerSignup.email, password: ownerSignup.password } })).body;
      const home = await t.http('POST', '/homes', { token: owner.token, body: { name: 'Cabin' } });
      expect(home.status).toBe(201);
      const friend = await signUp(freshAddress());
      const added = await t.http('POST', `/homes/${home.body.id}/members`, {
        token: owner.token,
        body: { email: friend.email.toUpperCase(), phoneNumber: '', role: 'member' },
      });
      expect(added.status, JSON.stringify(added.body)).toBe(201);
      expect(added.body).toEqual({
        homeId: home.body.id,
        userId: friend.r.body.id,
        name: 'App User',
        email: friend.email,
        verified: true,
        role: 'member',
        creationTime: expect.any(String),
      });

      const unknown = await t.http('POST', `/homes/${home.body.id}/members`, {
        token: owner.token,
        body: { email: 'nobody-here@example.com', phoneNumber: '', role: 'member' },
      });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ reason: 'USER_NOT_FOUND', data: { email: 'nobody-here@example.com' } });

      const list = await t.http('GET', `/homes/${home.body.id}/members`, { token: owner.token });
      expect(list.body.map((m: any) => [m.userId, m.email, m.verified, m.role])).toEqual([
        [owner.userId, ownerSignup.email, true, 'owner'],
        [friend.r.body.id, friend.email, true, 'member'],
      ]);

      // the last owner cannot be demoted or leave while others remain
      const demoteLast = await t.http('PATCH', `/homes/${home.body.id}/members/${owner.userId}`, { token: owner.token, body: { role: 'member' } });
      expect(demoteLast.status).toBe(403);
      expect(demoteLast.body.reason).toBe('LAST_OWNER');
      expect((await t.http('DELETE', `/homes/${home.body.id}/members/${owner.userId}`, { token: owner.token })).body.reason).toBe('LAST_OWNER');
      // promote the friend, then the first owner may step down
      const promoted = await t.http('PATCH', `/homes/${home.body.id}/members/${friend.r.body.id}`, { token: owner.token, body: { role: 'owner' } });
      expect(promoted.status).toBe(200);
      expect(promoted.body).toMatchObject({ userId: friend.r.body.id, email: friend.email, role: 'owner' });
      const stepDown = await t.http('PATCH', `/homes/${home.body.id}/members/${owner.userId}`, { token: owner.token, body: { role: 'member' } });
      expect(stepDown.status).toBe(200);
      expect(stepDown.body.role).toBe('member');
      // no longer an owner: it may not change roles any more
      expect((await t.http('PATCH', `/homes/${home.body.id}/members/${friend.r.body.id}`, { token: owner.token, body: { role: 'member' } })).status).toBe(403);
      // an unknown member, a bad role
      expect((await t.http('PATCH', `/homes/${home.body.id}/members/987654`, { token: t.adminKey, body: { role: 'owner' } })).body.reason).toBe(
        'USER_NOT_FOUND',
      );
      expect((await t.http('PATCH', `/homes/${home.body.id}/members/${owner.userId}`, { token: t.adminKey, body: { role: 'admin' } })).body.reason).toBe(
        'INVALID_PARAMETERS',
      );
    });
  });

  describe('break 6: on-demand provisioning names the device', () => {
    it('names a device provisioned with a token `<class>-<id>`', async () => {
      const u = await t.seedUser();
      const homeId = await t.seedHome();
      await t.deps.store.members.upsert({ homeId, userId: u.userId, role: 'owner', creationTime: new Date().toISOString() });
      const token = (await t.http('POST', `/homes/${homeId}/deviceProvisioning`, { token: u.token, body: { deviceClass: 'default' } })).body.token;
      const made = await t.http('POST', '/devices', { body: { token } });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      expect(made.body.name).toBe(`default-${made.body.id}`);
      expect((await t.deviceRow(made.body.id))?.name).toBe(`default-${made.body.id}`);
    });
  });

  describe('breaks 1 and 7: the Go SDK event body over MQTT, and a device in no home', () => {
    it('takes {"eventType":"x"} over MQTT as eventData {}, while HTTP still requires eventData', async () => {
      const homeId = await t.seedHome();
      const d = await t.seedDevice({ homeId });
      const client = await mqttConnect(t, d);
      await client.publishAsync(`/devices/${d.id}/event`, '{"eventType":"x"}', { qos: 1 });
      const events = await eventually(
        async () => {
          const r = await t.http('GET', `/events?projectId=1&deviceId=${d.id}&eventType=x`, { token: t.adminKey });
          return r.body.length ? r.body : undefined;
        },
        undefined,
        'the event',
      );
      expect(events).toEqual([expect.objectContaining({ eventType: 'x', eventData: {}, homeId, originDeviceId: d.id })]);
      const http = await t.http('PUT', `/devices/${d.id}/event`, { token: d.key, body: { eventType: 'x' } });
      expect(http.status).toBe(403);
      expect(http.body.reason).toBe('INVALID_PARAMETERS');
      expect(http.body.data.issues.map((i: any) => i.path)).toEqual(['eventData']);
    });

    it('writes to the general log once that a device in no home reaches no module', async () => {
      // a project of its own: the first device in no home of a project is named at once, later ones
      // go into the interval's summary line (test/e2e/homeless-summary.test.ts)
      const { projectId, adminKey } = await seedProject(t.deps);
      const d = await t.seedDevice({ homeId: null, projectId });
      const client = await mqttConnect(t, d);
      // the PUBACK comes after the commit: both events are stored when these resolve
      await client.publishAsync(`/devices/${d.id}/event`, '{"eventType":"x"}', { qos: 1 });
      await client.publishAsync(`/devices/${d.id}/event`, '{"eventType":"y","eventData":{"a":1}}', { qos: 1 });
      expect((await t.http('PUT', `/devices/${d.id}/event`, { token: d.key, body: { eventType: 'z', eventData: {} } })).status).toBe(204);
      const stored = (await t.http('GET', `/events?projectId=${projectId}&deviceId=${d.id}`, { token: adminKey })).body;
      expect(
        stored
          .map((e: any) => e.eventType)
          .filter((type: string) => !type.startsWith('_'))
          .sort(),
      ).toEqual(['x', 'y', 'z']);
      const logs = (await t.http('GET', `/logs?projectId=${projectId}`, { token: adminKey })).body.filter((l: any) => l.text.includes('in no home'));
      expect(logs).toHaveLength(1);
      expect(logs[0].text).toMatch(new RegExp(`^device ${d.id} is in no home`));
      expect(logs[0]).toMatchObject({ level: 2, source: 'webhooks' });
    });
  });

  describe("MODE's echo example: the action doEcho", () => {
    it('is refused with the docs/concepts.md#commands error (lowercase action pattern), as before', async () => {
      const d = await t.seedDevice();
      await mqttConnect(t, d, { clientId: `echo-${d.id}` });
      const r = await t.http('PUT', `/devices/${d.id}/command`, { token: t.adminKey, body: { action: 'doEcho', parameters: {} } });
      expect(r.status).toBe(403);
      expect(r.body.reason).toBe('INVALID_PARAMETERS');
      expect(r.body.data.issues[0].path).toBe('action');
      // positive control: the same command with a documented action is delivered
      expect((await t.http('PUT', `/devices/${d.id}/command`, { token: t.adminKey, body: { action: 'do-echo', parameters: {} } })).status).toBe(204);
    });
  });
});
