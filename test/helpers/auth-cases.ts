// The authentication cases every authenticated route runs (house rule 10, after unkey's
// runCommonRouteTests): no credential, a malformed header, an unknown token of each kind.
// Each answer must be 401 (403 where the documented list of the operation has no 401) with a reason.
import { expect, it } from 'vitest';
import { SPEC_STATUSES, type SpecOperation } from '../../src/protocol/spec-statuses.js';
import type { TestApi } from './api.js';

export interface RouteUnderTest {
  method: string;
  /** a function: ids are known only once the test's fixtures exist */
  path: () => string;
  body?: () => unknown;
  /** the docs/api.md#device-operations operation, when it is one */
  spec?: SpecOperation;
}

/** the status an operation answers for a missing or unknown credential */
export function unauthorizedStatus(spec?: SpecOperation): number {
  return spec && !(SPEC_STATUSES[spec] as readonly number[]).includes(401) ? 403 : 401;
}

/** asserts a status is one the documented lists for the operation (or its success code) */
export function expectSpecStatus(spec: SpecOperation, status: number, success: number): void {
  expect([success, ...SPEC_STATUSES[spec]], `${spec} answered ${status}`).toContain(status);
}

export function runCommonRouteTests(api: () => TestApi, route: RouteUnderTest): void {
  const expected = unauthorizedStatus(route.spec);
  const send = (headers: Record<string, string>) =>
    api().app.request(route.path(), {
      method: route.method,
      headers: { ...headers, ...(route.body ? { 'content-type': 'application/json' } : {}) },
      body: route.body ? JSON.stringify(route.body()) : undefined,
    });
  const cases: [string, Record<string, string>, string][] = [
    ['no credential', {}, 'AUTHORIZATION_REQUIRED'],
    ['an unknown project key', { authorization: 'ModeCloud pk.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }, 'INVALID_TOKEN'],
    ['an unknown device key', { authorization: 'Bearer dk.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }, 'INVALID_TOKEN'],
    ['an unknown user token', { authorization: 'ModeCloud ut.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }, 'INVALID_TOKEN'],
    ['a token of no known kind', { authorization: 'ModeCloud xx.nonsense' }, 'INVALID_TOKEN'],
  ];
  for (const [name, headers, reason] of cases) {
    it(`${route.method} ${route.spec ?? ''} refuses ${name} with ${expected} ${reason}`, async () => {
      const res = await send(headers);
      expect(res.status).toBe(expected);
      expect(((await res.json()) as { reason: string }).reason).toBe(reason);
    });
  }
}
