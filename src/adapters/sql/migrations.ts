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
  const auto = <T extends { primaryKey(): T; autoIncrement(): T }>(c: T) =>
    dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement();
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

export function migrationProvider(dialect: Dialect): MigrationProvider {
  return {
    async getMigrations() {
      return { '0001_initial': initial(dialect) };
    },
  };
}
