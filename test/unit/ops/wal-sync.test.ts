// The WAL's fsync off the event loop (src/adapters/sql/wal-sync.ts): a failed sync is final. The
// failure here is the kernel's own: fdatasync(2) on a FIFO fails with EINVAL.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { walSync } from '../../../src/adapters/sql/wal-sync.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hearth-wal-sync-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('walSync', () => {
  it('syncs the WAL of a database file', async () => {
    const file = join(dir, 'db.sqlite');
    writeFileSync(`${file}-wal`, 'frames');
    const w = walSync(file);
    await w.sync();
    expect(w.failure()).toBeUndefined();
    await w.close();
  });

  it('tries again after the WAL could not be opened (nothing was synced)', async () => {
    const file = join(dir, 'db.sqlite');
    const w = walSync(file);
    await expect(w.sync()).rejects.toThrow(/ENOENT/);
    expect(w.failure()).toBeUndefined();
    writeFileSync(`${file}-wal`, 'frames');
    await w.sync();
    await w.close();
  });

  it('refuses every sync after one failed, with the first error and what to do', async () => {
    const file = join(dir, 'db.sqlite');
    execFileSync('mkfifo', [`${file}-wal`]);
    // a FIFO opened for reading waits for a writer: this one holds it open both ways
    const writer = await open(`${file}-wal`, 'r+');
    try {
      const w = walSync(file);
      const first = await w.sync().then(
        () => undefined,
        (err: Error) => err,
      );
      expect(first?.message).toMatch(/syncing .*db\.sqlite-wal to disk failed \(EINVAL.*restart the node/);
      expect(w.failure()).toBe(first);
      // the WAL is an ordinary file again: a retry would succeed, and must not be made
      rmSync(`${file}-wal`);
      writeFileSync(`${file}-wal`, 'frames');
      await expect(w.sync()).rejects.toBe(first);
      await w.close();
    } finally {
      await writer.close();
    }
  });
});
