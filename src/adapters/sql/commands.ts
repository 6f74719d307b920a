// The command outbox (docs/concepts.md#command-outbox). Each state change is one conditional
// UPDATE ... RETURNING, so it happens once however many nodes race for it. "Unfinished" is
// `finish_time is null`: queued, sent, and delivered commands that wait for the device's answer.
import { sql, type Kysely, type Selectable } from 'kysely';
import type { Columns, Database } from './schema.js';
import type { Dialect } from './migrations.js';
import type { CommandRepo, CommandRow, CommandState } from '../../ports/store.js';
import { ANSWERABLE_COMMAND } from '../../ports/store.js';
import { countRows, deletedCount, firstOf, fromJson, pageOf, toJson } from './util.js';
import { precompiled } from './statements.js';
import type { RawSqlite } from './sqlite-raw.js';

export type CommandsTable = Columns<CommandRow, { parameters: string; ackRequired: number; idemKey: string | null; result: string | null }, 'key'>;
type Db = Kysely<Database & { commands: CommandsTable }>;

function toRow(r: Selectable<CommandsTable>): CommandRow {
  return {
    id: r.id,
    projectId: r.projectId,
    deviceId: r.deviceId,
    action: r.action,
    parameters: JSON.parse(r.parameters) as Record<string, unknown>,
    ackRequired: Number(r.ackRequired) === 1,
    state: r.state as CommandState,
    key: r.idemKey,
    creationTime: r.creationTime,
    expirationTime: r.expirationTime,
    sentTime: r.sentTime,
    deliveredTime: r.deliveredTime,
    ackTime: r.ackTime,
    finishTime: r.finishTime,
    result: fromJson<Record<string, unknown>>(r.result),
    connectionId: r.connectionId,
    sends: Number(r.sends),
  };
}

/** creation order: the time, then the id (time-ordered within a process, domain/crypto/ids.ts) */
const inCreationOrder = (a: CommandRow, b: CommandRow) =>
  a.creationTime < b.creationTime ? -1 : a.creationTime > b.creationTime ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

export function commandRepo(
  base: Kysely<Database>,
  dialect: Dialect,
  within: <T>(fn: (d: Kysely<Database>) => Promise<T>) => Promise<T>,
  raw?: RawSqlite,
): CommandRepo {
  const db = base as unknown as Db;
  // an unfinished command of the device (commands_device index), compiled once. LIMIT written
  // out (sql.lit), not bound: SQLite (3.53) re-prepares a statement whose LIMIT is a parameter at
  // every run, since the planner reads the bound value; that was about 10 µs of this read's
  // 15, on every connect (issue #25, measured with better-sqlite3 alone)
  const anyOpen = precompiled(
    db,
    () => db.selectFrom('commands').select('id').where('deviceId', '=', 0).where('finishTime', 'is', null).limit(sql.lit(1)),
    raw,
  );
  return {
    create: (c, limit) =>
      within(async (b) => {
        const t = b as unknown as Db;
        // PostgreSQL: the device row's lock orders two creates for one device (count and key
        // are then read after the other's insert); SQLite has a single writer anyway
        if (dialect === 'postgres') await sql`select id from devices where id = ${c.deviceId} for update`.execute(t);
        if (c.key !== null) {
          const held = await t
            .selectFrom('commands')
            .selectAll()
            .where('deviceId', '=', c.deviceId)
            .where('idemKey', '=', c.key)
            .where('state', '<>', 'expired')
            .where('expirationTime', '>', c.creationTime)
            .orderBy('creationTime', 'desc')
            .executeTakeFirst();
          if (held) return { row: toRow(held), existing: true };
        }
        const open = await countRows(
          t.selectFrom('commands').where('deviceId', '=', c.deviceId).where('finishTime', 'is', null).where('expirationTime', '>', c.creationTime),
        );
        if (open >= limit) return { full: true as const };
        const row = await t
          .insertInto('commands')
          .values({
            id: c.id,
            projectId: c.projectId,
            deviceId: c.deviceId,
            action: c.action,
            parameters: JSON.stringify(c.parameters),
            ackRequired: c.ackRequired ? 1 : 0,
            state: 'queued',
            idemKey: c.key,
            creationTime: c.creationTime,
            expirationTime: c.expirationTime,
            sends: 0,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        return { row: toRow(row) };
      }),
    get: (id) => firstOf(db.selectFrom('commands').selectAll().where('id', '=', id), toRow),
    async list(deviceId, states, page) {
      let q = db.selectFrom('commands').where('deviceId', '=', deviceId);
      if (states?.length) q = q.where('state', 'in', [...states]);
      return pageOf(q, page, (all) => all.selectAll().orderBy('creationTime', 'desc').orderBy('id', 'desc'), toRow);
    },
    async claim(deviceId, connectionId, now, fresh) {
      // every connect claims; most devices have nothing open: one indexed read instead of a write
      if (!(await anyOpen(deviceId))) return [];
      const rows = await db
        .updateTable('commands')
        .set({
          state: sql<CommandState>`case when state = 'queued' then 'sent' else state end`,
          sentTime: now,
          connectionId,
          sends: sql<number>`sends + 1`,
        })
        .where('deviceId', '=', deviceId)
        .where('finishTime', 'is', null)
        .where('expirationTime', '>', now)
        .where((e) => e.or([e('state', 'in', ['queued', 'sent']), e.and([e('state', '=', 'delivered'), e('ackRequired', '=', 1)])]))
        .where((e) => (fresh ? e.or([e('connectionId', 'is', null), e('connectionId', '<>', connectionId)]) : e('connectionId', 'is', null)))
        .returningAll()
        .execute();
      return rows.map(toRow).sort(inCreationOrder);
    },
    delivered: (id, connectionId, now, final) =>
      firstOf(
        db
          .updateTable('commands')
          .set({ state: 'delivered', deliveredTime: now, finishTime: final ? now : null })
          .where('id', '=', id)
          .where('state', '=', 'sent')
          .where('connectionId', '=', connectionId)
          .returningAll(),
        toRow,
      ),
    finish(id, deviceId, when, patch) {
      const values: Partial<CommandsTable> = { state: patch.state, finishTime: patch.finishTime };
      if (patch.ackTime !== undefined) values.ackTime = patch.ackTime;
      if (patch.result !== undefined) values.result = toJson(patch.result);
      let q = db.updateTable('commands').set(values).where('id', '=', id).where('deviceId', '=', deviceId);
      q = when === 'answer' ? q.where('state', 'in', [...ANSWERABLE_COMMAND]) : q.where('finishTime', 'is', null);
      return firstOf(q.returningAll(), toRow);
    },
    async expire(now, limit, deviceId) {
      let ids = db.selectFrom('commands').select('id').where('finishTime', 'is', null).where('expirationTime', '<=', now);
      if (deviceId !== undefined) ids = ids.where('deviceId', '=', deviceId);
      const rows = await db
        .updateTable('commands')
        .set({ state: 'expired', finishTime: now })
        .where('id', 'in', ids.orderBy('expirationTime').limit(limit))
        // a command answered or cancelled meanwhile keeps its state
        .where('finishTime', 'is', null)
        .returningAll()
        .execute();
      return rows.map(toRow).sort(inCreationOrder);
    },
    depth: () => countRows(db.selectFrom('commands').where('finishTime', 'is', null)),
    async prune(before, limit) {
      const ids = db.selectFrom('commands').select('id').where('finishTime', '<', before).orderBy('finishTime').limit(limit);
      return deletedCount(db.deleteFrom('commands').where('id', 'in', ids));
    },
    deleteForDevice: (deviceId) => deletedCount(db.deleteFrom('commands').where('deviceId', '=', deviceId)),
  };
}
