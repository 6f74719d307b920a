// The delivery queue's claim index (deliveries_due) holds live rows only (migration 0016): a
// finished delivery's NULL next_attempt_time has no entry, so an outcome writes one index entry
// fewer and the index follows the queue, not its history. The queries that go through it must
// still find it (a claim that scanned the table would grow with the history instead).
import { describe, expect, it, onTestFinished } from 'vitest';
import { sql } from 'kysely';
import { makePostgresStore, makeSqliteStore, testDatabaseUrl } from '../../helpers/db.js';
import { DUE_SQLITE } from '../../../src/adapters/sql/deliveries-lease.js';

const T0 = '2030-01-01T00:00:00.000Z';
const delivery = (id: string) => ({
  id,
  projectId: 1,
  moduleId: 'm1',
  kind: 'event' as const,
  eventId: null,
  eventType: null,
  payload: '{}',
  creationTime: T0,
});

describe('deliveries_due: the claim index of live deliveries', () => {
  it('SQLite: is partial, and the claim and the queue figures still read through it', async () => {
    const { store, cleanup } = await makeSqliteStore();
    onTestFinished(cleanup);
    const db = store.sql.sqlite!;
    const indexes = db.pragma("index_list('deliveries')") as { name: string; partial: number }[];
    expect(indexes.find((i) => i.name === 'deliveries_due')).toMatchObject({ partial: 1 });
    const plan = (text: string, ...args: unknown[]) =>
      (db.prepare(`explain query plan ${text}`).all(...args) as { detail: string }[]).map((r) => r.detail).join('; ');
    expect(plan(DUE_SQLITE(false, 10), T0)).toMatch(/USING INDEX deliveries_due/);
    expect(plan(DUE_SQLITE(true, 10), T0, '["1/m1/event"]')).toMatch(/USING INDEX deliveries_due/);
    // the queue figures' live rows (deliveries.ts liveStats, stats)
    expect(plan('select min(creation_time) from deliveries where next_attempt_time is not null and project_id + 0 = ?', 1)).toMatch(
      /USING INDEX deliveries_due/,
    );
    // and it answers as before: finished rows are not due, live ones are
    await store.deliveries.insertMany([delivery('a'), delivery('b')]);
    const [a] = await store.deliveries.claim({ workerId: 'w', now: T0, leaseUntil: T0, limit: 1 });
    await store.deliveries.completeMany('w', [
      { id: a.id, projectId: 1, outcome: { status: 'success', attempts: [], roundAttempts: 1, nextAttemptTime: null, updateTime: T0 } },
    ]);
    expect(await store.deliveries.stats()).toEqual({ pending: 1, delivering: 0, oldestPendingTime: T0 });
    expect((await store.deliveries.claim({ workerId: 'w', now: T0, leaseUntil: T0, limit: 10 })).map((d) => d.id)).toEqual(['b']);
  });

  it.skipIf(!testDatabaseUrl)('PostgreSQL: is partial', async () => {
    const { store, cleanup } = await makePostgresStore(testDatabaseUrl ?? '');
    onTestFinished(cleanup);
    const r = await sql<{
      pred: string | null;
    }>`select pg_get_expr(indpred, indrelid) as pred from pg_index where indexrelid = 'deliveries_due'::regclass`.execute(store.sql.db);
    expect(r.rows[0]?.pred).toBe('(next_attempt_time IS NOT NULL)');
  });
});
