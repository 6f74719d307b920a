// The access-log recorder (API.md §8: "recording must not slow the API: batch the writes"):
// rows wait in memory and reach the store in batches, off the request path.
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { createSqlStore } from '../../../src/adapters/sql/store.js';
import { createAccessLogRecorder, loggablePath } from '../../../src/http/access-log.js';
import { accessLogRow } from '../../helpers/store-seed.js';
import type { Store } from '../../../src/ports/store.js';

const row = accessLogRow;

describe('access-log recorder', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c();
  });

  /** a real SQLite store whose insertMany calls are counted */
  async function counted() {
    const dir = mkdtempSync(join(tmpdir(), 'hearth-alog-'));
    const store = await createSqlStore({ url: join(dir, 'hearth.db') });
    const calls: number[] = [];
    const real = store.accessLogs.insertMany.bind(store.accessLogs);
    const wrapped: Store = { ...store, accessLogs: { ...store.accessLogs, insertMany: (rows) => (calls.push(rows.length), real(rows)) } };
    cleanups.push(async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    });
    return { store: wrapped, calls };
  }

  it('writes nothing while a request is being recorded; the rows appear after flush(), in one batch', async () => {
    const { store, calls } = await counted();
    const rec = createAccessLogRecorder({ store, logger: pino({ level: 'silent' }), flushMs: 60_000, batchSize: 100 });
    cleanups.push(() => rec.close());
    for (let i = 0; i < 10; i++) rec.record(row(i));
    expect(calls).toEqual([]);
    expect((await store.accessLogs.list({ projectId: 1 }, { skip: 0, limit: 100 })).total).toBe(0);
    await rec.flush();
    expect(calls).toEqual([10]);
    const listed = await store.accessLogs.list({ projectId: 1 }, { skip: 0, limit: 100 });
    expect(listed.total).toBe(10);
    expect(listed.items[0]).toEqual(row(9));
  });

  it('starts a write as soon as a full batch is waiting, without waiting for the timer', async () => {
    const { store, calls } = await counted();
    const rec = createAccessLogRecorder({ store, logger: pino({ level: 'silent' }), flushMs: 60_000, batchSize: 5 });
    cleanups.push(() => rec.close());
    for (let i = 0; i < 5; i++) rec.record(row(i));
    await rec.flush();
    expect(calls[0]).toBe(5);
  });

  it('flushes on its timer', async () => {
    // time is the subject: the recorder's interval is a fake one, moved on by the test (the
    // store and its writer thread run for real)
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    onTestFinished(() => void vi.useRealTimers());
    const { store, calls } = await counted();
    const rec = createAccessLogRecorder({ store, logger: pino({ level: 'silent' }), flushMs: 1000, batchSize: 100 });
    cleanups.push(() => rec.close());
    rec.record(row(1));
    vi.advanceTimersByTime(999);
    expect(calls).toEqual([]); // not before its time
    vi.advanceTimersByTime(1);
    expect(calls).toEqual([1]); // the tick started the write
    await expect.poll(async () => (await store.accessLogs.list({ projectId: 1 }, { skip: 0, limit: 10 })).total, { timeout: 30_000 }).toBe(1);
  });

  it('bounds memory when the store is down: drops the oldest rows and keeps the newest', async () => {
    const { store } = await counted();
    let fail = true;
    const flaky: Store = {
      ...store,
      accessLogs: { ...store.accessLogs, insertMany: (rows) => (fail ? Promise.reject(new Error('down')) : store.accessLogs.insertMany(rows)) },
    };
    const rec = createAccessLogRecorder({ store: flaky, logger: pino({ level: 'silent' }), flushMs: 60_000, batchSize: 2 });
    cleanups.push(() => rec.close());
    await rec.flush();
    // batchSize 2 → at most 40 rows wait; the failed writes lose their rows, memory stays bounded
    for (let i = 0; i < 200; i++) rec.record(row(i));
    await rec.flush();
    fail = false;
    rec.record(row(999));
    await rec.flush();
    const listed = await store.accessLogs.list({ projectId: 1 }, { skip: 0, limit: 1000 });
    expect(listed.items.map((r) => r.path)).toContain('/r/999');
    expect(listed.total).toBeLessThanOrEqual(40);
  });

  it('close() writes what is still waiting', async () => {
    const { store } = await counted();
    const rec = createAccessLogRecorder({ store, logger: pino({ level: 'silent' }), flushMs: 60_000, batchSize: 100 });
    rec.record(row(7));
    await rec.close();
    expect((await store.accessLogs.list({ projectId: 1 }, { skip: 0, limit: 10 })).total).toBe(1);
  });

  it('redacts the token of /deviceLogger paths and leaves other paths alone', () => {
    expect(loggablePath('/deviceLogger/pt.secret-token')).toBe('/deviceLogger/[redacted]');
    expect(loggablePath('/deviceLogger/pt.secret-token/uploads/u1/parts/2')).toBe('/deviceLogger/[redacted]/uploads/u1/parts/2');
    expect(loggablePath('/devices/1/kv/deviceLogger')).toBe('/devices/1/kv/deviceLogger');
  });
});
