// How a process learns that rows its read cache holds (read-cache.ts) were changed by someone
// else: the admin CLI working on the same data, or another node of a cluster. Writes through the
// process's own store are dropped by the cache itself.
import type BetterSqlite3 from 'better-sqlite3';
import type pg from 'pg';
import { loadPg } from './pg.js';
import { localWrites, type CacheSink, type Change, type ChangeFeed } from './read-cache.js';

/**
 * SQLite: `PRAGMA data_version` changes when another connection commits, and a change clears
 * the cache. Reading it costs a couple of microseconds in a busy server, so it is read at most
 * once per turn of the event loop (every request read from a socket in this turn arrived before
 * the read; a commit after it is concurrent with them) and at least every millisecond, and again
 * after any write through another cached store of this process (tests open a second store on
 * one file). While this connection is inside a transaction the value is that of the
 * transaction's snapshot, so the cache is not used then (the lookup waits for the connection
 * like any other query).
 */
export function sqliteChangeFeed(database: BetterSqlite3.Database, sink: CacheSink): ChangeFeed {
  const version = database.prepare('pragma data_version').pluck();
  let seen: unknown;
  let fresh = false;
  let checkedAt = 0;
  let writesSeen = -1;
  const stale = () => {
    fresh = false;
  };
  return {
    usable() {
      try {
        if (fresh && writesSeen === localWrites() && performance.now() - checkedAt < 1) return true;
        if (database.inTransaction) return false;
        const v = version.get();
        if (v !== seen) {
          sink.clear();
          seen = v;
        }
        if (!fresh) {
          fresh = true;
          setImmediate(stale).unref();
        }
        checkedAt = performance.now();
        writesSeen = localWrites();
        return true;
      } catch {
        // a closed database: the store itself gives its usual error
        return false;
      }
    },
    async close() {},
  };
}

/** application_name of a feed's listening connection, followed by its schema */
export const LISTENER_NAME = 'hearth-read-cache:';

/** the channel migration 0004's triggers notify on commit: `<schema>/<table>/<key>` */
export const CHANGE_CHANNEL = 'hearth_read_cache';

export function parseChange(payload: string, schema: string): Change | undefined {
  const [s, table, key] = payload.split('/');
  if (s !== schema || key === undefined) return undefined;
  switch (table) {
    case 'api_keys':
      return { table: 'apiKeys', keyHash: key };
    case 'sessions':
      return { table: 'sessions', tokenHash: key };
    case 'users':
      return { table: 'users', id: Number(key) };
    case 'devices':
      return { table: 'devices', id: Number(key) };
    default:
      return undefined;
  }
}

/**
 * PostgreSQL: triggers on the cached tables notify CHANGE_CHANNEL when a row is updated or
 * deleted, delivered when the writer commits. The feed LISTENs on a connection of its own, opened
 * at the first lookup; until it listens, and whenever that connection is lost (notifications may
 * have been missed), the cache is cleared and bypassed, and listening is tried again after
 * `retryMs`.
 */
export function postgresChangeFeed(opts: { url: string; schema?: string; retryMs?: number; maxAgeMs?: number }, sink: CacheSink): ChangeFeed {
  const retryMs = opts.retryMs ?? 1000;
  // A backstop, not the mechanism: a connection that dies without a word (a network partition)
  // is noticed only by TCP keep-alive, so the cache is also emptied this often.
  const maxAgeMs = opts.maxAgeMs ?? 60_000;
  let clearAt = 0;
  let state: 'idle' | 'connecting' | 'live' | 'closed' = 'idle';
  let client: pg.Client | undefined;
  let schema = '';
  let retryAt = 0;

  const lost = (c: pg.Client) => {
    if (client !== c) return;
    client = undefined;
    state = 'idle';
    retryAt = Date.now() + retryMs;
    sink.clear();
    c.end().catch(() => {});
  };

  async function listen(): Promise<void> {
    state = 'connecting';
    const { Client } = await loadPg();
    if (state !== 'connecting') return; // closed while the driver loaded
    const c = new Client({
      connectionString: opts.url,
      options: opts.schema ? `-c search_path=${opts.schema}` : undefined,
      // names the connection in pg_stat_activity (and lets a test end this one and no other)
      application_name: `${LISTENER_NAME}${opts.schema ?? ''}`.slice(0, 63),
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    client = c;
    c.on('error', () => lost(c));
    c.on('end', () => lost(c));
    c.on('notification', (m) => {
      const change = m.channel === CHANGE_CHANNEL && m.payload ? parseChange(m.payload, schema) : undefined;
      if (change) sink.apply(change);
    });
    try {
      await c.connect();
      schema = (await c.query<{ s: string }>('select current_schema() as s')).rows[0].s;
      await c.query(`listen ${CHANGE_CHANNEL}`);
      if (client !== c) return; // lost or closed meanwhile
      // whatever was cached before now was not covered by notifications
      sink.clear();
      clearAt = Date.now() + maxAgeMs;
      state = 'live';
    } catch {
      lost(c);
    }
  }

  return {
    usable() {
      const now = Date.now();
      if (state === 'live') {
        if (now >= clearAt) {
          sink.clear();
          clearAt = now + maxAgeMs;
        }
        return true;
      }
      if (state === 'idle' && now >= retryAt) void listen();
      return false;
    },
    async close() {
      state = 'closed';
      const c = client;
      client = undefined;
      await c?.end().catch(() => {});
    },
  };
}
