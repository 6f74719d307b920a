// Who may read the access logs, the general log and the events history: a project key with the
// right scope (`logs`, `events`), for its own project only. Entries never name their project.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { expectSpecStatus, runCommonRouteTests } from '../../helpers/auth-cases.js';
import { seedDevice, seedHome, seedKey, seedProject, seedUser } from '../../helpers/store-seed.js';
import { writeLog } from '../../../src/domain/log/write.js';
import { emitEvent } from '../../../src/domain/event/emit.js';

describe('logs and events history: security', () => {
  let t: TestApi;
  let other: { projectId: number; adminKey: string };
  let deviceKey: string;
  let userToken: string;
  let kvOnlyKey: string;
  let logsKey: string;
  let eventsKey: string;
  beforeAll(async () => {
    t = await makeTestApi();
    other = await seedProject(t.deps);
    ({ key: deviceKey } = await seedDevice(t.deps));
    const home = await seedHome(t.deps);
    ({ token: userToken } = await seedUser(t.deps, { homeId: home.id, role: 'owner' }));
    ({ key: kvOnlyKey } = await seedKey(t.deps, { scopes: ['kv'] }));
    ({ key: logsKey } = await seedKey(t.deps, { scopes: ['logs'] }));
    ({ key: eventsKey } = await seedKey(t.deps, { scopes: ['events'] }));
    // something of project 1 in every history, which project 2 must never see
    await writeLog({ deps: t.deps, input: { projectId: 1, level: 'info', source: 'api', text: 'project-one-secret' } });
    await emitEvent(t.deps, { projectId: 1, event: { eventType: 'projectOneSecret', eventData: {}, timestamp: new Date().toISOString() } });
    await t.req('GET', '/devices/1/kv/project-one-path', { token: t.adminKey });
    await t.deps.accessLog.flush();
  });
  afterAll(() => t.close());

  runCommonRouteTests(() => t, { method: 'GET', path: () => '/httpAccessLogs', spec: 'getHTTPAccessLogEntries' });
  runCommonRouteTests(() => t, { method: 'GET', path: () => '/logs', spec: 'getLogEntries' });
  runCommonRouteTests(() => t, { method: 'GET', path: () => '/events' });

  const lists = [
    { path: '/httpAccessLogs', spec: 'getHTTPAccessLogEntries' as const, scope: 'logs' },
    { path: '/logs', spec: 'getLogEntries' as const, scope: 'logs' },
    { path: '/events', spec: undefined, scope: 'events' },
  ];

  for (const l of lists) {
    it(`${l.path}: refuses devices, users and keys without the ${l.scope} scope with 403 PERMISSION_DENIED`, async () => {
      for (const token of [deviceKey, userToken, kvOnlyKey, l.scope === 'logs' ? eventsKey : logsKey]) {
        const r = await t.req('GET', l.path, { token });
        expect(r.status).toBe(403);
        expect(r.body.reason).toBe('PERMISSION_DENIED');
        if (l.spec) expectSpecStatus(l.spec, r.status, 200);
      }
    });

    it(`${l.path}: refuses another project's id with 403 PERMISSION_DENIED, even before checking the query`, async () => {
      const r = await t.req('GET', `${l.path}?projectId=1`, { token: other.adminKey });
      expect(r.status).toBe(403);
      expect(r.body.reason).toBe('PERMISSION_DENIED');
      const bad = await t.req('GET', `${l.path}?since=garbage`, { token: deviceKey });
      expect(bad.body.reason).toBe('PERMISSION_DENIED');
    });

    it(`${l.path}: shows another project nothing of project 1, and entries carry no projectId`, async () => {
      const mine = await t.req('GET', l.path, { token: t.adminKey });
      expect(mine.status).toBe(200);
      expect(mine.body.length).toBeGreaterThan(0);
      for (const e of mine.body) expect(e).not.toHaveProperty('projectId');
      const theirs = await t.req('GET', l.path, { token: other.adminKey });
      expect(theirs.status).toBe(200);
      const text = JSON.stringify(theirs.body);
      expect(text).not.toContain('project-one');
      expect(text).not.toContain('projectOneSecret');
    });
  }

  it('lets a key with only the logs scope read both logs, and one with only events read the events', async () => {
    expect((await t.req('GET', '/httpAccessLogs', { token: logsKey })).status).toBe(200);
    expect((await t.req('GET', '/logs', { token: logsKey })).status).toBe(200);
    expect((await t.req('GET', '/events', { token: eventsKey })).status).toBe(200);
  });
});
