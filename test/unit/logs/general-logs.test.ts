// GET /logs (docs/operations.md#logs getLogEntries, docs/operations.md#logs): the general log, its filters and its checks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { writeLog } from '../../../src/domain/log/write.js';
import type { Caller } from '../../../src/domain/caller.js';

describe('general log', () => {
  let t: TestApi;
  beforeAll(async () => {
    t = await makeTestApi();
    const key: Caller = { type: 'project key', projectId: 1, keyId: 'k1', keyName: 'ops', scopes: ['admin'] };
    await writeLog({ deps: t.deps, input: { projectId: 1, level: 'debug', source: 'broker', text: 'dropped a payload' } });
    await writeLog({ deps: t.deps, input: { projectId: 1, caller: key, level: 'warn', source: 'api', text: 'key revoked' } });
    await writeLog({ deps: t.deps, input: { projectId: 1, level: 'error', source: 'webhooks', text: 'webhook failed' } });
  });
  afterAll(() => t.close());

  it('lists entries newest first with the docs/operations.md#logs fields, the caller when there is one, and no projectId', async () => {
    const r = await t.req('GET', '/logs', { token: t.adminKey });
    expect(r.status).toBe(200);
    expect(r.body.slice(0, 3)).toEqual([
      { level: 3, source: 'webhooks', text: 'webhook failed', timestamp: expect.any(String) },
      { caller: { id: 'k1', type: 'projectKey', name: 'ops', sudoer: true }, level: 2, source: 'api', text: 'key revoked', timestamp: expect.any(String) },
      { level: 0, source: 'broker', text: 'dropped a payload', timestamp: expect.any(String) },
    ]);
    // the first-start bootstrap entry is there too
    expect(r.body.map((e: { source: string }) => e.source)).toContain('admin');
    expect(r.headers.get('vnd.tinkermode.range')).toBe(`0-${r.body.length - 1}/${r.body.length}`);
  });

  it('filters by minimum level and by source', async () => {
    const warn = await t.req('GET', '/logs?level=2', { token: t.adminKey });
    expect(warn.body.map((e: { text: string }) => e.text)).toEqual(['webhook failed', 'key revoked']);
    const broker = await t.req('GET', '/logs?source=broker', { token: t.adminKey });
    expect(broker.body.map((e: { text: string }) => e.text)).toEqual(['dropped a payload']);
    const none = await t.req('GET', '/logs?source=nothing', { token: t.adminKey });
    expect(none.body).toEqual([]);
    expect(none.headers.get('vnd.tinkermode.range')).toBe('*/0');
  });

  it('filters by time', async () => {
    const future = new Date(Date.now() + 3600_000).toISOString();
    expect((await t.req('GET', `/logs?since=${future}`, { token: t.adminKey })).body).toEqual([]);
    expect((await t.req('GET', `/logs?until=${future}`, { token: t.adminKey })).body.length).toBeGreaterThanOrEqual(3);
  });

  const invalid: [string, string][] = [
    ['level above 3', 'level=4'],
    ['a level that is not a number', 'level=warn'],
    ['a date without time', 'since=2026-01-01'],
    ['a date that does not exist', 'since=2026-02-30T00:00:00Z'],
    ['a time past 23:59', 'until=2026-01-01T24:00:00Z'],
    ['words', 'since=yesterday'],
    ['a projectId that is not a positive integer', 'projectId=abc'],
    ['projectId 0', 'projectId=0'],
    ['a projectId past an SQL integer', 'projectId=2147483648'],
    ['an over-long source', `source=${'s'.repeat(65)}`],
  ];
  for (const [what, q] of invalid) {
    it(`refuses ${what} with 403 INVALID_PARAMETERS naming the parameter`, async () => {
      const r = await t.req('GET', `/logs?${q}`, { token: t.adminKey });
      expect(r.status).toBe(403);
      expect(r.body.reason).toBe('INVALID_PARAMETERS');
      expect(r.body.data.issues[0].path).toBe(q.split('=')[0]);
      if (q.startsWith('projectId=')) expect(r.body.data.issues[0].message).toBe('projectId must be a positive integer');
    });
  }
});
