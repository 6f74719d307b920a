// Issue 23 defect 6: a report run whose webhook delivery was refused showed `success`. A run with a
// webhook destination now ends with its delivery (docs/concepts.md#reports): `failure` naming the
// delivery and the refusal when the receiver answers 4xx, `success` once delivered.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHearth, type TestHearth } from '../../helpers/hearth.js';
import { eventually } from '../../helpers/wait.js';

let t: TestHearth;
let server: http.Server;
let base = '';
beforeAll(async () => {
  t = await startTestHearth({ webhooks: { allowPrivateTargets: true, pollMs: 50 }, reports: { tickMs: 50, pollMs: 50 } });
  // /refuse answers 403 (a 4xx fails the delivery at once, docs/webhooks.md#retries); anything else 200
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(req.url === '/refuse' ? 403 : 200).end(req.url === '/refuse' ? 'no thanks' : 'ok'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server?.close(r));
  await t?.close();
});

async function runTo(path: string): Promise<any> {
  const created = await t.http('POST', '/scheduledReports', {
    token: t.adminKey,
    body: { name: `to ${path}`, kind: 'devices', format: 'csv', schedule: { cron: '0 0 1 1 *' }, destination: { type: 'webhook', url: base + path } },
  });
  expect(created.status).toBe(201);
  const queued = await t.http('POST', `/scheduledReports/${created.body.id}/run`, { token: t.adminKey });
  expect(queued.status).toBe(202);
  let last: any;
  await eventually(async () => {
    last = (await t.http('GET', `/scheduledReports/${created.body.id}/runs/${queued.body.id}`, { token: t.adminKey })).body;
    return last.status === 'success' || last.status === 'failure';
  });
  return last;
}

describe('a report run with a webhook destination', () => {
  it('is success once its delivery is accepted (positive control)', async () => {
    expect(await runTo('/accept')).toMatchObject({ status: 'success' });
  });

  it('is failure, naming the delivery and the refusal, when the receiver refuses the delivery', async () => {
    const r = await runTo('/refuse');
    expect(r.status).toBe('failure');
    expect(r.error).toMatch(/webhook delivery \S+ failed: .*403/);
    expect(r.endTime).toBeTruthy();
  });
});
