// The schedule tick fires exactly once per due time, however many workers tick at once
// (docs/concepts.md#reports): two scheduler instances on one store, two processes on one SQLite file, two
// pools on one PostgreSQL schema (when HEARTH_TEST_DATABASE_URL is set).
import { describe, expect, it, onTestFinished } from 'vitest';
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createSqlStore, type SqlStore } from '../../../src/adapters/sql/store.js';
import { createLocalBus } from '../../../src/adapters/local/bus.js';
import { systemClock, type Clock } from '../../../src/ports/clock.js';
import { fireDueReports, newReportId } from '../../../src/domain/report/index.js';
import type { ReportRow, Store } from '../../../src/ports/store.js';
import { eventually } from '../../helpers/wait.js';
import { makePostgresStore, makeSqliteStore, testDatabaseUrl } from '../../helpers/db.js';

const ROOT = resolve(import.meta.dirname, '../../..');

async function seedReports(store: Store, n: number, nextRunTime: string, cron = '* * * * *'): Promise<string[]> {
  const ids: string[] = [];
  const now = new Date().toISOString();
  for (let i = 0; i < n; i++) {
    const r: ReportRow = {
      id: newReportId(),
      projectId: 1,
      name: `r${i}`,
      description: null,
      kind: 'devices',
      filter: null,
      window: null,
      format: 'csv',
      schedule: { cron, timezone: 'UTC' },
      destination: { type: 'store' },
      keySealed: null,
      enabled: true,
      creationTime: now,
      modificationTime: now,
      lastRunTime: null,
      nextRunTime,
      leaseOwner: null,
    };
    await store.reports.create(r);
    ids.push(r.id);
  }
  return ids;
}

async function runsOf(store: Store, ids: string[]): Promise<number[]> {
  return Promise.all(ids.map(async (id) => (await store.reportRuns.list(id, { skip: 0, limit: 100 })).total));
}

const deps = (store: Store, clock: Clock = systemClock) => ({ store, bus: createLocalBus(), clock });

// each test opens real stores (the last one migrates a PostgreSQL schema; one spawns two tsx
// processes, 40 s on a loaded machine): the timeout only bounds a hang
describe('report schedule tick: exactly once', { timeout: 120_000 }, () => {
  // The ticks below read a clock of the test's, fixed at one instant: a next time is checked
  // against the instant the tick ran at, not against a later Date.now(), which on a loaded machine
  // can cross the minute (or the five) the tick counted from, and a second tick at the same
  // instant finds nothing left to fire (with the system clock it could have found the next minute due).
  const MINUTE = 60_000;
  const at = (t: number): Clock => ({ now: () => new Date(t) });

  it('two scheduler instances on one store: every due report fires once, the next tick is later', async () => {
    const { store, cleanup } = await makeSqliteStore();
    onTestFinished(cleanup);
    const now = Date.now();
    const due = new Date(now - 1000).toISOString();
    const ids = await seedReports(store, 20, due);
    const [a, b] = await Promise.all([
      fireDueReports({ deps: deps(store, at(now)), input: { owner: 'worker-a' } }),
      fireDueReports({ deps: deps(store, at(now)), input: { owner: 'worker-b' } }),
    ]);
    expect(a + b).toBe(20);
    expect(await runsOf(store, ids)).toEqual(ids.map(() => 1));
    const r = (await store.reports.get(ids[0]))!;
    expect(r.lastRunTime).toBe(due);
    expect(['worker-a', 'worker-b']).toContain(r.leaseOwner);
    // '* * * * *': the start of the minute after the tick
    expect(Date.parse(r.nextRunTime!)).toBe(Math.floor(now / MINUTE) * MINUTE + MINUTE);
    const run = (await store.reportRuns.list(ids[0], { skip: 0, limit: 1 })).items[0];
    expect(run).toMatchObject({ trigger: 'schedule', status: 'queued', dueTime: due });
    expect(await fireDueReports({ deps: deps(store, at(now)), input: { owner: 'worker-a' } })).toBe(0);
  });

  it('ticks missed while no worker ran fire once, and the next time counts from now', async () => {
    const { store, cleanup } = await makeSqliteStore();
    onTestFinished(cleanup);
    const now = Date.now();
    const [id] = await seedReports(store, 1, new Date(now - 3 * 3600_000).toISOString(), '*/5 * * * *');
    expect(await fireDueReports({ deps: deps(store, at(now)), input: { owner: 'w' } })).toBe(1);
    expect(await fireDueReports({ deps: deps(store, at(now)), input: { owner: 'w' } })).toBe(0);
    // '*/5 * * * *': the next five minutes after the tick, not one of the 36 missed
    const next = Date.parse((await store.reports.get(id))!.nextRunTime!);
    expect(next).toBe(Math.floor(now / (5 * MINUTE)) * 5 * MINUTE + 5 * MINUTE);
    // just before its next time it does not fire; at it, it fires again
    expect(await fireDueReports({ deps: deps(store, at(next - 1)), input: { owner: 'w' } })).toBe(0);
    expect(await fireDueReports({ deps: deps(store, at(next + 10)), input: { owner: 'w' } })).toBe(1);
    expect((await runsOf(store, [id]))[0]).toBe(2);
  });

  it('disabled reports do not fire', async () => {
    const { store, cleanup } = await makeSqliteStore();
    onTestFinished(cleanup);
    const [id] = await seedReports(store, 1, new Date(Date.now() - 1000).toISOString());
    await store.reports.update(id, { enabled: false, modificationTime: new Date().toISOString() });
    expect(await fireDueReports({ deps: deps(store), input: { owner: 'w' } })).toBe(0);
  });

  it('two worker processes on one SQLite file fire each report once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hearth-tick-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'hearth.db');
    const store = await createSqlStore({ url: file });
    onTestFinished(() => store.close());
    // not due until both processes are up and polling; once a year, so that no report comes due
    // again while they poll (with every minute, a loaded machine's 76 s run crossed a minute and
    // the children fired 15)
    const ids = await seedReports(store, 10, new Date(Date.now() + 3600_000).toISOString(), '0 0 1 1 *');
    const children = ['proc-a', 'proc-b'].map((owner) => {
      const child = spawn(join(ROOT, 'node_modules/.bin/tsx'), [join(import.meta.dirname, 'tick-child.ts'), file, owner], {
        cwd: ROOT,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      onTestFinished(() => void child.kill());
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      const ready = new Promise<void>((res, rej) => {
        child.stdout.on('data', () => out.includes('ready') && res());
        child.on('exit', (code) => rej(new Error(`tick child ${owner} exited ${code}: ${out}`)));
      });
      const result = new Promise<{ owner: string; fired: number }>((res, rej) =>
        child.on('exit', (code) => {
          const last = out.trim().split('\n').at(-1) ?? '';
          if (code === 0 && last.startsWith('{')) res(JSON.parse(last));
          else rej(new Error(`tick child ${owner} exited ${code}: ${out}`));
        }),
      );
      return { child, ready, result };
    });
    await Promise.all(children.map((c) => c.ready));
    // every report comes due at once, under both polling processes
    const due = new Date(Date.now() - 1).toISOString();
    for (const id of ids) await store.reports.update(id, { nextRunTime: due, modificationTime: due });
    // wait for the outcome (every report ran) instead of a fixed 1.5 s a loaded machine may not
    // fit its ticks in; the children count what they fired until they exit, so a second firing
    // is still counted below
    await eventually(async () => (await runsOf(store, ids)).every((n) => n >= 1), 20_000, 'every report fired');
    for (const c of children) c.child.stdin.end();
    const results = await Promise.all(children.map((c) => c.result));
    expect(results.reduce((n, r) => n + r.fired, 0)).toBe(10);
    expect(await runsOf(store, ids)).toEqual(ids.map(() => 1));
  });

  it.skipIf(!testDatabaseUrl)('two pools on one PostgreSQL schema fire each report once', async () => {
    const a = await makePostgresStore(testDatabaseUrl!);
    onTestFinished(a.cleanup);
    const schema = (await a.store.sql.db.selectNoFrom((e) => e.fn<string>('current_schema', []).as('s')).executeTakeFirstOrThrow()).s;
    const b = await createSqlStore({ url: testDatabaseUrl!, schema });
    onTestFinished(() => b.close());
    const ids = await seedReports(a.store, 30, new Date(Date.now() - 1000).toISOString());
    const fired = await Promise.all([
      fireDueReports({ deps: deps(a.store), input: { owner: 'pg-a' } }),
      fireDueReports({ deps: deps(b), input: { owner: 'pg-b' } }),
      fireDueReports({ deps: deps(a.store), input: { owner: 'pg-c' } }),
      fireDueReports({ deps: deps(b), input: { owner: 'pg-d' } }),
    ]);
    expect(fired.reduce((x, y) => x + y, 0)).toBe(30);
    expect(await runsOf(a.store, ids)).toEqual(ids.map(() => 1));
  });
});
