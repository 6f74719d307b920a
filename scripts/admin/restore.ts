// `restore <file>`: a backup (backup.ts) becomes the database of a new data directory. Only into an
// empty or missing directory: restoring over live data would mix two histories. The server secret
// kept in the backup is written back beside it; the server's next start migrates the database
// if the backup comes from an older version.
// PostgreSQL: pg_restore does this job; we print its command line.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Config } from '../../src/config/schema.js';
import { AdminError, isPostgres, shellLine } from './admin-error.js';
import { BACKUP_FORMAT } from './backup.js';

export async function restoreCommand(config: Config, file: string): Promise<unknown> {
  if (config.databaseUrl && isPostgres(config.databaseUrl)) {
    const command = ['pg_restore', '--no-owner', '--exit-on-error', `--dbname=${config.databaseUrl}`, file];
    return {
      database: 'postgresql',
      message: 'PostgreSQL is restored with its own tools, into an empty database or schema; run:',
      command: shellLine(command),
      argv: command,
    };
  }
  if (config.databaseUrl)
    throw new AdminError(
      `HEARTH_DATABASE_URL names a SQLite file (${config.databaseUrl}): restore works on the data directory; unset it, or copy the backup there yourself`,
    );
  const source = resolve(file);
  if (!existsSync(source)) throw new AdminError(`no backup at ${source}`);
  const dir = resolve(config.dataDir);
  const present = existsSync(dir) ? readdirSync(dir) : [];
  if (present.length > 0) {
    throw new AdminError(
      `the data directory ${dir} is not empty (${present.slice(0, 5).join(', ')}${present.length > 5 ? ', ...' : ''}): ` +
        'restore only goes into an empty or new directory; point HEARTH_DATA_DIR at a new one, or move this one aside first',
    );
  }

  const { default: Database } = await import('better-sqlite3');
  const meta = new Map<string, string>();
  let backup;
  try {
    backup = new Database(source, { readonly: true, fileMustExist: true });
    const hasMeta = backup.prepare("select 1 from sqlite_master where type = 'table' and name = 'hearth_backup'").get();
    const hasProjects = backup.prepare("select 1 from sqlite_master where type = 'table' and name = 'projects'").get();
    if (!hasMeta || !hasProjects) throw new AdminError(`${source} is not a Hearth backup (made by \`backup\`)`);
    for (const r of backup.prepare('select key, value from hearth_backup').all() as { key: string; value: string }[]) meta.set(r.key, r.value);
    if (Number(meta.get('format')) > BACKUP_FORMAT)
      throw new AdminError(`${source} is a backup of format ${meta.get('format')}, newer than this version reads (${BACKUP_FORMAT})`);
  } catch (e) {
    backup?.close();
    if (e instanceof AdminError) throw e;
    throw new AdminError(`${source} cannot be read as a backup: ${(e as Error).message}`);
  }

  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const target = join(dir, 'hearth.db');
  try {
    await backup.backup(target);
  } finally {
    backup.close();
  }
  const db = new Database(target);
  try {
    db.exec('drop table hearth_backup');
    db.pragma('journal_mode = WAL');
    const check = db.pragma('integrity_check', { simple: true });
    if (check !== 'ok') throw new AdminError(`the restored database failed its integrity check: ${String(check)}`);
  } finally {
    db.close();
  }
  const secret = meta.get('secret');
  if (secret) writeFileSync(join(dir, 'secret'), secret + '\n', { mode: 0o600 });
  return {
    dataDir: dir,
    from: source,
    backupTime: meta.get('createdAt'),
    secret: secret
      ? config.secret
        ? 'restored to the data directory, but HEARTH_SECRET is set and wins'
        : 'restored'
      : 'not in the backup: set HEARTH_SECRET to the one the server used',
  };
}
