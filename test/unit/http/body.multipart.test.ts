// docs/api.md#conventions: multipart/form-data is accepted wherever a form-encoded body is (MODE's app library
// posts a browser FormData), with the same coercion of "true"/"false"/digits and the same size
// limit; a file part is refused, as no operation takes a file in its body.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { seedDevice } from '../../helpers/seed.js';

/** the bytes a browser sends for a FormData of text fields (RFC 7578), written by hand */
function multipart(fields: [string, string][], boundary = '----WebKitFormBoundary7MA4YWxkTrZu0gW') {
  const body =
    fields.map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`).join('') + `--${boundary}--\r\n`;
  return { body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

describe('multipart/form-data bodies', () => {
  let t: TestApi;
  beforeAll(async () => {
    t = await makeTestApi({ bodyLimitBytes: 4096 });
  });
  afterAll(() => t.close());

  const send = (path: string, m: { body: string; headers: Record<string, string> }, token?: string) =>
    t.req('POST', path, { raw: m.body, headers: { ...m.headers, ...(token ? { authorization: `ModeCloud ${token}` } : {}) } });

  it('coerces "true" and digits as a form-encoded body does (/deviceRegistration)', async () => {
    const d = await seedDevice(t);
    const before = Date.now();
    const r = await send(
      '/deviceRegistration',
      multipart([
        ['deviceId', String(d.id)],
        ['claimable', 'true'],
        ['duration', '30'],
      ]),
      d.apiKey,
    );
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    // counted from before the request, not from its end (which a loaded machine can delay)
    expect(Date.parse(r.body.claimExpirationTime)).toBeGreaterThanOrEqual(before + 29_000);
    const closed = await send(
      '/deviceRegistration',
      multipart([
        ['deviceId', String(d.id)],
        ['claimable', 'false'],
      ]),
      d.apiKey,
    );
    expect(closed.status, JSON.stringify(closed.body)).toBe(200);
  });

  it('signs in with an all-digit password: a coerced number goes back to its text', async () => {
    const email = 'digits@example.com';
    const created = await t.req('POST', '/users', { token: t.adminKey, body: { projectId: 1, email, password: '12345678', name: 'D' } });
    expect(created.status).toBe(201);
    const r = await send(
      '/auth/user',
      multipart([
        ['email', email],
        ['password', '12345678'],
        ['projectId', '1'],
        ['appId', '42'],
      ]),
    );
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const session = await t.req('GET', '/userSession', { token: r.body.token });
    expect(session.body.appId).toBe('42');
    // and through a form-encoded body the same
    expect((await t.req('POST', '/auth/user', { form: { email, password: '12345678', projectId: '1' } })).status).toBe(200);
    // a wrong all-digit password is a wrong password, not invalid input
    expect(
      (
        await send(
          '/auth/user',
          multipart([
            ['email', email],
            ['password', '12345679'],
            ['projectId', '1'],
          ]),
        )
      ).status,
    ).toBe(401);
  });

  it('validates the fields like any body: a wrong type is 403 INVALID_PARAMETERS naming it', async () => {
    const d = await seedDevice(t);
    const r = await send(
      '/deviceRegistration',
      multipart([
        ['deviceId', String(d.id)],
        ['claimable', 'yes'],
        ['duration', '30'],
      ]),
      d.apiKey,
    );
    expect(r.status).toBe(403);
    expect(r.body.reason).toBe('INVALID_PARAMETERS');
    expect(r.body.data.issues.map((i: { path: string }) => i.path)).toContain('claimable');
  });

  it('refuses a file part with 403 INVALID_PARAMETERS naming the field', async () => {
    const boundary = 'b0undary';
    const body =
      `--${boundary}\r\nContent-Disposition: form-data; name="email"\r\n\r\na@example.com\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="password"; filename="pw.txt"\r\nContent-Type: text/plain\r\n\r\nsecret\r\n` +
      `--${boundary}--\r\n`;
    const r = await send('/auth/user', { body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } });
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ reason: 'INVALID_PARAMETERS', data: { issues: [{ path: 'password', message: 'password must be a text field, not a file' }] } });
  });

  it('answers a body that is not multipart as declared with 403, never 500', async () => {
    for (const [body, type] of [
      ['plain text', 'multipart/form-data; boundary=x'],
      ['--x\r\nno headers', 'multipart/form-data; boundary=x'],
      ['', 'multipart/form-data'],
    ]) {
      const r = await send('/auth/user', { body, headers: { 'content-type': type } });
      expect(r.status, `${JSON.stringify(body)} as ${type}`).toBe(403);
      expect(r.body.reason).toBe('INVALID_PARAMETERS');
    }
  });

  it('holds multipart bodies to the same size limit', async () => {
    const r = await send(
      '/auth/user',
      multipart([
        ['email', 'a@example.com'],
        ['password', 'x'.repeat(5000)],
        ['projectId', '1'],
      ]),
    );
    expect(r.status).toBe(403);
    expect(r.body.reason).toBe('BODY_TOO_LARGE');
  });
});
