// `backup <file>`: SQLite's online backup API (better-sqlite3's db.backup) copies hearth.db page by
// page while the server keeps writing; the copy is one consistent snapshot. SQLite restarts a
// backup whose source another connection changes between two steps, so after a restart the rest
// goes in one step (a read transaction: WAL lets the server keep committing meanwhile).
// The copy gets a `hearth_backup` table (format, time, and the data directory's generated server
// secret, which sealed keys need) that `restore` reads and removes.
// PostgreSQL: pg_dump does this job; we print its command line for the configured URL and schema.
import { existsSync, renameSync, rmSync, statSync, chmodSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Config } from '../../src/config/schema.js';
import { AdminError, isPostgres, shellLine } from './admin-error.js';
import { type Parsed, UsageError, str } from './types.js';

export const BACKUP_FORMAT = 1;

export async function backupCommand(config: Config, file: string, a: Parsed): Promise<unknown> {
  if (config.databaseUrl && isPostgres(config.databaseUrl)) return pgDump(config, file);
  const stepRaw = str(a, 'pages-per-step');
  if (stepRaw !== undefined && !/^[1-9]\d{0,8}$/.test(stepRaw))
    throw new UsageError(`--pages-per-step must be a positive integer, got ${JSON.stringify(stepRaw)}`);
  const source = config.databaseUrl ?? join(config.dataDir, 'hearth.db');
  if (!existsSync(source))
    throw new AdminError(`no database at ${resolve(source)}: is HEARTH_DATA_DIR (${resolve(config.dataDir)}) the server's data directory?`);
  const target = resolve(file);
  if (existsSync(target)) throw new AdminError(`${target} already exists: choose a new file name (a backup never overwrites)`);
  const partial = `${target}.partial`;
  rmSync(partial, { force: true });

  const progress = progressLine(a.values.quiet === true);
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(source, { fileMustExist: true });
  const started = performance.now();
  let restarts = 0;
  let pages = 0;
  try {
    db.pragma('busy_timeout = 5000');
    const step = stepRaw === undefined ? 1024 : Number(stepRaw);
    let lastRemaining = Infinity;
    const r = await db.backup(partial, {
      progress({ totalPages, remainingPages }) {
        if (remainingPages > lastRemaining) restarts++;
        lastRemaining = remainingPages;
        pages = totalPages;
        progress.show(totalPages - remainingPages, totalPages);
        return restarts > 0 ? totalPages : step;
      },
    });
    pages = r.totalPages;
    progress.show(pages, pages);
  } catch (e) {
    rmSync(partial, { force: true });
    throw new AdminError(`backup of ${resolve(source)} failed: ${(e as Error).message}`);
  } finally {
    progress.end();
    db.close();
  }

  // the copy: one self-contained file (no -wal beside it), checked, with what restore needs
  const secretFile = join(config.dataDir, 'secret');
  const withSecret = a.values['no-secret'] !== true && !config.secret && existsSync(secretFile);
  const copy = new Database(partial);
  try {
    copy.pragma('journal_mode = DELETE');
    const check = copy.pragma('integrity_check', { simple: true });
    if (check !== 'ok') throw new AdminError(`the copy failed its integrity check: ${String(check)}`);
    copy.exec('create table hearth_backup (key text primary key, value text not null)');
    const put = copy.prepare('insert into hearth_backup (key, value) values (?, ?)');
    put.run('format', String(BACKUP_FORMAT));
    put.run('createdAt', new Date().toISOString());
    put.run('source', resolve(source));
    if (withSecret) {
      const { readFileSync } = await import('node:fs');
      put.run('secret', readFileSync(secretFile, 'utf8').trim());
    }
  } catch (e) {
    copy.close();
    rmSync(partial, { force: true });
    throw e;
  }
  copy.close();
  chmodSync(partial, 0o600);
  renameSync(partial, target);
  const blobs = join(config.dataDir, 'blobs');
  return {
    file: target,
    bytes: statSync(target).size,
    pages,
    restarts,
    durationMs: Math.round(performance.now() - started),
    secret: withSecret
      ? 'included (keep this file as safe as the data directory)'
      : config.secret
        ? 'configured (HEARTH_SECRET): not included, keep it yourself'
        : 'not included',
    notIncluded: [
      'the access log (hearth-access-log.db): bounded request history, started afresh on restore',
      ...(existsSync(blobs) ? [`uploaded log files and report outputs under ${resolve(blobs)}: copy that directory yourself`] : []),
    ],
  };
}

function pgDump(config: Config, file: string) {
  const command = [
    'pg_dump',
    '--format=custom',
    '--no-owner',
    ...(config.databaseSchema ? [`--schema=${config.databaseSchema}`] : []),
    `--file=${file}`,
    `--dbname=${config.databaseUrl}`,
  ];
  return {
    database: 'postgresql',
    message: 'PostgreSQL is backed up with its own tools; run:',
    command: shellLine(command),
    argv: command,
  };
}

/** progress on stderr: one line redrawn on a terminal, a line per 10% otherwise */
function progressLine(quiet: boolean) {
  const tty = process.stderr.isTTY === true;
  let lastDecile = -1;
  let drawn = false;
  return {
    show(done: number, total: number) {
      if (quiet) return;
      const pct = total === 0 ? 100 : Math.floor((done / total) * 100);
      if (tty) {
        process.stderr.write(`\rbackup: ${String(pct).padStart(3)}% (${done}/${total} pages)`);
        drawn = true;
      } else if (Math.floor(pct / 10) > lastDecile) {
        lastDecile = Math.floor(pct / 10);
        process.stderr.write(`backup: ${pct}% (${done}/${total} pages)\n`);
      }
    },
    end() {
      if (drawn) process.stderr.write('\n');
    },
  };
}
