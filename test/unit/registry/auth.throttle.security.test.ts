// F5 (issue 13): failed authentication is throttled (docs/concepts.md). Before, 400 wrong passwords in
// 13 s were all plain 401. Now failed logins back off per account (project + email) and client IP,
// per client IP, and, much later, per account from every address (issue 23 defect 4,
// docs/api.md#sign-in-throttling: before, a few failures from one address locked the account out
// from every address), and claim-code and provisioning-token guesses on POST /devices per client IP (and credential):
// a few free failures, then 429 RATE_LIMITED with Retry-After that doubles with each failure, up to
// the cap; while the wait runs the secret is not even checked. A success forgets the account's
// count, and every count is forgotten after the window. The clock of the failure counter is the
// test's, so waits are stepped over instead of slept through; the client address is the socket's
// (a stand-in Node request given to app.request as its env: peer address and raw headers).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { seedDevice, seedHome, seedUser, type SeededUser } from '../../helpers/seed.js';
import { createMemoryFailureCounter } from '../../../src/adapters/local/failure-counter.js';
import { authThrottleOf } from '../../../src/domain/auth/throttle.js';

const SETTINGS = {
  accountFreeFailures: 5,
  clientFreeFailures: 20,
  accountGlobalFreeFailures: 30,
  baseDelaySeconds: 1,
  maxDelaySeconds: 900,
  windowSeconds: 3600,
};

describe('authentication throttling (F5)', () => {
  let t: TestApi;
  let clock = Date.now();
  const step = (seconds: number) => (clock += seconds * 1000);
  beforeAll(async () => {
    t = await makeTestApi({ authThrottle: authThrottleOf(createMemoryFailureCounter({ now: () => clock }), SETTINGS) });
  });
  afterAll(() => t.close());

  let ipSeq = 1;
  const freshIp = () => `10.0.${ipSeq >> 8}.${ipSeq++ & 255}`;

  /** a request from the given client address */
  const from = async (ip: string, method: string, path: string, body: unknown, token?: string) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (token) headers.authorization = `ModeCloud ${token}`;
    const text = JSON.stringify(body);
    headers['content-length'] = String(Buffer.byteLength(text));
    const incoming = { socket: { remoteAddress: ip }, rawHeaders: Object.entries(headers).flat() };
    const res = await t.app.request(path, { method, headers, body: text }, { incoming });
    return { status: res.status, body: (await res.json().catch(() => undefined)) as any, retryAfter: res.headers.get('retry-after') };
  };
  const login = (ip: string, u: { email: string }, password: string) => from(ip, 'POST', '/auth/user', { projectId: 1, email: u.email, password });

  it('answers wrong passwords 401 a few times, then 429 RATE_LIMITED with a Retry-After that doubles up to the cap', async () => {
    const u = await seedUser(t);
    const ip = freshIp();
    for (let i = 0; i < 5; i++) expect((await login(ip, u, 'wrong password')).status, `failure ${i + 1}`).toBe(401);
    const waits: number[] = [];
    for (let i = 0; i < 14; i++) {
      const r = await login(ip, u, 'wrong password');
      expect(r.status).toBe(429);
      expect(r.body.reason).toBe('RATE_LIMITED');
      expect(r.body.data.retryAfter).toBe(Number(r.retryAfter));
      waits.push(Number(r.retryAfter));
      step(Number(r.retryAfter));
    }
    expect(waits).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900, 900, 900]);
  });

  it('refuses even the right password while the wait runs, without checking it', async () => {
    const u = await seedUser(t);
    const ip = freshIp();
    for (let i = 0; i < 6; i++) await login(ip, u, 'wrong password');
    // positive control: the wait has started
    const waiting = await login(ip, u, u.password);
    expect(waiting.status).toBe(429);
    expect(Number(waiting.retryAfter)).toBeGreaterThanOrEqual(1);
    // a refused attempt is not a failure: the wait does not grow with attempts made during it
    for (let i = 0; i < 5; i++) expect(Number((await login(ip, u, 'wrong password')).retryAfter)).toBe(1);
    // the real user, from an address with no failures, signs in (issue 23 defect 4)
    expect((await login(freshIp(), u, u.password)).status).toBe(200);
    // and the guessing address still waits
    expect((await login(ip, u, u.password)).status).toBe(429);
  });

  it('lets the real user in once the wait is over, and a success forgets the count', async () => {
    const u = await seedUser(t);
    const ip = freshIp();
    for (let i = 0; i < 8; i++) {
      const r = await login(ip, u, 'wrong password');
      if (r.status === 429) step(Number(r.retryAfter));
    }
    expect((await login(ip, u, u.password)).status).toBe(200);
    // counting starts again: five free failures
    for (let i = 0; i < 5; i++) expect((await login(ip, u, 'wrong password')).status).toBe(401);
    expect((await login(ip, u, 'wrong password')).status).toBe(429);
  });

  it('never keeps the user out longer than the cap, and forgets the count after the window', async () => {
    const u = await seedUser(t);
    const ip = freshIp();
    // the attacker drives the wait to the cap
    for (let i = 0; i < 20; i++) {
      const r = await login(ip, u, 'wrong password');
      if (r.status === 429 && i < 19) step(Number(r.retryAfter));
    }
    const capped = await login(ip, u, u.password);
    expect(capped.status).toBe(429);
    expect(Number(capped.retryAfter)).toBe(900);
    // the attack stops: once the window has passed, a typo from that address is free again
    step(3600);
    expect((await login(ip, u, 'typo')).status).toBe(401);
    expect((await login(ip, u, u.password)).status).toBe(200);
  });

  it('lets the real user in as soon as the capped wait ends, even while the count is kept', async () => {
    const u = await seedUser(t);
    const ip = freshIp();
    let last = 0;
    for (let i = 0; i < 18; i++) {
      const r = await login(ip, u, 'wrong password');
      if (r.status === 429) step((last = Number(r.retryAfter)));
    }
    expect(last).toBe(900);
    expect((await login(ip, u, u.password)).status).toBe(200);
  });

  it('leaves another account from another address alone, and slows one address guessing many accounts', async () => {
    const victim = await seedUser(t);
    const bystander = await seedUser(t);
    const attacker = freshIp();
    for (let i = 0; i < 7; i++) await login(attacker, victim, 'wrong password');
    expect((await login(attacker, victim, victim.password)).status).toBe(429);
    expect((await login(freshIp(), bystander, bystander.password)).status).toBe(200);
    // spraying: one address, many emails (each account under its free failures)
    const sprayer = freshIp();
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) statuses.push((await login(sprayer, { email: `nobody-${i}@example.com` }, 'guess')).status);
    expect(statuses.slice(0, 20).every((s) => s === 401)).toBe(true);
    expect(statuses[20]).toBe(429);
    // that address is refused for every account now; the account itself is fine elsewhere
    expect((await login(sprayer, bystander, bystander.password)).status).toBe(429);
    expect((await login(freshIp(), bystander, bystander.password)).status).toBe(200);
  });

  it('issue 23 defect 4: failures from address A never keep the right password from address B out; A stays throttled', async () => {
    const u = await seedUser(t);
    const a = freshIp();
    for (let i = 0; i < 6; i++) await login(a, u, 'wrong password');
    // positive control: A waits, even with the right password
    expect((await login(a, u, u.password)).status).toBe(429);
    expect((await login(freshIp(), u, u.password)).status).toBe(200);
    // signing in from B forgets nothing of A's
    expect((await login(a, u, u.password)).status).toBe(429);
    // a wrong guess from A whenever its wait ends keeps A waiting, never the account
    step(Number((await login(a, u, 'wrong password')).retryAfter));
    expect((await login(a, u, 'wrong password')).status).toBe(429);
    expect((await login(freshIp(), u, u.password)).status).toBe(200);
  });

  it('the per-account bound stops a distributed guess: addresses that failed wait, a clean one with the right password signs in', async () => {
    const u = await seedUser(t);
    const guessers = Array.from({ length: 10 }, freshIp);
    // 10 addresses, 3 guesses each: under every per-address bound, at the account's (30 free)
    for (const ip of guessers) for (let i = 0; i < 3; i++) expect((await login(ip, u, 'guess')).status).toBe(401);
    const over = await login(guessers[0], u, 'guess');
    expect(over.status).toBe(429);
    // from now on every address that failed on this account waits, the right password included
    for (const ip of guessers) expect((await login(ip, u, u.password)).status).toBe(429);
    // a new address's wrong guess is counted and answered 429 like the others
    expect((await login(freshIp(), u, 'guess')).status).toBe(429);
    // the real user, on an address with no failures, is let through
    expect((await login(freshIp(), u, u.password)).status).toBe(200);
    // and the guessers still wait: a success resets only its own address's count
    expect((await login(guessers[1], u, u.password)).status).toBe(429);
  });

  it('slows claim-code guessing on POST /devices per client IP and per credential', async () => {
    const u = await seedUser(t);
    const homeId = await seedHome(t, u.token);
    const ip = freshIp();
    const guesses: number[] = [];
    for (let i = 0; i < 21; i++) guesses.push((await from(ip, 'POST', '/devices', { claimCode: `guess-${i}`, homeId }, u.token)).status);
    expect(guesses.slice(0, 20).every((s) => s === 403)).toBe(true);
    const refused = await from(ip, 'POST', '/devices', { claimCode: 'guess-x', homeId }, u.token);
    expect(refused.status).toBe(429);
    expect(refused.body.reason).toBe('RATE_LIMITED');
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    // the same user token from another address: the credential's lane waits too
    expect((await from(freshIp(), 'POST', '/devices', { claimCode: 'guess-y', homeId }, u.token)).status).toBe(429);
    // another user with a real code from another address claims as usual
    const other: SeededUser = await seedUser(t);
    const otherHome = await seedHome(t, other.token);
    const d = await seedDevice(t);
    const claim = await from(freshIp(), 'POST', '/devices', { claimCode: d.claimCode, homeId: otherHome }, other.token);
    expect(claim.status, JSON.stringify(claim.body)).toBe(201);
  });

  it('slows provisioning-token guessing on POST /devices per client IP', async () => {
    const u = await seedUser(t);
    const homeId = await seedHome(t, u.token);
    const ip = freshIp();
    const guesses = [];
    for (let i = 0; i < 21; i++) guesses.push(await from(ip, 'POST', '/devices', { token: `pt.guess-${i}` }));
    expect(guesses.slice(0, 20).map((r) => r.body.reason)).toEqual(Array(20).fill('INVALID_TOKEN'));
    expect(guesses[20].status).toBe(429);
    expect(Number(guesses[20].retryAfter)).toBe(1);
    // a real token from that address waits too; from another address it provisions
    const token = (await from(freshIp(), 'POST', `/homes/${homeId}/deviceProvisioning`, { deviceClass: 'default' }, u.token)).body.token;
    expect((await from(ip, 'POST', '/devices', { token })).status).toBe(429);
    const made = await from(freshIp(), 'POST', '/devices', { token });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
  });
});
