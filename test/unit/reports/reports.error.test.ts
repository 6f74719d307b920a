// Scheduled reports: what is refused, with its reason (docs/concepts.md#reports).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeReportApi, outputOf, runQueued } from './setup.js';
import type { TestApi } from '../../helpers/api.js';
import { seedDevice } from '../../helpers/store-seed.js';

let t: TestApi;
beforeAll(async () => {
  t = await makeReportApi();
});
afterAll(() => t.close());

const create = (body: Record<string, unknown>) =>
  t.req('POST', '/scheduledReports', { token: t.adminKey, body: { name: 'r', kind: 'events', schedule: { cron: '0 6 * * *' }, ...body } });

const issue = (res: { status: number; body: any }) => {
  expect(res.status).toBe(403);
  expect(res.body.reason).toBe('INVALID_PARAMETERS');
  return res.body.data.issues[0] as { path: string; message: string };
};

describe('scheduled reports: bad schedules are refused with their reason', () => {
  it('a malformed cron expression names the field and the problem', async () => {
    const i = issue(await create({ schedule: { cron: '61 8 * * *' } }));
    expect(i.path).toBe('schedule.cron');
    expect(i.message).toMatch(/minute/i);
  });

  it('seconds fields, nonsense and wrong field counts are refused', async () => {
    for (const cron of ['* * * * * *', 'every day', '0 8 * *', '@fortnightly', '']) {
      expect(issue(await create({ schedule: { cron } })).path, cron).toMatch(/^schedule\.cron/);
    }
  });

  it('an unknown time zone is refused by name', async () => {
    const i = issue(await create({ schedule: { cron: '0 8 * * *', timezone: 'Mars/Olympus' } }));
    expect(i).toEqual({ path: 'schedule.timezone', message: expect.stringContaining('"Mars/Olympus" is not an IANA time zone') });
  });

  it('a schedule that never fires is refused', async () => {
    expect(issue(await create({ schedule: { cron: '0 0 30 2 *' } })).message).toMatch(/never fires/);
  });

  it('PATCH checks the new schedule the same way and leaves the report as it was', async () => {
    const { body: r } = await create({});
    expect(
      issue(await t.req('PATCH', `/scheduledReports/${r.id}`, { token: t.adminKey, body: { schedule: { cron: '0 8 * * *', timezone: 'Nowhere/Town' } } })).path,
    ).toBe('schedule.timezone');
    expect((await t.req('GET', `/scheduledReports/${r.id}`, { token: t.adminKey })).body.schedule).toEqual({ cron: '0 6 * * *', timezone: 'UTC' });
  });
});

describe('scheduled reports: other refusals', () => {
  it('bad kinds, formats, windows, filters that do not apply, bad destinations', async () => {
    expect(issue(await create({ kind: 'sales' })).path).toBe('kind');
    expect(issue(await create({ format: 'xlsx' })).path).toBe('format');
    expect(issue(await create({ window: '3 days' })).path).toBe('window');
    expect(issue(await create({ window: '400d' })).path).toBe('window');
    expect(issue(await create({ kind: 'devices', window: '1h' })).path).toBe('window');
    expect(issue(await create({ kind: 'devices', filter: { eventTypes: ['x'] } })).path).toBe('filter.eventTypes');
    expect(issue(await create({ kind: 'deliveries', filter: { homeId: 1 } })).path).toBe('filter.homeId');
    expect(issue(await create({ destination: { type: 'email' } })).path).toBe('destination.type');
    expect(issue(await create({ destination: { type: 'webhook', url: 'gopher://x' } })).path).toMatch(/^destination\.url/);
    expect(issue(await create({ name: '' })).path).toBe('name');
  });

  it('read-only fields with another value: 403 READ_ONLY_FIELD', async () => {
    const { body: r } = await create({});
    const res = await t.req('PATCH', `/scheduledReports/${r.id}`, { token: t.adminKey, body: { id: 'other', creationTime: r.creationTime } });
    expect(res.body).toEqual({ reason: 'READ_ONLY_FIELD', data: { fields: ['id'] } });
  });

  it('unknown reports and runs: 404; no output before a run succeeds', async () => {
    expect((await t.req('GET', '/scheduledReports/nope', { token: t.adminKey })).status).toBe(404);
    expect((await t.req('POST', '/scheduledReports/nope/run', { token: t.adminKey })).status).toBe(404);
    const { body: r } = await create({});
    expect((await t.req('GET', `/scheduledReports/${r.id}/runs/nope`, { token: t.adminKey })).status).toBe(404);
    const run = await t.req('POST', `/scheduledReports/${r.id}/run`, { token: t.adminKey });
    expect((await outputOf(t, r.id, run.body.id)).status).toBe(404);
  });

  it('a run of more rows than allowed fails with the reason, and keeps no output', async () => {
    const { body: r } = await create({ kind: 'devices' });
    await seedDevice(t.deps);
    const run = await t.req('POST', `/scheduledReports/${r.id}/run`, { token: t.adminKey });
    await runQueued(t.deps, { maxRows: 0 });
    const got = await t.req('GET', `/scheduledReports/${r.id}/runs/${run.body.id}`, { token: t.adminKey });
    expect(got.body).toMatchObject({ status: 'failure', error: expect.stringContaining('more than 0 rows') });
    expect((await outputOf(t, r.id, run.body.id)).status).toBe(404);
  });
});
