// Store contract: general logs (level is a minimum, caller JSON) and the events history.
import { describe, expect, it } from 'vitest';
import type { EventFilter, EventRow, GeneralLogRow, Store } from '../../../src/ports/store.js';
import { all, at, freshStore, unique, type MakeStore } from './fixtures.js';

const log = (second: number, over: Partial<GeneralLogRow> = {}): GeneralLogRow => ({
  projectId: 1,
  caller: null,
  level: 1,
  source: 'api',
  text: `line ${second}`,
  timestamp: at(second),
  ...over,
});

const event = (second: number, over: Partial<EventRow['event']> = {}, projectId = 1): EventRow => ({
  id: unique('evt'),
  projectId,
  event: { eventType: 'button', eventData: { pressed: true }, timestamp: at(second), ...over },
});

const eventTypes = async (store: Store, f: Partial<EventFilter>) =>
  (await store.events.list({ projectId: 1, ...f }, all)).items.map((r) => r.event.eventType).sort();

export function logsContract(make: MakeStore): void {
  describe('logs', () => {
    it('round-trips the caller object and a null caller, newest first', async () => {
      const store = await freshStore(make);
      const first = log(1, { caller: { id: 'key-1', type: 'projectKey', name: 'CI ✓', sudoer: true } });
      const second = log(2, { caller: { id: 42, type: 'user' } });
      const third = log(3);
      for (const r of [second, first, third]) await store.logs.insert(r);
      expect(await store.logs.list({ projectId: 1 }, all)).toEqual({ total: 3, items: [third, second, first] });
    });

    it('lists only the given project, never rows of no project', async () => {
      const store = await freshStore(make);
      await store.logs.insert(log(1, { text: 'mine' }));
      await store.logs.insert(log(2, { projectId: 2 }));
      await store.logs.insert(log(3, { projectId: null }));
      expect((await store.logs.list({ projectId: 1 }, all)).items.map((r) => r.text)).toEqual(['mine']);
    });

    it('treats level as a minimum', async () => {
      const store = await freshStore(make);
      for (const level of [0, 1, 2, 3]) await store.logs.insert(log(level, { level }));
      const levels = async (level: number) => (await store.logs.list({ projectId: 1, level }, all)).items.map((r) => r.level);
      expect(await levels(2)).toEqual([3, 2]);
      expect(await levels(0)).toEqual([3, 2, 1, 0]);
      expect(await levels(3)).toEqual([3]);
    });

    it('filters by source and time (since inclusive, until exclusive), paging with the total', async () => {
      const store = await freshStore(make);
      for (const s of [10, 20, 30, 40]) await store.logs.insert(log(s, { source: s % 20 ? 'broker' : 'api' }));
      const texts = async (f: Record<string, unknown>) => (await store.logs.list({ projectId: 1, ...f }, all)).items.map((r) => r.text);
      expect(await texts({ source: 'broker' })).toEqual(['line 30', 'line 10']);
      expect(await texts({ since: at(20), until: at(40) })).toEqual(['line 30', 'line 20']);
      const page = await store.logs.list({ projectId: 1 }, { skip: 1, limit: 2 });
      expect(page.total).toBe(4);
      expect(page.items.map((r) => r.text)).toEqual(['line 30', 'line 20']);
    });
  });

  describe('events', () => {
    it('round-trips the whole event record, newest first', async () => {
      const store = await freshStore(make);
      const full = event(2, {
        eventType: 'temperature',
        eventData: { celsius: 21.5, nested: { list: [1, 'two', null] }, text: 'ünïcode 🌡' },
        homeId: 3,
        originDeviceId: 9,
        originDeviceClass: 'thermo',
        originDeviceIp: '2001:db8::1',
        originProjectKeyId: 'key-1',
        originProjectKeyName: 'CI',
      });
      const bare = event(1);
      await store.events.insert(bare);
      await store.events.insert(full);
      expect(await store.events.list({ projectId: 1 }, all)).toEqual({ total: 2, items: [full, bare] });
    });

    it('writes a batch whole and in order, whatever its size (SQLite runs 32 rows a statement, then one by one)', async () => {
      const store = await freshStore(make);
      const rows = Array.from({ length: 75 }, (_, i) =>
        event(i + 1, { eventType: `t${i}`, eventData: { i }, ...(i % 3 ? { homeId: i } : {}), ...(i % 2 ? { originDeviceId: 100 + i } : {}) }),
      );
      // the pipeline hands over the event's JSON; a row without it is serialised by the store
      for (const r of rows.slice(0, 40)) r.json = JSON.stringify(r.event);
      await store.events.insertMany(rows);
      expect(await store.events.list({ projectId: 1 }, all)).toEqual({
        total: 75,
        items: rows.map(({ id, projectId, event }) => ({ id, projectId, event })).reverse(),
      });
      expect(await eventTypes(store, { deviceId: 133 })).toEqual(['t33']);
      expect(await eventTypes(store, { homeId: 74 })).toEqual(['t74']);
    });

    it('filters by project, home, device and event type', async () => {
      const store = await freshStore(make);
      await store.events.insert(event(1, { eventType: 'a', homeId: 1, originDeviceId: 10 }));
      await store.events.insert(event(2, { eventType: 'b', homeId: 1, originDeviceId: 11 }));
      await store.events.insert(event(3, { eventType: 'c', homeId: 2 }));
      await store.events.insert(event(4, { eventType: 'd', homeId: 1 }, 2));
      expect(await eventTypes(store, {})).toEqual(['a', 'b', 'c']);
      expect(await eventTypes(store, { homeId: 1 })).toEqual(['a', 'b']);
      expect(await eventTypes(store, { deviceId: 11 })).toEqual(['b']);
      expect(await eventTypes(store, { eventType: 'c' })).toEqual(['c']);
      expect(await eventTypes(store, { homeId: 2, deviceId: 10 })).toEqual([]);
    });

    it('filters by time (since inclusive, until exclusive), paging with the total', async () => {
      const store = await freshStore(make);
      for (const s of [10, 20, 30, 40]) await store.events.insert(event(s, { eventType: `t${s}` }));
      expect(await eventTypes(store, { since: at(20), until: at(40) })).toEqual(['t20', 't30']);
      const page = await store.events.list({ projectId: 1 }, { skip: 1, limit: 2 });
      expect(page.total).toBe(4);
      expect(page.items.map((r) => r.event.eventType)).toEqual(['t30', 't20']);
    });
  });
}
