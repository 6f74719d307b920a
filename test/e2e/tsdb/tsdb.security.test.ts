// Home time series, who may do what (docs/timeseries.md#access): members of the home read; owners and
// project keys (scope `data`) delete; nobody else learns the home or its series exist.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../helpers/wait.js';
import { createProject } from '../../../src/domain/project/create.js';
import { backends, connectGateway, tsdbWorld, type TsdbWorld } from './fixtures.js';

const S = 'sec-1';

describe.each(backends)('tsdb access (%s)', (_name, backend) => {
  let w: TsdbWorld;
  beforeAll(async () => {
    w = await tsdbWorld(backend);
    const gw = await connectGateway(w.t, w.gateway, false);
    await gw.event('timeSeriesData', { timeSeriesData: [{ seriesId: S, timestamp: Date.UTC(2026, 9, 1), value: 1 }] });
    await gw.endAsync();
    // positive control for every check below: the member reads the series
    await eventually(async () => (await w.get(`/${S}`)).status === 200);
  });
  afterAll(async () => w?.close());

  const paths = () => ['', `/${S}`, `/${S}/timeRange`, `/${S}/data?begin=2026-10-01T00:00:00.000Z&end=2026-10-02T00:00:00.000Z`];

  it('a home member, an owner and a project key with scope data read', async () => {
    const dataKey = (await w.t.seedProjectKey(['data'])).key;
    for (const token of [w.member, w.owner, w.t.adminKey, dataKey]) {
      for (const p of paths()) expect((await w.get(p, token)).status, p).toBe(200);
    }
  });

  it('without a credential: 401', async () => {
    for (const p of paths()) expect((await w.t.http('GET', `/homes/${w.homeId}/smartModules/tsdb/timeSeries${p}`)).status).toBe(401);
  });

  it('a user of the project who is not a member, and anyone of another project: 404, the home unknown', async () => {
    const outsider = (await w.t.seedUser()).token;
    const other = await createProject({ deps: w.t.deps, input: { body: { name: 'other' } } });
    const foreignKey = (await w.t.seedProjectKey(['admin'], other.id)).key;
    const foreignHome = await w.t.seedHome({ projectId: other.id });
    const foreignUser = (await w.t.seedUser({ projectId: other.id, homeIds: [foreignHome] })).token;
    for (const token of [outsider, foreignKey, foreignUser]) {
      for (const p of paths()) {
        const r = await w.get(p, token);
        expect(r.status, p).toBe(404);
        expect(r.body.reason).toBe('HOME_NOT_FOUND');
      }
      const del = await w.t.http('DELETE', `/homes/${w.homeId}/smartModules/tsdb/timeSeries/${S}`, { token });
      expect(del.status).toBe(404);
    }
  });

  it('a project key without scope data, and the device itself: 403', async () => {
    const kvKey = (await w.t.seedProjectKey(['kv'])).key;
    for (const token of [kvKey, w.gateway.key]) {
      for (const p of paths()) expect((await w.get(p, token)).status, p).toBe(403);
    }
  });

  it('a member who is not an owner may not delete: 403, and the series stays', async () => {
    const del = await w.t.http('DELETE', `/homes/${w.homeId}/smartModules/tsdb/timeSeries/${S}`, { token: w.member });
    expect(del.status).toBe(403);
    expect((await w.get(`/${S}`)).status).toBe(200);
  });
});
