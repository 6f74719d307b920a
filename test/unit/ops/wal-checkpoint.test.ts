// The WAL of the main SQLite file is copied back into it by a thread of its own (checkpointer.ts),
// not by the connection on the event loop: that one checkpoints only past a backstop, and rows it
// commits reach the file itself without it checkpointing.
import { afterEach, describe, expect, it } from 'vitest';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { createSqlStore } from '../../../src/adapters/sql/store.js';
import { BACKSTOP_PAGES } from '../../../src/adapters/sql/checkpointer.js';
import { MIN_WAIT_MS } from '../../helpers/wait.js';

describe('SQLite WAL checkpoints', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('are made by the checkpoint thread: committed rows reach the file while the main connection only keeps a backstop', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hearth-ckpt-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'hearth.db');
    const store = await createSqlStore({ url: file });
    cleanups.push(() => store.close());
    const main = store.sql.sqlite!;
    expect(main.pragma('wal_autocheckpoint', { simple: true })).toBe(BACKSTOP_PAGES);
    main.exec('create table probe (n integer)');
    main.prepare('insert into probe values (?)').run(42);
    // a copy of the file alone, without its WAL: the table is there once a checkpoint copied it
    const inFile = () => {
      const copy = join(dir, `copy-${Math.random()}.db`);
      copyFileSync(file, copy);
      const db = new BetterSqlite3(copy);
      try {
        return db.prepare("select count(*) as n from sqlite_master where name = 'probe'").get() as { n: number };
      } catch {
        return { n: 0 };
      } finally {
        db.close();
      }
    };
    await expect.poll(() => inFile().n, { timeout: MIN_WAIT_MS }).toBe(1);
    // well under the backstop: the main connection did not copy it
    expect((main.pragma('wal_checkpoint(PASSIVE)') as { log: number }[])[0].log).toBeLessThan(BACKSTOP_PAGES);
  });

  it('are left to the connection in a one-shot process (no thread)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hearth-ckpt-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const store = await createSqlStore({ url: join(dir, 'hearth.db'), accessLogThread: false });
    cleanups.push(() => store.close());
    expect(store.sql.sqlite!.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
  });
});
