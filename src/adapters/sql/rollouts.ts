// Firmware files and rollouts (docs/firmware.md). Every change of a rollout device's state is one
// conditional UPDATE ... RETURNING, so it happens once however many nodes race for it; counts
// are a GROUP BY over those rows, never a tally kept beside them.
import { sql, type Kysely, type Selectable } from 'kysely';
import type { Columns, Database } from './schema.js';
import type { Dialect } from './migrations.js';
import type {
  FirmwareFileRepo,
  FirmwareFileRow,
  RolloutCounts,
  RolloutDeviceRow,
  RolloutDeviceState,
  RolloutRepo,
  RolloutRow,
  RolloutState,
  BundleComponent,
} from '../../ports/store.js';
import { OPEN_ROLLOUT_DEVICE } from '../../ports/store.js';
import { changedRow, countRows, deletedCount, firstOf, pageOf, rowsOf } from './util.js';

export type FirmwareFilesTable = Columns<FirmwareFileRow, { size: number | string }>;
/** the rollout's row, plus the worker's bookkeeping: announcement owed (`dirty`), last announced, the pass's lease */
export type RolloutsTable = Columns<
  RolloutRow,
  { state: string; target: string; waves: string; dirty: number; eventTime: string | null; leaseOwner: string | null; leaseUntil: string | null }
>;
export type RolloutDevicesTable = Columns<RolloutDeviceRow, { state: string }>;
type Db = Kysely<Database & { firmwareFiles: FirmwareFilesTable; rollouts: RolloutsTable; rolloutDevices: RolloutDevicesTable }>;
type Within = <T>(fn: (d: Kysely<Database>) => Promise<T>) => Promise<T>;

const INSERT_BATCH = 500;

function toFile(r: Selectable<FirmwareFilesTable>): FirmwareFileRow {
  return { ...r, size: Number(r.size) };
}

function toRollout({ dirty: _d, eventTime: _e, leaseOwner: _o, leaseUntil: _u, ...r }: Selectable<RolloutsTable>): RolloutRow {
  return {
    ...r,
    state: r.state as RolloutState,
    target: JSON.parse(r.target) as RolloutRow['target'],
    waves: JSON.parse(r.waves) as RolloutRow['waves'],
    // PostgreSQL may answer integers as strings
    currentWave: Number(r.currentWave),
    failureThreshold: Number(r.failureThreshold),
    ratePerMinute: r.ratePerMinute === null ? null : Number(r.ratePerMinute),
    ttl: Number(r.ttl),
    baseInstalled: Number(r.baseInstalled),
    baseFailed: Number(r.baseFailed),
  };
}

function toDevice(r: Selectable<RolloutDevicesTable>): RolloutDeviceRow {
  return { ...r, deviceId: Number(r.deviceId), wave: Number(r.wave), state: r.state as RolloutDeviceState };
}

const emptyCounts = (): RolloutCounts => ({ targeted: 0, pending: 0, notified: 0, downloading: 0, installed: 0, failed: 0 });

export function firmwareFileRepo(base: Kysely<Database>, dialect: Dialect, within: Within): FirmwareFileRepo {
  const db = base as unknown as Db;
  return {
    put: (row, component) =>
      within(async (b) => {
        const t = b as unknown as Db;
        // PostgreSQL: the bundle row's lock orders two uploads to one bundle (each rewrites its components)
        const lock = dialect === 'postgres' ? sql` for update` : sql``;
        const bundle = (await sql<{ components: string }>`select components from bundles where id = ${row.bundleId}${lock}`.execute(t)).rows[0];
        if (!bundle) return undefined;
        const components = JSON.parse(bundle.components) as BundleComponent[];
        const at = components.findIndex((c) => c.componentName === row.componentName);
        if (at < 0) return undefined;
        components[at] = { ...components[at]!, url: component.url, checksum: component.checksum };
        await t
          .updateTable('bundles')
          .set({ components: JSON.stringify(components) })
          .where('id', '=', row.bundleId)
          .execute();
        const old = await t
          .selectFrom('firmwareFiles')
          .selectAll()
          .where('bundleId', '=', row.bundleId)
          .where('componentName', '=', row.componentName)
          .executeTakeFirst();
        if (old) {
          await t
            .updateTable('firmwareFiles')
            .set({ size: row.size, sha256: row.sha256, blobKey: row.blobKey, creationTime: row.creationTime })
            .where('bundleId', '=', row.bundleId)
            .where('componentName', '=', row.componentName)
            .execute();
        } else {
          await t.insertInto('firmwareFiles').values(row).execute();
        }
        return old ? { replaced: toFile(old) } : {};
      }),
    get: (bundleId, componentName) =>
      firstOf(db.selectFrom('firmwareFiles').selectAll().where('bundleId', '=', bundleId).where('componentName', '=', componentName), toFile),
    list: (bundleId) => rowsOf(db.selectFrom('firmwareFiles').selectAll().where('bundleId', '=', bundleId).orderBy('componentName'), toFile),
    deleteForBundle: (bundleId) => rowsOf(db.deleteFrom('firmwareFiles').where('bundleId', '=', bundleId).returningAll(), toFile),
  };
}

export function rolloutRepo(base: Kysely<Database>, within: Within): RolloutRepo {
  const db = base as unknown as Db;
  return {
    create: (r, devices) =>
      within(async (b) => {
        const t = b as unknown as Db;
        await t
          .insertInto('rollouts')
          .values({
            ...r,
            target: JSON.stringify(r.target),
            waves: JSON.stringify(r.waves),
            baseInstalled: 0,
            baseFailed: 0,
            dirty: 1,
            eventTime: null,
            leaseOwner: null,
            leaseUntil: null,
          })
          .execute();
        for (let i = 0; i < devices.length; i += INSERT_BATCH) {
          await t
            .insertInto('rolloutDevices')
            .values(
              devices.slice(i, i + INSERT_BATCH).map((d) => ({
                rolloutId: r.id,
                deviceId: d.deviceId,
                wave: d.wave,
                state: d.state ?? 'pending',
                commandId: null,
                notifyTime: null,
                deadline: null,
                updateTime: r.creationTime,
                error: null,
              })),
            )
            .execute();
        }
      }),
    get: (id) => firstOf(db.selectFrom('rollouts').selectAll().where('id', '=', id), toRollout),
    list: (projectId, page) =>
      pageOf(
        db.selectFrom('rollouts').where('projectId', '=', projectId),
        page,
        (q) => q.selectAll().orderBy('creationTime', 'desc').orderBy('id', 'desc'),
        toRollout,
      ),
    async counts(ids) {
      const out = new Map<string, RolloutCounts>(ids.map((id) => [id, emptyCounts()]));
      if (!ids.length) return out;
      const rows = await db
        .selectFrom('rolloutDevices')
        .select(['rolloutId', 'state', (e) => e.fn.countAll().as('n')])
        .where('rolloutId', 'in', ids)
        .groupBy(['rolloutId', 'state'])
        .execute();
      for (const r of rows) {
        const c = out.get(r.rolloutId)!;
        const n = Number(r.n);
        c.targeted += n;
        if (r.state in c) c[r.state as RolloutDeviceState] += n;
      }
      return out;
    },
    async update(id, from, patch, now, atWave) {
      let q = db
        .updateTable('rollouts')
        .set({ ...patch, updateTime: now, dirty: 1 })
        .where('id', '=', id)
        .where('state', 'in', [...from]);
      if (atWave !== undefined) q = q.where('currentWave', '=', atWave);
      return firstOf(q.returningAll(), toRollout);
    },
    async activeForBundle(bundleId) {
      const r = await db.selectFrom('rollouts').select('id').where('bundleId', '=', bundleId).where('state', 'in', ['running', 'paused']).executeTakeFirst();
      return r !== undefined;
    },
    due: (limit) =>
      rowsOf(
        db
          .selectFrom('rollouts')
          .selectAll()
          .where((e) => e.or([e('state', '=', 'running'), e('dirty', '=', 1)]))
          .orderBy('updateTime')
          .limit(limit),
        toRollout,
      ),
    lease: (id, owner, now, until) =>
      changedRow(
        db
          .updateTable('rollouts')
          .set({ leaseOwner: owner, leaseUntil: until })
          .where('id', '=', id)
          .where((e) => e.or([e('leaseUntil', 'is', null), e('leaseUntil', '<', now), e('leaseOwner', '=', owner)])),
      ),
    async release(id, owner) {
      await db.updateTable('rollouts').set({ leaseOwner: null, leaseUntil: null }).where('id', '=', id).where('leaseOwner', '=', owner).execute();
    },
    async touch(id, now) {
      await db.updateTable('rollouts').set({ dirty: 1, updateTime: now }).where('id', '=', id).execute();
    },
    async claimAnnouncement(id, now, gapMs) {
      const before = new Date(Date.parse(now) - gapMs).toISOString();
      return changedRow(
        db
          .updateTable('rollouts')
          .set({ dirty: 0, eventTime: now })
          .where('id', '=', id)
          .where('dirty', '=', 1)
          .where((e) => e.or([e('eventTime', 'is', null), e('eventTime', '<=', before)])),
      );
    },
    devices(id, states, page) {
      let q = db.selectFrom('rolloutDevices').where('rolloutId', '=', id);
      if (states?.length) q = q.where('state', 'in', [...states]);
      return pageOf(q, page, (all) => all.selectAll().orderBy('deviceId'), toDevice);
    },
    device: (id, deviceId) => firstOf(db.selectFrom('rolloutDevices').selectAll().where('rolloutId', '=', id).where('deviceId', '=', deviceId), toDevice),
    toNotify: (id, maxWave, limit) =>
      rowsOf(
        db
          .selectFrom('rolloutDevices')
          .selectAll()
          .where('rolloutId', '=', id)
          .where('state', '=', 'pending')
          .where('commandId', 'is', null)
          .where('wave', '<=', maxWave)
          .orderBy('wave')
          .orderBy('deviceId')
          .limit(limit),
        toDevice,
      ),
    notifiedSince: (id, since) => countRows(db.selectFrom('rolloutDevices').where('rolloutId', '=', id).where('notifyTime', '>=', since)),
    recordCommand: (id, deviceId, commandId, now, deadline) =>
      changedRow(
        db
          .updateTable('rolloutDevices')
          .set({ commandId, notifyTime: now, deadline })
          .where('rolloutId', '=', id)
          .where('deviceId', '=', deviceId)
          .where('commandId', 'is', null),
      ),
    move: (id, deviceId, from, to, now, error) =>
      firstOf(
        db
          .updateTable('rolloutDevices')
          .set({ state: to, updateTime: now, error: error ?? null })
          .where('rolloutId', '=', id)
          .where('deviceId', '=', deviceId)
          .where('state', 'in', [...from])
          .returningAll(),
        toDevice,
      ),
    async ofDevice(deviceId, bundleId, from) {
      const rows = await db
        .selectFrom('rolloutDevices as d')
        .innerJoin('rollouts as r', 'r.id', 'd.rolloutId')
        .selectAll('d')
        .select('r.state as rolloutState')
        .where('d.deviceId', '=', deviceId)
        .where('r.bundleId', '=', bundleId)
        .where('d.state', 'in', [...from])
        .execute();
      return rows.map((r) => ({ ...toDevice(r), rolloutState: r.rolloutState as RolloutState }));
    },
    async failOverdue(id, now, limit, error) {
      const ids = db
        .selectFrom('rolloutDevices')
        .select('deviceId')
        .where('rolloutId', '=', id)
        .where('state', 'in', [...OPEN_ROLLOUT_DEVICE])
        .where('deadline', '<=', now)
        .limit(limit);
      const r = await db
        .updateTable('rolloutDevices')
        .set({ state: 'failed', updateTime: now, error })
        .where('rolloutId', '=', id)
        .where('deviceId', 'in', ids)
        // a device that moved on meanwhile keeps its state
        .where('state', 'in', [...OPEN_ROLLOUT_DEVICE])
        .executeTakeFirst();
      return Number(r.numUpdatedRows);
    },
    async openCommands(id) {
      const rows = await db
        .selectFrom('rolloutDevices')
        .select(['deviceId', 'commandId'])
        .where('rolloutId', '=', id)
        .where('state', 'in', [...OPEN_ROLLOUT_DEVICE])
        .where('commandId', 'is not', null)
        .orderBy('deviceId')
        .execute();
      return rows.map((r) => ({ deviceId: Number(r.deviceId), commandId: r.commandId! }));
    },
    deleteForDevice: (deviceId) => deletedCount(db.deleteFrom('rolloutDevices').where('deviceId', '=', deviceId)),
  };
}
