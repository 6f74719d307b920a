// GET /events (docs/concepts.md events history): Event records as delivered (docs/concepts.md#events), filters, checks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { emitEvent } from '../../../src/domain/event/emit.js';
import type { EventRecord } from '../../../src/ports/store.js';

describe('events history', () => {
  let t: TestApi;
  const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
  const events: EventRecord[] = [
    {
      eventType: 'doorOpened',
      eventData: { door: 'front' },
      timestamp: at(1),
      homeId: 7,
      originDeviceId: 11,
      originDeviceClass: 'lock',
      originDeviceIp: '10.0.0.5',
    },
    {
      eventType: 'doorOpened',
      eventData: { door: 'back' },
      timestamp: at(2),
      homeId: 8,
      originDeviceId: 12,
      originDeviceClass: 'lock',
      originDeviceIp: '10.0.0.6',
    },
    { eventType: 'report', eventData: {}, timestamp: at(3), homeId: 7, originProjectKeyId: 'k1', originProjectKeyName: 'ops' },
  ];
  beforeAll(async () => {
    t = await makeTestApi();
    for (const event of events) await emitEvent(t.deps, { projectId: 1, event });
  });
  afterAll(() => t.close());

  it('lists the events of the project newest first, exactly as delivered', async () => {
    const r = await t.req('GET', '/events', { token: t.adminKey });
    expect(r.status).toBe(200);
    expect(r.body).toEqual([...events].reverse());
    expect(r.headers.get('vnd.tinkermode.range')).toBe('0-2/3');
  });

  it('filters by home, device, type and time', async () => {
    const types = async (q: string) => (await t.req('GET', `/events?${q}`, { token: t.adminKey })).body.map((e: EventRecord) => e.timestamp);
    expect(await types('homeId=7')).toEqual([at(3), at(1)]);
    expect(await types('deviceId=12')).toEqual([at(2)]);
    expect(await types('eventType=doorOpened')).toEqual([at(2), at(1)]);
    expect(await types(`since=${at(2)}`)).toEqual([at(3), at(2)]);
    expect(await types(`until=${at(2)}`)).toEqual([at(1)]);
    expect(await types(`since=${encodeURIComponent('2026-01-01T01:00:02+01:00')}&until=${at(3)}`)).toEqual([at(2)]);
    expect(await types('homeId=7&eventType=report')).toEqual([at(3)]);
  });

  it('pages with skip and limit', async () => {
    const r = await t.req('GET', '/events?skip=1&limit=1', { token: t.adminKey });
    expect(r.body).toEqual([events[1]]);
    expect(r.headers.get('vnd.tinkermode.range')).toBe('1-1/3');
  });

  for (const q of ['homeId=x', 'homeId=2147483648', 'deviceId=-3', 'eventType=has%20space', 'since=2026-01-01T00:00Z', 'limit=0']) {
    it(`refuses ${q} with 403 INVALID_PARAMETERS`, async () => {
      const r = await t.req('GET', `/events?${q}`, { token: t.adminKey });
      expect(r.status).toBe(403);
      expect(r.body.reason).toBe('INVALID_PARAMETERS');
    });
  }
});
