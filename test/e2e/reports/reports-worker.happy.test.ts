// End to end: a real Hearth with the worker role runs reports on its own — a manual run, a
// scheduled tick — stores their outputs, and posts them, signed, to a webhook destination
// (docs/concepts.md#reports, docs/webhooks.md#verifying-signatures). A second report worker on the same database fires no tick twice.
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import http from 'node:http';
import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { startTestHearth, type TestHearth } from '../../helpers/hearth.js';
import { startReportWorker } from '../../../src/worker/reports/index.js';

let t: TestHearth;
let server: http.Server;
let hookUrl = '';
const received: { body: string; signature: string | undefined; type: string | undefined }[] = [];

beforeAll(async () => {
  t = await startTestHearth({
    roles: ['broker', 'api', 'worker'],
    webhooks: { allowPrivateTargets: true, pollMs: 50 },
    reports: { tickMs: 50, pollMs: 50 },
  });
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ body, signature: req.headers['x-service-signature'] as string | undefined, type: req.headers['content-type'] });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/reports`;
});
afterAll(async () => {
  await new Promise((r) => server?.close(r));
  await t?.close();
});

// a wait for an outcome; the deadline only bounds a failure, generous for a busy machine
const waitFor = async <T>(get: () => Promise<T>, ok: (v: T) => boolean, ms = 60_000): Promise<T> => {
  const end = Date.now() + ms;
  for (;;) {
    const v = await get();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out; last: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

const run = (reportId: string, runId: string) => t.http('GET', `/scheduledReports/${reportId}/runs/${runId}`, { token: t.adminKey }).then((r) => r.body);

// a run goes through the worker and, for the first, a webhook: the timeout only bounds a hang
// (30 s ran out under stress-ng)
describe('reports on a running Hearth', { timeout: 120_000 }, () => {
  it('a manual run is executed by the worker; the output is stored and posted, signed, to the webhook', async () => {
    await t.seedDevice();
    const created = await t.http('POST', '/scheduledReports', {
      token: t.adminKey,
      body: { name: 'fleet', kind: 'devices', format: 'csv', schedule: { cron: '0 0 1 1 *' }, destination: { type: 'webhook', url: hookUrl } },
    });
    expect(created.status).toBe(201);
    const queued = await t.http('POST', `/scheduledReports/${created.body.id}/run`, { token: t.adminKey });
    expect(queued.status).toBe(202);
    const done = await waitFor(
      () => run(created.body.id, queued.body.id),
      (r) => r.status === 'success' || r.status === 'failure',
    );
    expect(done).toMatchObject({ status: 'success', trigger: 'manual' });
    const out = await fetch(`${t.httpUrl}/scheduledReports/${created.body.id}/runs/${queued.body.id}/output`, {
      headers: { authorization: `ModeCloud ${t.adminKey}` },
    });
    const csv = await out.text();
    expect(csv.split('\r\n')[0]).toBe('id,name,deviceClass,homeId,tag,isConnected,lastConnectTime,lastDisconnectTime,creationTime,claimTime,bundleInstalled');
    expect(csv.trimEnd().split('\r\n')).toHaveLength(done.rows + 1);

    await waitFor(
      async () => received.length,
      (n) => n >= 1,
    );
    const got = received[0];
    expect(got.signature).toBe(
      createHmac('sha256', created.body.destination.key)
        .update(hookUrl + got.body)
        .digest('hex'),
    );
    expect(JSON.parse(got.body)).toMatchObject({
      reportId: created.body.id,
      runId: queued.body.id,
      kind: 'devices',
      format: 'csv',
      trigger: 'manual',
      rows: done.rows,
      output: csv,
    });
  });

  it('a due schedule fires once, even with a second report worker on the same database', async () => {
    const second = startReportWorker(
      { ...t.deps, logger: pino({ level: 'silent' }) },
      { tickMs: 20, pollMs: 50, leaseSeconds: 60, concurrency: 1, progressRows: 100, maxRows: 1000, webhookMaxBytes: 1 << 20 },
      'second-worker',
    );
    onTestFinished(() => second.stop());
    const created = await t.http('POST', '/scheduledReports', {
      token: t.adminKey,
      // once a year: the report cannot come due again while the test runs (every ten minutes, a
      // loaded machine's run could cross a ten-minute mark and see a second, rightful run)
      body: { name: 'tick', kind: 'connectivity', window: '1h', schedule: { cron: '0 0 1 1 *', timezone: 'Europe/Berlin' } },
    });
    const due = new Date(Date.now() - 1000).toISOString();
    await t.deps.store.reports.update(created.body.id, { nextRunTime: due, modificationTime: due });
    const runs = await waitFor(
      () => t.http('GET', `/scheduledReports/${created.body.id}/runs`, { token: t.adminKey }).then((r) => r.body as any[]),
      (rs) => rs.length > 0 && rs.every((r) => r.status === 'success'),
    );
    // positive control: a second report made due now fires too, so the workers have ticked
    // since the first fired; a second, wrong run of the first would have been made by then
    const control = await t.http('POST', '/scheduledReports', {
      token: t.adminKey,
      body: { name: 'control', kind: 'connectivity', window: '1h', schedule: { cron: '0 0 1 1 *' } },
    });
    const controlDue = new Date(Date.now() - 1000).toISOString();
    await t.deps.store.reports.update(control.body.id, { nextRunTime: controlDue, modificationTime: controlDue });
    await waitFor(
      () => t.http('GET', `/scheduledReports/${control.body.id}/runs`, { token: t.adminKey }).then((r) => r.body as any[]),
      (rs) => rs.length > 0 && rs.every((r) => r.status === 'success'),
    );
    const after = (await t.http('GET', `/scheduledReports/${created.body.id}/runs`, { token: t.adminKey })).body;
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({ trigger: 'schedule', status: 'success', until: due });
    expect(runs[0].id).toBe(after[0].id);
    const report = (await t.http('GET', `/scheduledReports/${created.body.id}`, { token: t.adminKey })).body;
    expect(report.lastRunTime).toBe(due);
    expect(Date.parse(report.nextRunTime)).toBeGreaterThan(Date.now());
    // midnight of 1 January in Berlin (UTC+1 in winter)
    expect(report.nextRunTime).toMatch(/-12-31T23:00:00\.000Z$/);
  });
});
