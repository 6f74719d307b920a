// SQLite's durability setting (README "Durability"): by default a commit is on disk before it is
// answered (synchronous=FULL), so a power cut loses nothing acknowledged; `normal` is a setting.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load.js';
import type { SqlStore } from '../../../src/adapters/sql/store.js';
import { startTestHearth } from '../../helpers/hearth.js';

// SQLite's numbers for PRAGMA synchronous
const FULL = 2;
const NORMAL = 1;

const synchronousOf = (store: unknown) => (store as SqlStore).sql.sqlite!.pragma('synchronous', { simple: true });

describe('SQLite durability', () => {
  it('commits with synchronous=FULL by default', async () => {
    expect(loadConfig({}).sqlite.synchronous).toBe('full');
    const t = await startTestHearth();
    try {
      expect(synchronousOf(t.deps.store)).toBe(FULL);
    } finally {
      await t.close();
    }
  });

  it('takes synchronous=NORMAL from HEARTH_SQLITE_SYNCHRONOUS', async () => {
    const config = loadConfig({ HEARTH_SQLITE_SYNCHRONOUS: 'normal' });
    const t = await startTestHearth({ sqlite: config.sqlite });
    try {
      expect(synchronousOf(t.deps.store)).toBe(NORMAL);
    } finally {
      await t.close();
    }
  });

  it('refuses another value with one line naming the variable', () => {
    expect(() => loadConfig({ HEARTH_SQLITE_SYNCHRONOUS: 'off' })).toThrow(/HEARTH_SQLITE_SYNCHRONOUS.*expected full or normal/);
  });
});
