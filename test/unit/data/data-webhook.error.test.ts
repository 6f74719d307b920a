// A `webhook` data source whose receiver fails, through the real webhook worker and a real HTTP
// receiver on loopback: the post after a failed delivery answers `partial` with the source in
// failedDataSources (docs/concepts.md#data-sources); once the receiver recovers, batches are taken again.
import { eventually } from '../../helpers/wait.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { seedDevice } from '../../helpers/store-seed.js';
import { createWorker, type Worker } from '../../../src/worker/index.js';
import { REFUSE_FOR_MS } from '../../../src/domain/data/index.js';
import { startThread } from '../../../src/adapters/thread-port.js';

let t: TestApi;
let worker: Worker;
let server: http.Server;
let url = '';
let status = 500;
const received: { body: string; signature: string | undefined }[] = [];

beforeAll(async () => {
  t = await makeTestApi();
  t.deps.webhooks = { allowPrivateTargets: true };
  worker = createWorker({
    threads: startThread,
    ...t.deps,
    logger: pino({ level: 'silent' }),
    webhooks: { allowPrivateTargets: true, timeoutMs: 2000, retryScheduleSeconds: [0.2, 0.2, 0.2, 0.2, 0.2], pollMs: 50, concurrency: 4 },
    registry: t.deps.metrics.registry,
    closeGraceMs: 100,
  });
  await worker.start();
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ body, signature: req.headers['x-service-signature'] as string | undefined });
      res.writeHead(status).end('x');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/batches`;
});
afterAll(async () => {
  await worker?.close();
  await new Promise((r) => server?.close(r));
  await t?.close();
});

// a wait for an event; the deadline only bounds a failure (a loaded machine is slow, not wrong)
const waitFor = (check: () => Promise<boolean> | boolean) => eventually(check, 30_000);

describe('a failing webhook data source', () => {
  it('answers partial while it fails, and takes batches again once it recovers', async () => {
    const created = await t.req('POST', '/projects/1/dataSources', { token: t.adminKey, body: { id: 'sink', name: 'sink', type: 'webhook', url } });
    await t.req('POST', '/projects/1/dataSources', { token: t.adminKey, body: { id: 'archive', name: 'archive', type: 'store' } });
    const { device, key } = await seedDevice(t.deps);
    const post = (v: number) => t.req('POST', `/devices/${device.id}/data`, { token: key, body: { data: [{ v }] } });

    // accepted and queued: the receiver is not known to fail yet
    expect((await post(1)).body).toEqual({ result: 'success' });
    await waitFor(async () => (await t.req('GET', '/projects/1/dataSources/sink', { token: t.adminKey })).body.health !== undefined);
    const batch = received[0];
    expect(batch.signature).toBe(
      createHmac('sha256', created.body.key)
        .update(url + batch.body)
        .digest('hex'),
    );
    expect(JSON.parse(batch.body)).toMatchObject({ dataSourceId: 'sink', deviceId: device.id, data: [{ v: 1 }] });

    const refused = await post(2);
    expect(refused.status).toBe(200);
    expect(refused.body.result).toBe('partial');
    expect(refused.body.failedDataSources).toHaveLength(1);
    expect(refused.body.failedDataSources[0][0]).toBe('sink');
    expect(refused.body.failedDataSources[0][1]).toMatch(/^WEBHOOK_FAILING: .*500/);
    // the store source took every record all along
    expect((await t.req('GET', '/projects/1/dataSources/archive/records', { token: t.adminKey })).body).toHaveLength(2);

    // the receiver recovers: a retry of the queued batch succeeds and clears the state
    status = 200;
    await waitFor(async () => (await t.req('GET', '/projects/1/dataSources/sink', { token: t.adminKey })).body.health === undefined);
    expect((await post(3)).body).toEqual({ result: 'success' });
    await waitFor(() => received.some((r) => JSON.parse(r.body).data[0].v === 3));
    // the refused batch was never sent: the client was told
    expect(received.some((r) => JSON.parse(r.body).data[0].v === 2)).toBe(false);
    expect(REFUSE_FOR_MS).toBeGreaterThan(5000);
  });
});
