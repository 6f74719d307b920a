// Migrations, applied at start by Kysely's Migrator. Written in snake_case against a Kysely
// instance without the CamelCasePlugin. Column types are chosen to mean the same on SQLite and
// PostgreSQL: text, integer (0/1 for booleans), bigint for nanosecond latencies, JSON as text.
import { sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';

export type Dialect = 'sqlite' | 'postgres';

function idColumn(dialect: Dialect) {
  return dialect === 'postgres' ? ('serial' as const) : ('integer' as const);
}

function initial(dialect: Dialect): Migration {
  const serial = idColumn(dialect);
  const auto = <T extends { primaryKey(): T; autoIncrement(): T }>(c: T) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement());
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('projects')
        .addColumn('id', serial, auto)
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('creation_time', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'integer', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('scopes', 'text', (c) => c.notNull())
        .addColumn('key_hash', 'text', (c) => c.notNull().unique())
        .addColumn('creation_time', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('users')
        .addColumn('id', serial, auto)
        .addColumn('project_id', 'integer', (c) => c.notNull())
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('password_hash', 'text', (c) => c.notNull())
        .addColumn('can_create_devices', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('creation_time', 'text', (c) => c.notNull())
        .addUniqueConstraint('users_project_email', ['project_id', 'email'])
        .execute();
      await db.schema
        .createTable('sessions')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'integer', (c) => c.notNull())
        .addColumn('project_id', 'integer', (c) => c.notNull())
        .addColumn('creation_time', 'text', (c) => c.notNull())
        .addColumn('expiration_time', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('sessions_user').on('sessions').column('user_id').execute();
      await db.schema
        .createTable('homes')
        .addColumn('id', serial, auto)
        .addColumn('project_id', 'integer', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('creation_time', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('members')
        .addColumn('home_id', 'integer', (c) => c.notNull())
        .addColumn('user_id', 'integer', (c) => c.notNull())
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('creation_time', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('members_pk', ['home_id', 'user_id'])
        .execute();
      await db.schema.createIndex('members_user').on('members').column('user_id').execute();
      await db.schema
        .createTable('device_classes')
        .addColumn('project_id', 'integer', (c) => c.notNull())
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('name', 'text')
        .addColumn('description', 'text')
        .addColumn('creation_time', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('device_classes_pk', ['project_id', 'id'])
        .execute();
      await db.schema
        .createTable('devices')
        .addColumn('id', serial, auto)
        .addColumn('project_id', 'integer', (c) => c.notNull())
        .addColumn('device_class', 'text', (c) => c.notNull())
        .addColumn('home_id', 'integer')
        .addColumn('name', 'text')
        .addColumn('description', 'text')
        .addColumn('tag', 'text')
        .addColumn('api_key_hash', 'text', (c) => c.notNull().unique())
        .addColumn('api_key_sealed', 'text', (c) => c.notNull())
        .addColumn('claim_code_hash', 'text', (c) => c.unique())
        .addColumn('claim_code_sealed', 'text')
        .addColumn('claim_expiration_time', 'text')
        .addColumn('claim_time', 'text')
        .addColumn('creation_time', 'text', (c) => c.notNull())
        .addColumn('bundle_installed', 'text')
        .addColumn('bundle_install_time', 'text')
        .addColumn('channel', 'text')
        .addColumn('is_connected', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('last_connect_time', 'text')
        .addColumn('last_disconnect_time', 'text')
        .execute();
      await db.schema.createIndex('devices_project').on('devices').columns(['project_id', 'id']).execute();
      await db.schema.createIndex('devices_home').on('devices').column('home_id').execute();
      await db.schema
        .createTable('provisioning_tokens')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'integer', (c) => c.notNull())
        .addColumn('home_id', 'integer', (c) => c.notNull())
        .addColumn('device_class', 'text', (c) => c.notNull())
        .addColumn('device_tag', 'text')
        .addColumn('expiration_time', 'text', (c) => c.notNull())
        .addColumn('used_time', 'text')
        .execute();
      await db.schema
        .createTable('bundles')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'integer', (c) => c.notNull())
        .addColumn('name', 'text')
        .addColumn('description', 'text')
        .addColumn('device_class', 'text', (c) => c.notNull())
        .addColumn('channel', 'text')
        .addColumn('components', 'text', (c) => c.notNull())
        .addColumn('creation_time', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('kv')
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('owner_id', 'integer', (c) => c.notNull())
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('value', 'text', (c) => c.notNull())
        .addColumn('modification_time', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('kv_pk', ['scope', 'owner_id', 'key'])
        .execute();
      await db.schema
        .createTable('kv_revs')
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('owner_id', 'integer', (c) => c.notNull())
        .addColumn('rev', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('kv_revs_pk', ['scope', 'owner_id'])
        .execute();
      await db.schema
        .createTable('access_logs')
        .addColumn('id', serial, auto)
        .addColumn('project_id', 'integer', (c) => c.notNull())
        .addColumn('client_ip', 'text', (c) => c.notNull())
        .addColumn('latency', 'bigint', (c) => c.notNull())
        .addColumn('method', 'text', (c) => c.notNull())
        .addColumn('path', 'text', (c) => c.notNull())
        .addColumn('status_code', 'integer', (c) => c.notNull())
        .addColumn('timestamp', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('access_logs_project_time').on('access_logs').columns(['project_id', 'timestamp']).execute();
      await db.schema
        .createTable('general_logs')
        .addColumn('id', serial, auto)
        .addColumn('project_id', 'integer')
        .addColumn('caller', 'text')
        .addColumn('level', 'integer', (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('text', 'text', (c) => c.notNull())
        .addColumn('timestamp', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('general_logs_project_time').on('general_logs').columns(['project_id', 'timestamp']).execute();
      await db.schema
        .createTable('events')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'integer', (c) => c.notNull())
        .addColumn('home_id', 'integer')
        .addColumn('device_id', 'integer')
        .addColumn('event_type', 'text', (c) => c.notNull())
        .addColumn('timestamp', 'text', (c) => c.notNull())
        .addColumn('body', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('events_project_time').on('events').columns(['project_id', 'timestamp']).execute();
      await sql`select 1`.execute(db);
    },
  };
}

// Smart modules and the durable webhook delivery queue (docs/webhooks.md). A delivery is due when
// next_attempt_time <= now: pending rows at their next try, delivering rows when their lease
// ends; finished rows have none, so the claim index holds only live work (partial since 0016).
function webhooks(): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('modules')
        .addColumn('project_id', 'integer', (c) => c.notNull())
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('module_type', 'text', (c) => c.notNull())
        .addColumn('description', 'text')
        .addColumn('event_webhook', 'text')
        .addColumn('command_webhook', 'text')
        .addColumn('event_disabled', 'text')
        .addColumn('command_disabled', 'text')
        .addColumn('creation_time', 'text', (c) => c.notNull())
        .addColumn('modification_time', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('modules_pk', ['project_id', 'id'])
        .execute();
      await db.schema
        .createTable('deliveries')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'integer', (c) => c.notNull())
        .addColumn('module_id', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('lane', 'text', (c) => c.notNull())
        .addColumn('event_id', 'text')
        .addColumn('event_type', 'text')
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('attempts', 'text', (c) => c.notNull())
        .addColumn('round_attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_time', 'text')
        .addColumn('creation_time', 'text', (c) => c.notNull())
        .addColumn('update_time', 'text', (c) => c.notNull())
        .addColumn('claimed_by', 'text')
        .execute();
      await db.schema.createIndex('deliveries_due').on('deliveries').column('next_attempt_time').execute();
      // two indexes only: every one is written on each insert, claim and outcome (the hot path);
      // retention scans the table once an hour instead
      await db.schema.createIndex('deliveries_module').on('deliveries').columns(['project_id', 'module_id', 'creation_time']).execute();
    },
  };
}

// Device log requests (docs/concepts.md#log-requests), data sources and their stored records (docs/concepts.md#data-sources), scheduled reports
// and their runs (§10). `open_device_id` is the device id while a request is open (requested or
// uploading) and null once it ends: its unique index is what allows one open request per device,
// on both dialects, without a partial index. A report's `next_run_time` is its lease: the one
// conditional update that moves it decides which worker fires the tick.
function logsDataReports(dialect: Dialect): Migration {
  const serial = idColumn(dialect);
  const auto = <T extends { primaryKey(): T; autoIncrement(): T }>(c: T) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement());
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('log_requests')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'integer', (c) => c.notNull())
        .addColumn('device_id', 'integer', (c) => c.notNull())
        .addColumn('open_device_id', 'integer', (c) => c.unique())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('token_hash', 'text', (c) => c.notNull().unique())
        .addColumn('start_time', 'text')
        .addColumn('end_time', 'text')
        .addColumn('prefixes', 'text')
        .addColumn('creation_time', 'text', (c) => c.notNull())
        .addColumn('upload_id', 'text')
        .addColumn('upload_size', 'bigint')
        .addColumn('num_parts', 'integer')
        .addColumn('part_size', 'integer')
        .addColumn('upload_expires', 'text')
        .addColumn('filename', 'text')
        .addColumn('content_type', 'text')
        .addColumn('finish_time', 'text')
        .addColumn('error', 'text')
        .execute();
      await db.schema.createIndex('log_requests_device').on('log_requests').columns(['device_id', 'creation_time']).execute();
      await db.schema.createIndex('log_requests_expiry').on('log_requests').columns(['status', 'upload_expires']).execute();
      await db.schema
        .createTable('data_sources')
        .addColumn('project_id', 'integer', (c) => c.notNull())
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('device_classes', 'text')
        .addColumn('url', 'text')
        .addColumn('key_sealed', 'text')
        .addColumn('retention_days', 'integer')
        .addColumn('failing_since', 'text')
        .addColumn('last_failure_time', 'text')
        .addColumn('last_error', 'text')
        .addColumn('creation_time', 'text', (c) => c.notNull())
        .addColumn('modification_time', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('data_sources_pk', ['project_id', 'id'])
        .execute();
      await db.schema
        .createTable('data_records')
        .addColumn('id', serial, auto)
        .addColumn('project_id', 'integer', (c) => c.notNull())
        .addColumn('source_id', 'text', (c) => c.notNull())
        .addColumn('device_id', 'integer', (c) => c.notNull())
        .addColumn('timestamp', 'text', (c) => c.notNull())
        .addColumn('data', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('data_records_source_time').on('data_records').columns(['project_id', 'source_id', 'timestamp']).execute();
      await db.schema.createIndex('data_records_device_time').on('data_records').columns(['device_id', 'timestamp']).execute();
      await db.schema
        .createTable('reports')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'integer', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('description', 'text')
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('filter', 'text')
        .addColumn('window', 'text')
        .addColumn('format', 'text', (c) => c.notNull())
        .addColumn('cron', 'text', (c) => c.notNull())
        .addColumn('timezone', 'text', (c) => c.notNull())
        .addColumn('destination', 'text', (c) => c.notNull())
        .addColumn('key_sealed', 'text')
        .addColumn('enabled', 'integer', (c) => c.notNull())
        .addColumn('creation_time', 'text', (c) => c.notNull())
        .addColumn('modification_time', 'text', (c) => c.notNull())
        .addColumn('last_run_time', 'text')
        .addColumn('next_run_time', 'text')
        .addColumn('lease_owner', 'text')
        .execute();
      await db.schema.createIndex('reports_project').on('reports').columns(['project_id', 'creation_time']).execute();
      await db.schema.createIndex('reports_due').on('reports').column('next_run_time').execute();
      await db.schema
        .createTable('report_runs')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('report_id', 'text', (c) => c.notNull())
        .addColumn('project_id', 'integer', (c) => c.notNull())
        .addColumn('trigger', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('due_time', 'text', (c) => c.notNull())
        .addColumn('start_time', 'text')
        .addColumn('end_time', 'text')
        .addColumn('rows', 'integer')
        .addColumn('error', 'text')
        .addColumn('output_key', 'text')
        .addColumn('output_bytes', 'bigint')
        .addColumn('creation_time', 'text', (c) => c.notNull())
        .addColumn('claimed_by', 'text')
        .addColumn('lease_until', 'text')
        .execute();
      await db.schema.createIndex('report_runs_report').on('report_runs').columns(['report_id', 'creation_time']).execute();
      await db.schema.createIndex('report_runs_work').on('report_runs').columns(['status', 'lease_until']).execute();
      await db.schema.createIndex('report_runs_time').on('report_runs').column('creation_time').execute();
    },
  };
}

/**
 * PostgreSQL: the rows every process caches (read-cache.ts) announce their updates and deletions
 * on commit, so every process on the database drops its copy (change-feed.ts, CHANGE_CHANNEL).
 * The payload is `<schema>/<table>/<cache key>`; the key column is the trigger's argument.
 * SQLite needs nothing: PRAGMA data_version tells the one server of writes by others.
 */
function readCacheNotify(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<any>) {
      if (dialect !== 'postgres') return;
      await sql`create or replace function hearth_read_cache_notify() returns trigger language plpgsql as $$
        begin
          perform pg_notify('hearth_read_cache', tg_table_schema || '/' || tg_table_name || '/' || (to_jsonb(old) ->> tg_argv[0]));
          return null;
        end
      $$`.execute(db);
      for (const [table, key] of [
        ['api_keys', 'key_hash'],
        ['sessions', 'token_hash'],
        ['users', 'id'],
        ['devices', 'id'],
      ]) {
        await sql
          .raw(`create trigger ${table}_read_cache after update or delete on ${table} for each row execute function hearth_read_cache_notify('${key}')`)
          .execute(db);
      }
    },
  };
}

/**
 * SQLite: the access log moves to its own file (connect.ts attaches it, with the table, before
 * migrating). Rows written before keep their ids and order. PostgreSQL keeps the table.
 */
function accessLogFile(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<any>) {
      if (dialect !== 'sqlite') return;
      const columns = 'id, project_id, client_ip, latency, method, path, status_code, timestamp';
      await sql.raw(`insert into access_log.access_logs (${columns}) select ${columns} from main.access_logs order by id`).execute(db);
      await sql.raw('drop table main.access_logs').execute(db);
    },
  };
}

/**
 * docs/concepts.md: a project setting for self-signup (default on, as before: rows that exist get it
 * too), and the `appId` a session was opened with.
 */
function signupAndSessionApp(): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .alterTable('projects')
        .addColumn('allow_user_signup', 'integer', (c) => c.notNull().defaultTo(1))
        .execute();
      await db.schema.alterTable('sessions').addColumn('app_id', 'text').execute();
    },
  };
}

/**
 * docs/timeseries.md: the tsdb smart module's settings, and its series, raw points and rollups
 * (docs/timeseries.md#rollups). Points and rollups are keyed by their series' integer id; on
 * SQLite they are WITHOUT ROWID tables, stored in key order. No index on time alone: it would
 * double the cost of ingest; retention seeks each series' old points through the key.
 */
function tsdb(dialect: Dialect): Migration {
  const serial = idColumn(dialect);
  const withoutRowid = <T extends { modifyEnd(e: any): T }>(t: T): T => (dialect === 'sqlite' ? t.modifyEnd(sql`without rowid`) : t);
  return {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('modules').addColumn('tsdb', 'text').execute();
      await db.schema
        .createTable('tsdb_series')
        .addColumn('id', serial, (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
        .addColumn('project_id', 'integer', (c) => c.notNull())
        .addColumn('home_id', 'integer', (c) => c.notNull())
        .addColumn('module_id', 'text', (c) => c.notNull())
        .addColumn('series_id', 'text', (c) => c.notNull())
        .addColumn('creation_time', 'text', (c) => c.notNull())
        .addUniqueConstraint('tsdb_series_key', ['home_id', 'module_id', 'series_id'])
        .execute();
      await db.schema.createIndex('tsdb_series_module').on('tsdb_series').columns(['project_id', 'module_id']).execute();
      await withoutRowid(
        db.schema
          .createTable('tsdb_points')
          .addColumn('series', 'integer', (c) => c.notNull())
          .addColumn('ts', 'bigint', (c) => c.notNull())
          .addColumn('value', 'double precision', (c) => c.notNull())
          .addPrimaryKeyConstraint('tsdb_points_pk', ['series', 'ts']),
      ).execute();
      await withoutRowid(
        db.schema
          .createTable('tsdb_rollups')
          .addColumn('series', 'integer', (c) => c.notNull())
          .addColumn('level', 'integer', (c) => c.notNull())
          .addColumn('bucket', 'bigint', (c) => c.notNull())
          .addColumn('v_sum', 'double precision', (c) => c.notNull())
          .addColumn('v_count', 'bigint', (c) => c.notNull())
          .addColumn('v_min', 'double precision', (c) => c.notNull())
          .addColumn('v_max', 'double precision', (c) => c.notNull())
          .addPrimaryKeyConstraint('tsdb_rollups_pk', ['series', 'level', 'bucket']),
      ).execute();
    },
  };
}

/**
 * docs/concepts.md#accounts: users carry `verified` (rows that exist are verified: their projects never asked),
 * with at most one pending email-verification code and one password-reset code each, stored as
 * hashes with their expiry. Projects get `verify_emails` (default off) and `command_actions`
 * (docs/concepts.md#commands: `spec` by default, `mode` for MODE's camelCase actions).
 */
function accounts(): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .alterTable('users')
        .addColumn('verified', 'integer', (c) => c.notNull().defaultTo(1))
        .execute();
      for (const column of ['verify_code_hash', 'verify_code_expiration', 'reset_code_hash', 'reset_code_expiration']) {
        await db.schema.alterTable('users').addColumn(column, 'text').execute();
      }
      await db.schema
        .alterTable('projects')
        .addColumn('verify_emails', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable('projects')
        .addColumn('command_actions', 'text', (c) => c.notNull().defaultTo('spec'))
        .execute();
    },
  };
}

/**
 * docs/concepts.md#command-outbox: the device's command outbox. `finish_time` is null while a
 * command holds a place in the outbox (the bound counts those, retention removes the others).
 */
function commandOutbox(): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('commands')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'integer', (c) => c.notNull())
        .addColumn('device_id', 'integer', (c) => c.notNull())
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('parameters', 'text', (c) => c.notNull())
        .addColumn('ack_required', 'integer', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('idem_key', 'text')
        .addColumn('creation_time', 'text', (c) => c.notNull())
        .addColumn('expiration_time', 'text', (c) => c.notNull())
        .addColumn('sent_time', 'text')
        .addColumn('delivered_time', 'text')
        .addColumn('ack_time', 'text')
        .addColumn('finish_time', 'text')
        .addColumn('result', 'text')
        .addColumn('connection_id', 'text')
        .addColumn('sends', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('commands_device').on('commands').columns(['device_id', 'creation_time']).execute();
      await db.schema.createIndex('commands_open').on('commands').columns(['finish_time', 'expiration_time']).execute();
      await db.schema.createIndex('commands_key').on('commands').columns(['device_id', 'idem_key']).execute();
    },
  };
}

/**
 * docs/tls.md#client-certificates: client certificates registered per device (by sha256 fingerprint, one
 * device each), and the device-class setting that makes a certificate the only way in.
 */
function deviceCertificates(): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('device_certificates')
        .addColumn('fingerprint', 'text', (c) => c.primaryKey())
        .addColumn('device_id', 'integer', (c) => c.notNull())
        .addColumn('project_id', 'integer', (c) => c.notNull())
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('not_before', 'text', (c) => c.notNull())
        .addColumn('not_after', 'text', (c) => c.notNull())
        .addColumn('pem', 'text', (c) => c.notNull())
        .addColumn('creation_time', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('device_certificates_device').on('device_certificates').columns(['device_id', 'creation_time']).execute();
      await db.schema
        .alterTable('device_classes')
        .addColumn('certificate_required', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  };
}

/** docs/tls.md#revoking-a-ca-issued-certificate: fingerprints of CA-issued certificates shut out before they expire */
function certificateRevocations(): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('certificate_revocations')
        .addColumn('fingerprint', 'text', (c) => c.primaryKey())
        .addColumn('device_id', 'integer', (c) => c.notNull())
        .addColumn('project_id', 'integer', (c) => c.notNull())
        .addColumn('creation_time', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('certificate_revocations_device').on('certificate_revocations').columns(['device_id', 'creation_time']).execute();
    },
  };
}

/** docs/api.md#stream-tickets: single-use WebSocket tickets, a few seconds each, named by their hash */
function streamTickets(): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('stream_tickets')
        .addColumn('ticket_hash', 'text', (c) => c.primaryKey())
        .addColumn('credential_kind', 'text', (c) => c.notNull())
        .addColumn('credential_hash', 'text', (c) => c.notNull())
        .addColumn('expiration_time', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('stream_tickets_expiration').on('stream_tickets').column('expiration_time').execute();
    },
  };
}

/**
 * docs/firmware.md: files of bundle components (the bytes in the blob store), rollouts, and one
 * row per targeted device of a rollout (its wave, state and command). `dirty`/`event_time`
 * pace `_rolloutUpdated_`; `lease_owner`/`lease_until` give one worker a rollout at a time.
 */
function firmwareRollouts(): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('firmware_files')
        .addColumn('bundle_id', 'text', (c) => c.notNull())
        .addColumn('component_name', 'text', (c) => c.notNull())
        .addColumn('size', 'bigint', (c) => c.notNull())
        .addColumn('sha256', 'text', (c) => c.notNull())
        .addColumn('blob_key', 'text', (c) => c.notNull())
        .addColumn('creation_time', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('firmware_files_pk', ['bundle_id', 'component_name'])
        .execute();
      await db.schema
        .createTable('rollouts')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'integer', (c) => c.notNull())
        .addColumn('bundle_id', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('target', 'text', (c) => c.notNull())
        .addColumn('waves', 'text', (c) => c.notNull())
        .addColumn('current_wave', 'integer', (c) => c.notNull())
        .addColumn('wave_time', 'text', (c) => c.notNull())
        .addColumn('failure_threshold', 'real', (c) => c.notNull())
        .addColumn('rate_per_minute', 'integer')
        .addColumn('ttl', 'integer', (c) => c.notNull())
        .addColumn('base_installed', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('base_failed', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('creation_time', 'text', (c) => c.notNull())
        .addColumn('update_time', 'text', (c) => c.notNull())
        .addColumn('dirty', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('event_time', 'text')
        .addColumn('lease_owner', 'text')
        .addColumn('lease_until', 'text')
        .execute();
      await db.schema.createIndex('rollouts_project').on('rollouts').columns(['project_id', 'creation_time']).execute();
      await db.schema.createIndex('rollouts_bundle').on('rollouts').columns(['bundle_id', 'state']).execute();
      await db.schema
        .createTable('rollout_devices')
        .addColumn('rollout_id', 'text', (c) => c.notNull())
        .addColumn('device_id', 'integer', (c) => c.notNull())
        .addColumn('wave', 'integer', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('command_id', 'text')
        .addColumn('notify_time', 'text')
        .addColumn('deadline', 'text')
        .addColumn('update_time', 'text', (c) => c.notNull())
        .addColumn('error', 'text')
        .addPrimaryKeyConstraint('rollout_devices_pk', ['rollout_id', 'device_id'])
        .execute();
      await db.schema.createIndex('rollout_devices_state').on('rollout_devices').columns(['rollout_id', 'state', 'wave']).execute();
      await db.schema.createIndex('rollout_devices_device').on('rollout_devices').column('device_id').execute();
    },
  };
}

/**
 * docs/api.md#fleet-figures: per-minute counters kept as things happen (events at ingest, delivery
 * outcomes as they are written), one row per project, counter and minute ('YYYY-MM-DDTHH:MM',
 * UTC), upserted in the transaction of what they count. Devices get the indexes the console's
 * device list pages by (project and class, tag) and a partial index of the connected ones, so
 * the connected count reads only connected devices' index entries.
 */
function fleetStats(): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('stat_minutes')
        .addColumn('project_id', 'integer', (c) => c.notNull())
        .addColumn('counter', 'text', (c) => c.notNull())
        .addColumn('minute', 'text', (c) => c.notNull())
        .addColumn('n', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('stat_minutes_pk', ['project_id', 'counter', 'minute'])
        .execute();
      await sql`create index devices_connected on devices (project_id, id) where is_connected = 1`.execute(db);
      await db.schema.createIndex('devices_class').on('devices').columns(['project_id', 'device_class', 'id']).execute();
      await db.schema.createIndex('devices_tag').on('devices').columns(['project_id', 'tag', 'id']).execute();
    },
  };
}

/**
 * The delivery queue's claim index as the webhooks migration meant it, holding live work only:
 * both SQLite and PostgreSQL index NULLs, so every finished delivery kept an entry (its NULL
 * next_attempt_time), one more index write per outcome and an index that grew with the history
 * rather than the queue. Partial, an outcome only deletes its row's entry. Every query through it
 * (the claim's `next_attempt_time <= ?`, the queue figures' `is not null`) implies the condition,
 * so both planners still use it. On SQLite, 100,000 deliveries in, a delivery's insert cost 0.2 to
 * 0.3 µs less and its outcome 0.25 to 0.35 µs less (about 3.0 µs each; commits of 20 and 50 rows,
 * same process, alternating, medians; issue #26).
 */
function liveDeliveriesDue(): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema.dropIndex('deliveries_due').execute();
      await sql`create index deliveries_due on deliveries (next_attempt_time) where next_attempt_time is not null`.execute(db);
    },
  };
}

export function migrationProvider(dialect: Dialect): MigrationProvider {
  return {
    async getMigrations() {
      return {
        '0001_initial': initial(dialect),
        '0002_webhooks': webhooks(),
        '0003_logs_data_reports': logsDataReports(dialect),
        '0004_read_cache_notify': readCacheNotify(dialect),
        '0005_access_log_file': accessLogFile(dialect),
        '0006_signup_session_app': signupAndSessionApp(),
        '0007_device_certificates': deviceCertificates(),
        '0008_stream_tickets': streamTickets(),
        '0009_command_outbox': commandOutbox(),
        '0010_tsdb': tsdb(dialect),
        '0011_accounts': accounts(),
        '0012_firmware_rollouts': firmwareRollouts(),
        '0013_fleet_stats': fleetStats(),
        '0015_certificate_revocations': certificateRevocations(),
        '0016_live_deliveries_due': liveDeliveriesDue(),
      };
    },
  };
}
