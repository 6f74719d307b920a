// Fleet figures on SQLite (docs/api.md#fleet-figures): GET /projects/{projectId}/stats counts
// exactly what happened (events at ingest, delivery outcomes as written, presence, the live
// retries), and reads no history: with the events history deleted, the counts stand.
import { describe, expect, it } from 'vitest';
import { makeHarness } from '../webhooks/harness.js';
import { startReceiver, waitFor } from '../webhooks/receiver.js';
import { hashToken } from '../../../src/domain/auth/tokens.js';
import { generateToken } from '../../helpers/credentials.js';

const sum = (perMinute: { count: number }[]) => perMinute.reduce((n, m) => n + m.count, 0);

describe('GET /projects/{projectId}/stats', () => {
  it('counts every event, each delivery outcome, the retrying ones and the connected devices exactly', async () => {
    const h = await makeHarness({ retryScheduleSeconds: [3600] });
    const rx = await startReceiver();
    // by event type: `ok` is delivered, `bad` fails at once (a 4xx), `flaky` waits for a retry (a 5xx)
    rx.reply((r, res) => {
      res.statusCode = r.body.eventType === 'ok' ? 200 : r.body.eventType === 'bad' ? 404 : 500;
      res.end();
    });
    await h.createModule({ id: 'hooks', eventWebhook: { url: rx.url } });

    const before = await h.t.req('GET', '/projects/1/stats', { token: h.t.adminKey });
    expect(before.status).toBe(200);
    expect(sum(before.body.events.perMinute)).toBe(0);
    expect(before.body.deliveries).toEqual({ succeeded: 0, failed: 0, retrying: 0, oldestPendingSeconds: null });

    // at once, so the group commit carries several events per transaction
    const types = [...Array(30).fill('ok'), ...Array(6).fill('bad'), ...Array(4).fill('flaky')];
    await Promise.all(types.map((t, i) => h.emit(t, { i })));
    // and one through the HTTP route
    expect((await h.t.req('PUT', `/devices/${h.deviceId}/event`, { token: h.t.adminKey, body: { eventType: 'ok', eventData: {} } })).status).toBe(204);

    const settled = async () => {
      const ds = await h.deliveries('hooks');
      return ds.length === 41 && ds.every((d) => d.status === 'success' || d.status === 'failed' || (d.status === 'pending' && d.roundAttempts === 1));
    };
    await waitFor(settled, 20_000, 'every delivery settled or waiting for its retry');

    // presence: 2 more devices, one of them connected, besides the harness's own
    const now = new Date().toISOString();
    for (const connected of [true, false]) {
      const key = generateToken('dk.');
      const d = await h.t.deps.store.devices.create({
        projectId: 1,
        deviceClass: 'default',
        homeId: null,
        name: 'more',
        description: null,
        tag: null,
        apiKeyHash: hashToken(key),
        apiKeySealed: h.t.deps.sealer.seal(key),
        claimCodeHash: null,
        claimCodeSealed: null,
        claimExpirationTime: null,
        claimTime: null,
        creationTime: now,
        bundleInstalled: null,
        bundleInstallTime: null,
        channel: null,
      });
      if (connected) await h.t.deps.store.devices.setConnected(d.id, true, now);
    }

    // the events history goes: the figures were counted as things happened, not read from it
    await h.t.deps.store.retention.prune('events', new Date(Date.now() + 3600_000).toISOString(), 10_000);
    expect((await h.t.req('GET', '/events?projectId=1', { token: h.t.adminKey })).body).toEqual([]);

    const r = await h.t.req('GET', '/projects/1/stats', { token: h.t.adminKey });
    expect(r.status).toBe(200);
    expect(r.body.devices).toEqual({ total: 3, connected: 1 });
    expect(sum(r.body.events.perMinute)).toBe(41);
    expect(r.body.deliveries).toMatchObject({ succeeded: 31, failed: 6, retrying: 4 });
    expect(r.body.deliveries.oldestPendingSeconds).toBeGreaterThanOrEqual(0);

    // the current minute and the 60 whole ones before it, oldest first, a minute apart
    const minutes: string[] = r.body.events.perMinute.map((m: { minute: string }) => m.minute);
    expect(minutes).toHaveLength(61);
    for (let i = 1; i < minutes.length; i++) expect(Date.parse(minutes[i]) - Date.parse(minutes[i - 1])).toBe(60_000);
    const current = Math.floor(Date.now() / 60_000) * 60_000;
    expect(Date.parse(minutes[60])).toBeGreaterThanOrEqual(current - 60_000);
    expect(Date.parse(minutes[60])).toBeLessThanOrEqual(current);
  });

  it('answers only a project key of the project', async () => {
    const h = await makeHarness({ startWorker: false });
    expect((await h.t.req('GET', '/projects/1/stats')).status).toBe(401);
    const user = await h.t.req('GET', '/projects/1/stats', { token: await h.userToken() });
    expect(user.status).toBe(403);
    expect(user.body.reason).toBe('PERMISSION_DENIED');
    const other = await h.t.req('GET', '/projects/2/stats', { token: h.t.adminKey });
    expect(other.status).toBe(404);
    expect(other.body.reason).toBe('PROJECT_NOT_FOUND');
    // any scope of the project's own keys reads them
    expect((await h.t.req('GET', '/projects/1/stats', { token: await h.projectKey(['events']) })).status).toBe(200);
  });
});
