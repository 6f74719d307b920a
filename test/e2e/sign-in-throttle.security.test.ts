// Issue 23 defect 4 (docs/api.md#sign-in-throttling), against a real server with real client addresses
// behind a trusted proxy (X-Forwarded-For from 127.0.0.1): a few wrong passwords from one address used
// to lock the account from every address. Now that address waits, the right password from another
// address signs in, and the much higher per-account bound still stops a guess spread over addresses.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHearth, type TestHearth } from '../helpers/hearth.js';

let t: TestHearth;
beforeAll(async () => {
  t = await startTestHearth({
    trustedProxies: ['127.0.0.1'],
    // waits of a minute and more: nothing a test waits out, so every 429 below is the throttle's
    authThrottle: { enabled: true, accountFreeFailures: 3, clientFreeFailures: 20, accountGlobalFreeFailures: 8, baseDelaySeconds: 60, maxDelaySeconds: 900 },
  });
}, 60_000);
afterAll(() => t?.close());

let seq = 0;
const password = 'correct horse battery';
async function newUser(): Promise<string> {
  const email = `throttle-${++seq}-${Date.now()}@example.test`;
  expect((await t.http('POST', '/users', { token: t.adminKey, body: { projectId: 1, email, password, name: 'T' } })).status).toBe(201);
  return email;
}
const signIn = (from: string, email: string, pw: string) =>
  t.http('POST', '/auth/user', { body: { projectId: 1, email, password: pw }, headers: { 'x-forwarded-for': from } });

describe('sign-in throttling', () => {
  it('after failures from address A, the right password from address B signs in; A stays throttled', async () => {
    const email = await newUser();
    for (let i = 0; i < 3; i++) expect((await signIn('203.0.113.1', email, 'wrong')).status).toBe(401);
    const fourth = await signIn('203.0.113.1', email, 'wrong');
    expect(fourth).toMatchObject({ status: 429, body: { reason: 'RATE_LIMITED' } });
    expect(Number(fourth.headers.get('retry-after'))).toBeGreaterThan(0);
    // positive control: A is refused even with the right password
    expect((await signIn('203.0.113.1', email, password)).status).toBe(429);
    const b = await signIn('198.51.100.7', email, password);
    expect(b.status).toBe(200);
    expect(b.body.token).toMatch(/^ut\./);
    expect((await signIn('203.0.113.1', email, password)).status).toBe(429);
  });

  it('the per-account bound stops a guess spread over many addresses, yet lets the owner in from a clean address', async () => {
    const email = await newUser();
    const guessers = Array.from({ length: 8 }, (_, i) => `192.0.2.${i + 10}`);
    // one guess per address: each under its own bounds, together at the account's (8 free)
    for (const ip of guessers) expect((await signIn(ip, email, 'guess')).status).toBe(401);
    expect((await signIn('192.0.2.99', email, 'guess')).status).toBe(429);
    // every address that guessed now waits, whatever it sends
    for (const ip of guessers) expect((await signIn(ip, email, password)).status).toBe(429);
    expect((await signIn('198.51.100.8', email, password)).status).toBe(200);
  });
});
