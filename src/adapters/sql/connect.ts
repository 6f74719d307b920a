// Opens the database (SQLite file or PostgreSQL URL), applies migrations, and hands back a Kysely
// instance with camelCase mapping. The dialect is chosen by the URL alone.
import { mkdirSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type pg from 'pg';
import { CamelCasePlugin, Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from 'kysely';
import { InlineLimitPlugin } from './inline-limit.js';
import { migrationProvider, type Dialect } from './migrations.js';
import type { Database } from './schema.js';
import { walCheckpointer, type WalCheckpointer } from './wal-checkpoint.js';
import { kyselyDatabase, statementCache, type StatementCache } from './statements.js';
import { createAccessLogWriter, type AccessLogWriter } from './access-log-writer.js';
import { loadPg } from './pg.js';
import { walSync, type WalSync } from './wal-sync.js';

export interface SqlOptions {
  /** `postgres://...` for PostgreSQL, otherwise a SQLite file path (or ':memory:') */
  url: string;
  /** PostgreSQL schema to use (created if missing); tests use one per run */
  schema?: string;
  /** PostgreSQL pool size */
  poolSize?: number;
  /**
   * SQLite's `synchronous` for the main file (default `full`): with `full` a commit is on disk
   * before it is answered, so a power cut loses nothing acknowledged; with `normal` (WAL) a power
   * cut may lose the last commits, a process crash never does. The access log stays `normal`.
   */
  synchronous?: 'full' | 'normal';
  /**
   * SQLite's page cache, bytes, for each database file of each connection (the main file and the
   * access log, here and in the access-log thread); default better-sqlite3's, 16,384,000
   */
  cacheBytes?: number;
  /**
   * SQLite in a file: the access log's writes and the checkpoints run on threads of their own
   * (default). `false`: a one-shot process (the admin CLI) starts none; the access log is written on
   * the connection, and SQLite checkpoints inside its commits.
   */
  threads?: boolean;
  /** SQLite: a checkpoint on its thread failed (wal-checkpoint.ts); the connection checkpoints meanwhile */
  onCheckpointError?: (err: Error) => void;
}

export interface SqlHandle {
  db: Kysely<Database>;
  dialect: Dialect;
  /** the SQLite connection under Kysely, for the hot statements of sqlite-raw.ts (SQLite only) */
  sqlite?: BetterSqlite3.Database;
  /** SQLite: its prepared statements, shared by Kysely's driver and the hot statements (statements.ts) */
  statements?: StatementCache;
  /** SQLite in a file: the thread that writes the access log (access-log-writer.ts) */
  accessLogWriter?: AccessLogWriter;
  /**
   * SQLite in a file with synchronous=full: the WAL's fsync off the event loop, for the commits
   * that may be made durable after they return (wal-sync.ts); absent where every commit already is
   */
  walSync?: WalSync;
  /** SQLite in a file (WAL): the thread that checkpoints the WAL into the file (wal-checkpoint.ts) */
  checkpoints?: WalCheckpointer;
  /** PostgreSQL: the connection pool under Kysely (its figures are on /metrics) */
  pool?: pg.Pool;
  /** the migrations this open applied, in order (none when the schema was current) */
  migrated: string[];
  close(): Promise<void>;
}

// SQLite checkpoints the WAL into the database file from inside the COMMIT that takes the WAL past
// this many pages, on the event loop: an fsync of the WAL, the copy, an fsync of the database file.
// A node's own checkpoints run on a thread (wal-checkpoint.ts) and start the WAL over at half this,
// so this is the bound, reached only when that thread falls behind or fails, and the one
// checkpoint of a process that starts no threads (the admin CLI). 4,000 pages (SQLite's default
// is 1,000) keeps the WAL (about 16 MB) within the first block of its index, which readers search
// the same way (issue #26, docs/operations.md#durability).
const WAL_CHECKPOINT_PAGES = 4000;

const isPostgres = (url: string) => /^postgres(ql)?:\/\//.test(url);

async function openDialect(opts: SqlOptions): Promise<{
  dialect: Dialect;
  driver: SqliteDialect | PostgresDialect;
  sqlite?: BetterSqlite3.Database;
  statements?: StatementCache;
  walSync?: WalSync;
  pool?: pg.Pool;
}> {
  if (isPostgres(opts.url)) {
    if (opts.schema && !/^[a-z_][a-z0-9_]*$/.test(opts.schema)) throw new Error(`invalid schema name ${opts.schema}`);
    const { Pool } = await loadPg();
    const pool = new Pool({
      connectionString: opts.url,
      max: opts.poolSize ?? 10,
      options: opts.schema ? `-c search_path=${opts.schema}` : undefined,
    });
    // An idle client that errors (server restart) must not crash the process; the pool replaces it.
    pool.on('error', () => {});
    return { dialect: 'postgres', driver: new PostgresDialect({ pool }), pool };
  }
  if (opts.url !== ':memory:') mkdirSync(dirname(opts.url), { recursive: true });
  const database = new BetterSqlite3(opts.url);
  const wal = database.pragma('journal_mode = WAL', { simple: true }) === 'wal';
  const full = opts.synchronous !== 'normal';
  database.pragma(`synchronous = ${full ? 'FULL' : 'NORMAL'}`);
  database.pragma('busy_timeout = 5000');
  if (wal) database.pragma(`wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`);
  database.pragma('foreign_keys = ON');
  if (opts.cacheBytes) database.pragma(`main.cache_size = ${cacheSizePragma(opts.cacheBytes)}`);
  attachAccessLog(database, inMemory(opts.url) ? ':memory:' : accessLogFile(opts.url));
  if (opts.cacheBytes) database.pragma(`access_log.cache_size = ${cacheSizePragma(opts.cacheBytes)}`);
  const statements = statementCache(database);
  return {
    dialect: 'sqlite',
    driver: new SqliteDialect({ database: kyselyDatabase(database, statements) }),
    sqlite: database,
    statements,
    // an in-memory database has no WAL, and with NORMAL no commit waits for the disk
    walSync: wal && full ? walSync(resolve(opts.url)) : undefined,
  };
}

/** PRAGMA cache_size's value for a cache of that many bytes (negative: KiB, not pages) */
export const cacheSizePragma = (bytes: number): number => -Math.max(64, Math.floor(bytes / 1024));

/** SQLite's in-memory database, or its private temporary one (an empty name) */
const inMemory = (file: string) => file === ':memory:' || file === '';

/** `data/hearth.db` keeps its access log in `data/hearth-access-log.db` */
export function accessLogFile(file: string): string {
  const ext = extname(file);
  return join(dirname(file), `${basename(file, ext)}-access-log${ext || '.db'}`);
}

/**
 * SQLite keeps the access log (docs/operations.md#logs: a row for every authenticated request) in a database
 * file of its own, attached to the connection as `access_log`: its writer thread commits there
 * without taking the main file's write lock, and without changing the main file's data_version,
 * which would empty the read cache (change-feed.ts) at every batch. Unqualified, `access_logs`
 * names this table once migration 0005 has moved the rows out of the main file; every query
 * runs unchanged. An in-memory database gets an in-memory one, written on the connection itself.
 */
function attachAccessLog(database: BetterSqlite3.Database, file: string): void {
  try {
    database.prepare('attach database ? as access_log').run(file);
  } catch (e) {
    database.close();
    throw new Error(`cannot open the access-log database ${file}: ${(e as Error).message}`);
  }
  database.pragma('access_log.journal_mode = WAL');
  database.pragma('access_log.synchronous = NORMAL');
  // the same table and index as migration 0001 made in the main file
  database.exec(`
    create table if not exists access_log.access_logs (
      id integer primary key autoincrement,
      project_id integer not null,
      client_ip text not null,
      latency bigint not null,
      method text not null,
      path text not null,
      status_code integer not null,
      timestamp text not null
    );
    create index if not exists access_log.access_logs_project_time on access_logs (project_id, timestamp);
  `);
}

/** pg_advisory_lock key held while migrating or dropping a schema ("Hearth" in ASCII) */
export const MIGRATION_LOCK_KEY = 0x486561727468;

/**
 * Runs fn while holding the migration advisory lock on a connection of its own. Kysely's
 * migrator introspects every schema of the database; a schema created, migrated or dropped by
 * another process at the same moment (cluster nodes starting together, parallel test files)
 * makes that introspection fail. The lock makes those steps take turns.
 */
export async function withMigrationLock<T>(url: string, fn: () => Promise<T>): Promise<T> {
  const { Client } = await loadPg();
  const client = new Client({ connectionString: url });
  client.on('error', () => {});
  await client.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    return await fn();
  } finally {
    await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => {});
    await client.end().catch(() => {});
  }
}

/** applies the migrations not applied yet; returns their names */
async function migrate(raw: Kysely<any>, dialect: Dialect, schema: string | undefined): Promise<string[]> {
  if (dialect === 'postgres' && schema) {
    await sql`create schema if not exists ${sql.id(schema)}`.execute(raw);
  }
  // Kysely looks for its own tables in every schema: name ours, or another schema's would do
  const migrator = new Migrator({ db: raw, provider: migrationProvider(dialect), ...(schema ? { migrationTableSchema: schema } : {}) });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`database migration ${failed?.migrationName ?? ''} failed: ${(error as Error)?.message ?? error}`);
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

export async function openSql(opts: SqlOptions): Promise<SqlHandle> {
  const { dialect, driver, sqlite, statements, walSync: wal, pool } = await openDialect(opts);
  const raw = new Kysely<any>({ dialect: driver });
  let migrated: string[];
  try {
    if (dialect === 'postgres') migrated = await withMigrationLock(opts.url, () => migrate(raw, dialect, opts.schema));
    else migrated = await migrate(raw, dialect, opts.schema);
  } catch (e) {
    await raw.destroy();
    throw e;
  }
  const named = raw.withPlugin(new CamelCasePlugin());
  const db = (dialect === 'sqlite' ? named.withPlugin(new InlineLimitPlugin()) : named) as unknown as Kysely<Database>;
  const threads = opts.threads !== false && sqlite && !inMemory(sqlite.name);
  const accessLogWriter = threads ? createAccessLogWriter(accessLogFile(sqlite.name), opts.cacheBytes) : undefined;
  let checkpoints: WalCheckpointer | undefined;
  if (threads && sqlite.pragma('main.journal_mode', { simple: true }) === 'wal') {
    const written = sqlite.prepare('select total_changes()').pluck();
    checkpoints = walCheckpointer({
      file: sqlite.name,
      hold: (fn) => raw.connection().execute(() => fn()),
      written: () => written.get() as number,
      onError: opts.onCheckpointError,
    });
  }
  return {
    db,
    dialect,
    sqlite,
    statements,
    accessLogWriter,
    walSync: wal,
    checkpoints,
    pool,
    migrated,
    async close() {
      // the batches already handed to the writer are committed before the database closes
      await accessLogWriter?.close();
      // the connection closed last checkpoints the WAL into the file and removes it: the main one
      await checkpoints?.close();
      // and the WAL syncs under way end before the connection goes
      await wal?.close();
      await raw.destroy();
    },
  };
}
