// docs/operations.md#durability: an event acknowledged is committed and synced before its ack,
// through SQLite's checkpoints too, which the node's thread runs (wal-checkpoint.ts). A child
// process commits as the event pipeline does (test/helpers/sqlite-writer.ts) and is killed with
// SIGKILL once the WAL has been checkpointed into the database file a few times and started over
// twice; every row it acknowledged is in the file after, none missing before the last, and the file
// is intact. Real database files.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import BetterSqlite3 from 'better-sqlite3';

const ROOT = new URL('../../../', import.meta.url).pathname;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hearth-sqlite-crash-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('SQLite after a kill -9', () => {
  it('keeps every acknowledged row, through checkpoints', { timeout: 120_000 }, async () => {
    const file = join(dir, 'hearth.db');
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/sqlite-writer.ts', file], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    onTestFinished(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    let acked = 0;
    let errors = '';
    child.stderr!.on('data', (d) => (errors += d));
    await new Promise<void>((resolve, reject) => {
      let buffered = '';
      child.stdout!.on('data', (d: Buffer) => {
        buffered += d.toString();
        const lines = buffered.split('\n');
        buffered = lines.pop()!;
        for (const line of lines) {
          const [, id, checkpoints, holds] = line.split(' ').map(Number);
          acked = id;
          if (checkpoints >= 3 && holds >= 2 && child.signalCode === null) {
            child.kill('SIGKILL');
            resolve();
          }
        }
      });
      child.on('exit', () => reject(new Error(`the writer exited: ${errors}`)));
    });
    await new Promise((r) => (child.exitCode === null && child.signalCode === null ? child.once('exit', r) : r(undefined)));
    expect(child.signalCode).toBe('SIGKILL');
    // a positive control: the rows (a page each) fill more than the 2,000 frames at which the
    // thread starts the WAL over (it did twice: the child said so before it was killed)
    expect(acked).toBeGreaterThan(2000);
    const db = new BetterSqlite3(file);
    try {
      const { n, last } = db.prepare('select count(*) as n, max(id) as last from crash_rows').get() as { n: number; last: number };
      expect(last).toBeGreaterThanOrEqual(acked);
      expect(n).toBe(last);
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }
  });
});
