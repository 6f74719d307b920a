// Device classes and device rows (ports/store/devices.ts): registry fields, claim state, presence flags.
import { sql, type Kysely, type Selectable } from 'kysely';
import type { Database, DeviceClassesTable, DevicesTable } from './schema.js';
import type { DeviceClassRepo, DeviceClassRow, DeviceFilter, DeviceKeySignIn, DeviceRow, DeviceRepo, PresenceWrite } from '../../ports/store.js';
import { changedRow, countRows, deletedRow, firstOf, ilike, likePattern, pageOf, rowsOf } from './util.js';
import { precompiled } from './statements.js';
import type { RawSqlite } from './sqlite-raw.js';

type Db = Kysely<Database>;

// written out, not bound: a planner uses the partial index devices_connected only for a query
// whose predicate is its own, which a parameter's value cannot show
const CONNECTED = sql<boolean>`is_connected = 1`;

// the row a query just made, turned into the port's row in place: a copy of each of its 17 fields
// was the largest allocation of a device sign-in's key check (issue #25)
const toDevice = (r: Selectable<DevicesTable>): DeviceRow => {
  const d = r as unknown as DeviceRow;
  d.isConnected = !!r.isConnected;
  return d;
};

// SQLite's presence flips, prepared once (sqlite-raw.ts): parameters time, id
const ONLINE_SQL = 'update devices set is_connected = 1, last_connect_time = ? where id = ?';
const OFFLINE_SQL = 'update devices set is_connected = 0, last_disconnect_time = ? where id = ?';

export function deviceRepo(db: Db, dialect: 'sqlite' | 'postgres', raw?: RawSqlite): DeviceRepo {
  const filtered = (f: DeviceFilter) => {
    let q = db.selectFrom('devices');
    if (f.projectId !== undefined) q = q.where('projectId', '=', f.projectId);
    if (f.homeIds !== undefined) {
      // an empty list matches nothing; `in ()` is not valid SQL
      q = f.homeIds.length ? q.where('homeId', 'in', f.homeIds) : q.where('id', '<', 0);
    }
    if (f.homeId !== undefined) q = q.where('homeId', '=', f.homeId);
    if (f.deviceClass !== undefined) q = q.where('deviceClass', '=', f.deviceClass);
    if (f.tag !== undefined) q = q.where('tag', '=', f.tag);
    if (f.isConnected !== undefined) q = q.where(f.isConnected ? CONNECTED : sql<boolean>`is_connected = 0`);
    if (f.inHome !== undefined) q = q.where('homeId', f.inHome ? 'is not' : 'is', null);
    if (f.afterId !== undefined) q = q.where('id', '>', f.afterId);
    if (f.search) {
      const p = likePattern(f.search);
      q = q.where((e) => e.or([ilike('name', p), ilike('tag', p), ilike('description', p)]));
    }
    return q;
  };

  // looked up by every device-scoped request, compiled once (statements.ts)
  const byId = precompiled(db, () => db.selectFrom('devices').selectAll().where('id', '=', 0), raw);
  const byKeyHash = precompiled(db, () => db.selectFrom('devices').selectAll().where('apiKeyHash', '=', ''), raw);
  // a device connection's sign-in: four columns and its class's certificateRequired, one lookup (ports/store/devices.ts)
  const signInByKeyHash = precompiled(
    db,
    () =>
      db
        .selectFrom('devices')
        .leftJoin('deviceClasses', (j) => j.onRef('deviceClasses.projectId', '=', 'devices.projectId').onRef('deviceClasses.id', '=', 'devices.deviceClass'))
        .select(['devices.id', 'devices.projectId', 'devices.deviceClass', 'devices.homeId', 'deviceClasses.certificateRequired'])
        .where('devices.apiKeyHash', '=', ''),
    raw,
  );
  // presence flips: one per connect and disconnect (parameters: time, id)
  const online = precompiled(db, () => db.updateTable('devices').set({ isConnected: 1, lastConnectTime: '' }).where('id', '=', 0));
  const offline = precompiled(db, () => db.updateTable('devices').set({ isConnected: 0, lastDisconnectTime: '' }).where('id', '=', 0));
  const setOne = (c: PresenceWrite) => (c.connected ? online(1, c.time, c.id) : offline(0, c.time, c.id));
  return {
    async create(d) {
      return toDevice(await db.insertInto('devices').values(d).returningAll().executeTakeFirstOrThrow());
    },
    async createMany(ds) {
      const out: DeviceRow[] = [];
      // 17 columns a row: 500 rows stay far under either dialect's limit of bound parameters
      for (let i = 0; i < ds.length; i += 500) {
        const rows = await db
          .insertInto('devices')
          .values(ds.slice(i, i + 500))
          .returningAll()
          .execute();
        for (const r of rows.sort((a, b) => a.id - b.id)) out.push(toDevice(r));
      }
      return out;
    },
    async get(id) {
      const r = await byId(id);
      return r && toDevice(r);
    },
    async getByKeyHash(h) {
      const r = await byKeyHash(h);
      return r && toDevice(r);
    },
    async signInByKeyHash(h) {
      const r = await signInByKeyHash(h);
      if (!r) return undefined;
      const d = r as unknown as DeviceKeySignIn;
      d.certificateRequired = r.certificateRequired === 1;
      return d;
    },
    getByClaimHash: (h) => firstOf(db.selectFrom('devices').selectAll().where('claimCodeHash', '=', h), toDevice),
    listPage: (f, page) => rowsOf(filtered(f).selectAll().orderBy('id').offset(page.skip).limit(page.limit), toDevice),
    async list(f, page) {
      const q = filtered(f);
      return pageOf(q, page, (all) => all.selectAll().orderBy('id'), toDevice);
    },
    async update(id, patch) {
      // a field given as undefined is not given: `set` with nothing left would be invalid SQL
      const values = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
      if (Object.keys(values).length) await db.updateTable('devices').set(values).where('id', '=', id).execute();
    },
    claim: (id, homeId, now) =>
      changedRow(
        db
          .updateTable('devices')
          .set({ homeId, claimTime: now, claimExpirationTime: now })
          .where('id', '=', id)
          .where('homeId', 'is', null)
          .where('claimExpirationTime', '>', now),
      ),
    async setConnected(id, connected, time) {
      await setOne({ id, connected, time });
    },
    async setConnectedMany(changes) {
      if (changes.length === 1 && !raw) return void (await setOne(changes[0]));
      // PostgreSQL: one statement (a round trip per device would hold the group commit);
      // SQLite: a prepared statement per device costs microseconds inside the caller's transaction,
      // run without Kysely (building and mapping each through it cost more than SQLite's update)
      if (dialect === 'postgres' && changes.length) {
        await sql`update devices as d set is_connected = v.c,
            last_connect_time = case when v.c = 1 then v.t else d.last_connect_time end,
            last_disconnect_time = case when v.c = 0 then v.t else d.last_disconnect_time end
          from (select unnest(${changes.map((c) => c.id)}::integer[]) as id, unnest(${changes.map((c) => (c.connected ? 1 : 0))}::integer[]) as c,
            unnest(${changes.map((c) => c.time)}::text[]) as t) as v
          where d.id = v.id`.execute(db);
        return;
      }
      if (raw)
        return raw((conn) =>
          conn.atomically(() => {
            const on = conn.prepare(ONLINE_SQL);
            const off = conn.prepare(OFFLINE_SQL);
            for (const c of changes) (c.connected ? on : off).run(c.time, c.id);
          }),
        );
      for (const c of changes) await setOne(c);
    },
    async markAllOffline(time) {
      const r = await db.updateTable('devices').set({ isConnected: 0, lastDisconnectTime: time }).where('isConnected', '=', 1).executeTakeFirst();
      return Number(r.numUpdatedRows);
    },
    async counts(projectId) {
      const ofProject = db.selectFrom('devices').where('projectId', '=', projectId);
      // the same predicate as the partial index devices_connected, so only its entries are read
      const [total, connected] = await Promise.all([countRows(ofProject), countRows(ofProject.where(CONNECTED))]);
      return { total, connected };
    },
    delete: (id) => deletedRow(db.deleteFrom('devices').where('id', '=', id)),
  };
}

export function deviceClassRepo(db: Db, raw?: RawSqlite): DeviceClassRepo {
  // read at every device sign-in (certificateRequired), compiled once
  const byId = precompiled(db, () => db.selectFrom('deviceClasses').selectAll().where('projectId', '=', 0).where('id', '=', ''), raw);
  return {
    async create({ certificateRequired, ...c }) {
      await db
        .insertInto('deviceClasses')
        .values({ ...c, certificateRequired: certificateRequired ? 1 : 0 })
        .execute();
    },
    async get(projectId, id) {
      const r = await byId(projectId, id);
      return r && toDeviceClass(r);
    },
    list: (projectId) => rowsOf(db.selectFrom('deviceClasses').selectAll().where('projectId', '=', projectId).orderBy('id'), toDeviceClass),
    setCertificateRequired: (projectId, id, required) =>
      changedRow(
        db
          .updateTable('deviceClasses')
          .set({ certificateRequired: required ? 1 : 0 })
          .where('projectId', '=', projectId)
          .where('id', '=', id),
      ),
    delete: (projectId, id) => deletedRow(db.deleteFrom('deviceClasses').where('projectId', '=', projectId).where('id', '=', id)),
    deviceCount: (projectId, id) => countRows(db.selectFrom('devices').where('projectId', '=', projectId).where('deviceClass', '=', id)),
  };
}

/** the 0/1 column as the boolean of the port, in the row a query just made (read at every device sign-in) */
function toDeviceClass(r: Selectable<DeviceClassesTable>): DeviceClassRow {
  const c = r as unknown as DeviceClassRow;
  c.certificateRequired = r.certificateRequired === 1;
  return c;
}
