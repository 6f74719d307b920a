// Device lists at fleet size (docs/api.md#device-lists): keyset paging by `afterId`, `inHome`,
// and `total=false`, which leaves the count out of the range header.
import { describe, expect, it } from 'vitest';
import { makeTestApi } from '../../helpers/api.js';

describe('GET /devices paging and filters for long lists', () => {
  it('pages by afterId, filters by inHome and leaves the count out with total=false', async () => {
    const t = await makeTestApi();
    const home = await t.req('POST', '/homes', { token: t.adminKey, body: { name: 'h', projectId: 1 } });
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) {
      const body: Record<string, unknown> = { projectId: 1, deviceClass: 'default', name: `d${i}` };
      const r = await t.req('POST', '/devices', { token: t.adminKey, body });
      expect(r.status).toBe(201);
      ids.push(r.body.id);
    }
    // two of them in the home
    for (const id of ids.slice(0, 2)) expect((await t.req('PATCH', `/devices/${id}`, { token: t.adminKey, body: { homeId: home.body.id } })).status).toBe(204);

    const first = await t.req('GET', '/devices?projectId=1&limit=2', { token: t.adminKey });
    const firstIds = first.body.map((d: { id: number }) => d.id);
    const next = await t.req('GET', `/devices?projectId=1&limit=2&afterId=${firstIds[1]}`, { token: t.adminKey });
    expect(next.body.map((d: { id: number }) => d.id)).toEqual(ids.filter((id) => id > firstIds[1]).slice(0, 2));

    const none = await t.req('GET', '/devices?projectId=1&inHome=false', { token: t.adminKey });
    expect(none.body.every((d: { homeId?: number }) => d.homeId === undefined)).toBe(true);
    expect(none.body.map((d: { id: number }) => d.id)).toEqual(expect.arrayContaining(ids.slice(2)));
    const inHome = await t.req('GET', '/devices?projectId=1&inHome=true', { token: t.adminKey });
    expect(inHome.body.map((d: { id: number }) => d.id)).toEqual(ids.slice(0, 2));

    const counted = await t.req('GET', '/devices?projectId=1&inHome=true&limit=1', { token: t.adminKey });
    expect(counted.headers.get('vnd.tinkermode.range')).toBe('0-0/2');
    const uncounted = await t.req('GET', '/devices?projectId=1&inHome=true&limit=1&total=false', { token: t.adminKey });
    expect(uncounted.headers.get('vnd.tinkermode.range')).toBe('0-0/*');
    expect(uncounted.body).toEqual(counted.body);

    const bad = await t.req('GET', '/devices?projectId=1&inHome=maybe', { token: t.adminKey });
    expect(bad.status).toBe(403);
    expect(JSON.stringify(bad.body)).toContain('inHome must be true or false');
  });
});
