// What an attempt's result means (API.md §9): retry, fail at once, disable, succeed.
import { describe, expect, it } from 'vitest';
import { decide, JITTER } from '../../../src/worker/webhook/delivery/policy.js';
import type { WebhookResult } from '../../../src/worker/webhook/client/http-client.js';

const res = (o: Partial<WebhookResult>): WebhookResult => ({ ok: false, responseBody: '', latencyMs: 1, ...o });
const schedule = [10, 30, 60];
const half = () => 0.5;

describe('retry policy', () => {
  it.each([200, 201, 204, 299])('a %i is a success', (status) => {
    expect(decide(res({ ok: true, status }), 1, schedule, half)).toEqual({ status: 'success' });
  });

  it('a 2xx whose body was cut short still counts as delivered', () => {
    expect(decide(res({ ok: false, status: 200, error: 'RESPONSE_ABORTED' }), 1, schedule, half).status).toBe('success');
  });

  it.each([
    [500, undefined],
    [502, undefined],
    [503, undefined],
    [429, undefined],
    [undefined, 'ECONNREFUSED'],
    [undefined, 'ECONNRESET'],
    [undefined, 'TIMEOUT'],
    [undefined, 'RESPONSE_ABORTED'],
    [undefined, 'ENOTFOUND'],
  ])('retries status %s / error %s on the schedule', (status, error) => {
    expect(decide(res({ status, error }), 1, schedule, half)).toEqual({ status: 'pending', delayMs: 10_000 });
    expect(decide(res({ status, error }), 3, schedule, half)).toEqual({ status: 'pending', delayMs: 60_000 });
  });

  it('spreads retries with jitter of ±25%', () => {
    expect(decide(res({ status: 500 }), 2, schedule, () => 0)).toEqual({ status: 'pending', delayMs: 30_000 * (1 - JITTER) });
    expect(decide(res({ status: 500 }), 2, schedule, () => 0.999999)).toMatchObject({ delayMs: Math.round(30_000 * (1 + JITTER * 0.999998)) });
  });

  it('honours Retry-After on 429 and 503 instead of the schedule', () => {
    expect(decide(res({ status: 429, retryAfterMs: 120_000 }), 1, schedule, half)).toEqual({ status: 'pending', delayMs: 120_000 });
    expect(decide(res({ status: 503, retryAfterMs: 0 }), 1, schedule, half)).toEqual({ status: 'pending', delayMs: 0 });
    expect(decide(res({ status: 429, retryAfterMs: 10 * 86400_000 }), 1, schedule, half)).toEqual({ status: 'pending', delayMs: 86400_000 });
  });

  it('fails once the schedule is used up', () => {
    const d = decide(res({ status: 500 }), 4, schedule, half);
    expect(d.status).toBe('failed');
    expect(d).toMatchObject({ reason: expect.stringContaining('no retries left after 4 attempts') });
    expect(decide(res({ status: 429, retryAfterMs: 1 }), 4, schedule, half).status).toBe('failed');
  });

  it('disables the webhook on 410', () => {
    expect(decide(res({ status: 410 }), 1, schedule, half)).toEqual({ status: 'failed', reason: 'the receiver answered 410 Gone', disable: true });
  });

  it.each([
    [400, undefined],
    [401, undefined],
    [404, undefined],
    [413, undefined],
    [301, 'REDIRECT_NOT_FOLLOWED'],
    [307, 'REDIRECT_NOT_FOLLOWED'],
    [undefined, 'TARGET_NOT_ALLOWED'],
    [undefined, 'INVALID_URL'],
    [undefined, 'ERR_INVALID_CHAR'],
  ])('fails status %s / error %s at once', (status, error) => {
    const d = decide(res({ status, error }), 1, schedule, half);
    expect(d.status).toBe('failed');
    expect(d).not.toHaveProperty('disable');
  });
});
