// Store contract: the command outbox (docs/concepts.md#command-outbox): bounds and idempotency
// keys at creation, claims that send a command once per connection even when callers race,
// delivery, answers, cancellation, expiry and retention.
import { describe, expect, it } from 'vitest';
import type { NewCommand, Store } from '../../../src/ports/store.js';
import { all, at, deviceInput, freshStore, newProject, unique, type MakeStore } from './fixtures.js';

async function device(store: Store): Promise<{ projectId: number; deviceId: number }> {
  const p = await newProject(store);
  const d = await store.devices.create(deviceInput(p.id));
  return { projectId: p.id, deviceId: d.id };
}

let seq = 0;
const cmd = (d: { projectId: number; deviceId: number }, over: Partial<NewCommand> = {}): NewCommand => {
  seq++;
  return {
    id: `c-${String(seq).padStart(6, '0')}`,
    projectId: d.projectId,
    deviceId: d.deviceId,
    action: 'blink',
    parameters: { n: seq },
    ackRequired: false,
    key: null,
    creationTime: at(seq),
    expirationTime: at(seq + 3600),
    ...over,
  };
};

async function created(store: Store, c: NewCommand) {
  const r = await store.commands.create(c, 100);
  if ('full' in r) throw new Error('outbox full');
  return r.row;
}

export function commandsContract(make: MakeStore): void {
  describe('commands (outbox)', () => {
    it('creates a queued command and reads it back', async () => {
      const store = await freshStore(make);
      const d = await device(store);
      const c = cmd(d, { key: 'k1', ackRequired: true });
      const row = await created(store, c);
      expect(row).toMatchObject({ ...c, state: 'queued', sentTime: null, deliveredTime: null, ackTime: null, finishTime: null, result: null, sends: 0 });
      expect(await store.commands.get(c.id)).toEqual(row);
      expect(await store.commands.get('nope')).toBeUndefined();
    });

    it('answers the live command with the same key instead of creating one; an expired one frees the key', async () => {
      const store = await freshStore(make);
      const d = await device(store);
      const first = cmd(d, { key: 'same' });
      await created(store, first);
      const again = await store.commands.create(cmd(d, { key: 'same' }), 100);
      expect(again).toMatchObject({ existing: true, row: { id: first.id } });
      // another device may use the same key
      const other = await device(store);
      expect(await store.commands.create(cmd(other, { key: 'same' }), 100)).not.toHaveProperty('existing');
      // past its expiration the key is free again
      const later = cmd(d, { key: 'same', creationTime: at(seq + 7200), expirationTime: at(seq + 9000) });
      const r = await store.commands.create(later, 100);
      expect(r).toMatchObject({ row: { id: later.id } });
      expect(r).not.toHaveProperty('existing');
    });

    it('refuses a command past the bound of unfinished ones; finished ones do not count', async () => {
      const store = await freshStore(make);
      const d = await device(store);
      const a = await created(store, cmd(d));
      await created(store, cmd(d));
      expect(await store.commands.create(cmd(d), 2)).toEqual({ full: true });
      await store.commands.finish(a.id, d.deviceId, 'cancel', { state: 'cancelled', finishTime: at(seq) });
      expect(await store.commands.create(cmd(d), 2)).not.toHaveProperty('full');
    });

    it('keeps the bound under concurrent creates', async () => {
      const store = await freshStore(make);
      const d = await device(store);
      const results = await Promise.all(Array.from({ length: 8 }, () => store.commands.create(cmd(d), 5)));
      expect(results.filter((r) => 'full' in r)).toHaveLength(3);
      expect((await store.commands.list(d.deviceId, undefined, all)).total).toBe(5);
    });

    it('lists newest first, by state, with paging', async () => {
      const store = await freshStore(make);
      const d = await device(store);
      const a = await created(store, cmd(d));
      const b = await created(store, cmd(d));
      const c = await created(store, cmd(d));
      await store.commands.finish(b.id, d.deviceId, 'cancel', { state: 'cancelled', finishTime: at(seq) });
      const list = await store.commands.list(d.deviceId, undefined, all);
      expect(list.total).toBe(3);
      expect(list.items.map((x) => x.id)).toEqual([c.id, b.id, a.id]);
      expect((await store.commands.list(d.deviceId, ['queued'], all)).items.map((x) => x.id)).toEqual([c.id, a.id]);
      expect((await store.commands.list(d.deviceId, undefined, { skip: 1, limit: 1 })).items.map((x) => x.id)).toEqual([b.id]);
    });

    it('claims due commands for a connection in creation order, once per connection', async () => {
      const store = await freshStore(make);
      const d = await device(store);
      const a = await created(store, cmd(d));
      const b = await created(store, cmd(d, { ackRequired: true }));
      const now = at(seq);
      const first = await store.commands.claim(d.deviceId, 'n1:1', now, true);
      expect(first.map((x) => [x.id, x.state, x.connectionId, x.sends])).toEqual([
        [a.id, 'sent', 'n1:1', 1],
        [b.id, 'sent', 'n1:1', 1],
      ]);
      expect(await store.commands.claim(d.deviceId, 'n1:1', now, true)).toEqual([]);
      // a command created while connected: only what no connection has had yet
      const c = await created(store, cmd(d));
      expect((await store.commands.claim(d.deviceId, 'n1:1', now, false)).map((x) => x.id)).toEqual([c.id]);
      // delivered: without ackRequired it is final and never sent again; with it, it is
      expect(await store.commands.delivered(a.id, 'n1:1', now, true)).toMatchObject({ state: 'delivered', deliveredTime: now, finishTime: now });
      expect(await store.commands.delivered(b.id, 'n1:1', now, false)).toMatchObject({ state: 'delivered', finishTime: null });
      expect(await store.commands.delivered(b.id, 'n1:1', now, false)).toBeUndefined();
      // the next connection gets what is still due: b (waits for its answer) and c (never confirmed)
      const next = await store.commands.claim(d.deviceId, 'n2:1', now, true);
      expect(next.map((x) => [x.id, x.state, x.sends])).toEqual([
        [b.id, 'delivered', 2],
        [c.id, 'sent', 2],
      ]);
      // a delivery confirmed by an older connection changes nothing
      expect(await store.commands.delivered(c.id, 'n1:1', now, true)).toBeUndefined();
    });

    it('gives each command to one of two racing claims for the same connection', async () => {
      const store = await freshStore(make);
      const d = await device(store);
      for (let i = 0; i < 10; i++) await created(store, cmd(d));
      const now = at(seq);
      const [x, y] = await Promise.all([store.commands.claim(d.deviceId, 'n1:1', now, true), store.commands.claim(d.deviceId, 'n1:1', now, true)]);
      expect(x.length + y.length).toBe(10);
      expect(new Set([...x, ...y].map((r) => r.id)).size).toBe(10);
    });

    it('does not claim expired commands', async () => {
      const store = await freshStore(make);
      const d = await device(store);
      const c = await created(store, cmd(d, { expirationTime: at(seq + 1) }));
      expect(await store.commands.claim(d.deviceId, 'n1:1', at(seq + 1), true)).toEqual([]);
      expect((await store.commands.get(c.id))?.state).toBe('queued');
    });

    it('takes an answer once, from a queued, sent or delivered command of that device only', async () => {
      const store = await freshStore(make);
      const d = await device(store);
      const other = await device(store);
      const c = await created(store, cmd(d, { ackRequired: true }));
      const patch = { state: 'acked' as const, finishTime: at(seq), ackTime: at(seq), result: { ok: 1 } };
      expect(await store.commands.finish(c.id, other.deviceId, 'answer', patch)).toBeUndefined();
      await store.commands.claim(d.deviceId, 'n1:1', at(seq), true);
      expect(await store.commands.finish(c.id, d.deviceId, 'answer', patch)).toMatchObject({ state: 'acked', ackTime: at(seq), result: { ok: 1 } });
      expect(await store.commands.finish(c.id, d.deviceId, 'answer', { ...patch, state: 'failed' })).toBeUndefined();
      expect(await store.commands.finish(c.id, d.deviceId, 'cancel', { state: 'cancelled', finishTime: at(seq) })).toBeUndefined();
    });

    it('expires unfinished commands past their time, once, and counts the depth', async () => {
      const store = await freshStore(make);
      const d = await device(store);
      const soon = await created(store, cmd(d, { expirationTime: at(seq + 1) }));
      const late = await created(store, cmd(d));
      const done = await created(store, cmd(d, { expirationTime: at(seq + 1) }));
      await store.commands.finish(done.id, d.deviceId, 'cancel', { state: 'cancelled', finishTime: at(seq) });
      expect(await store.commands.depth()).toBe(2);
      const expired = await store.commands.expire(at(seq + 2), 100);
      expect(expired.map((x) => [x.id, x.state])).toEqual([[soon.id, 'expired']]);
      expect(await store.commands.expire(at(seq + 2), 100)).toEqual([]);
      expect(await store.commands.depth()).toBe(1);
      expect((await store.commands.get(late.id))?.state).toBe('queued');
    });

    it('prunes finished commands older than the cutoff, and a deleted device its commands', async () => {
      const store = await freshStore(make);
      const d = await device(store);
      const old = await created(store, cmd(d));
      const open = await created(store, cmd(d));
      await store.commands.finish(old.id, d.deviceId, 'cancel', { state: 'cancelled', finishTime: at(1) });
      expect(await store.commands.prune(at(2), 100)).toBe(1);
      expect(await store.commands.get(old.id)).toBeUndefined();
      expect(await store.commands.get(open.id)).toBeDefined();
      expect(await store.commands.deleteForDevice(d.deviceId)).toBe(1);
      expect(await store.commands.get(open.id)).toBeUndefined();
    });

    it('keeps parameters and a missing key as given', async () => {
      const store = await freshStore(make);
      const d = await device(store);
      const c = cmd(d, { parameters: { nested: { a: [1, 'x', null] }, s: unique('s') } });
      expect((await created(store, c)).parameters).toEqual(c.parameters);
      expect((await store.commands.get(c.id))?.key).toBeNull();
    });
  });
}
