// GET /httpAccessLogs: filters that are not what they claim to be are refused, naming the filter.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { expectSpecStatus } from '../../helpers/auth-cases.js';

describe('HTTP access logs: invalid filters', () => {
  let t: TestApi;
  beforeAll(async () => {
    t = await makeTestApi();
  });
  afterAll(() => t.close());

  const cases: [string, string][] = [
    ['method', 'method=FETCH'],
    ['statusCode', 'statusCode=99'],
    ['statusCode', 'statusCode=2000'],
    ['statusCode', 'statusCode=ok'],
    ['pathPrefix', 'pathPrefix=devices'],
    ['since', 'since=1700000000'],
    ['until', 'until=2026-01-01T00:00:00'],
    ['projectId', 'projectId=1.0'],
  ];
  for (const [param, q] of cases) {
    it(`refuses ${q} with 403 INVALID_PARAMETERS on ${param}`, async () => {
      const r = await t.req('GET', `/httpAccessLogs?${q}`, { token: t.adminKey });
      expect(r.status).toBe(403);
      expect(r.body.reason).toBe('INVALID_PARAMETERS');
      expect(r.body.data.issues[0].path).toBe(param);
      expectSpecStatus('getHTTPAccessLogEntries', r.status, 200);
    });
  }

  it('accepts a lower-case method', async () => {
    expect((await t.req('GET', '/httpAccessLogs?method=get', { token: t.adminKey })).status).toBe(200);
  });
});
