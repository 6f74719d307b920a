// Home time series (docs/timeseries.md#rollups): a row per series, the raw points keyed by (series,
// timestamp), and rollup rows keyed by (series, level, bucket) holding sum, count, min and max of
// the points in [bucket, bucket + level). Ingest adds new points to the rollups in the same
// statement batch (an upsert), so an aggregate over months reads rollup rows, not points.
import { sql, type Generated, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { Dialect } from './migrations.js';
import type { SeriesKey, TsdbBucket, TsdbPoint, TsdbRepo } from '../../ports/store.js';
import type { RawSqlite } from './sqlite-raw.js';
import { deletedCount, deletedRow } from './util.js';

export interface TsdbSeriesTable {
  id: Generated<number>;
  projectId: number;
  homeId: number;
  moduleId: string;
  seriesId: string;
  creationTime: string;
}
export interface TsdbPointsTable {
  series: number;
  ts: number;
  value: number;
}
export interface TsdbRollupsTable {
  series: number;
  /** the bucket width in ms: 60000, 3600000 or 86400000 */
  level: number;
  bucket: number;
  vSum: number;
  vCount: number;
  vMin: number;
  vMax: number;
}
type Db = Kysely<Database & { tsdbSeries: TsdbSeriesTable; tsdbPoints: TsdbPointsTable; tsdbRollups: TsdbRollupsTable }>;

/** the rollup levels, finest first (docs/timeseries.md#rollups) */
export const ROLLUP_LEVELS = [60_000, 3_600_000, 86_400_000] as const;
const LEVEL_OF = { '1min': 60_000, '1hour': 3_600_000, '1day': 86_400_000 } as const;

/** a bucket's sum, count, min and max, over the raw points or over rollup rows (which hold those four already) */
const AGGREGATES = {
  points: { time: 'ts', sum: sql<number>`sum(value)`, count: sql<number>`count(*)`, min: sql<number>`min(value)`, max: sql<number>`max(value)` },
  rollups: { time: 'bucket', sum: sql<number>`sum(v_sum)`, count: sql<number>`sum(v_count)`, min: sql<number>`min(v_min)`, max: sql<number>`max(v_max)` },
} as const;

// rows per multi-row statement: well under SQLite's 32766 and PostgreSQL's 65535 parameters
const POINT_CHUNK = 1000;
const ROLLUP_CHUNK = 500;

const n = (x: unknown): number => Number(x);

function chunks<T>(xs: T[], size: number): T[][] {
  if (xs.length <= size) return [xs];
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += size) out.push(xs.slice(i, i + size));
  return out;
}

type Row = { series: number; ts: number; value: number };
const seriesKeyOf = (p: { homeId: number; moduleId: string; seriesId: string }) => `${p.homeId}\u0000${p.moduleId}\u0000${p.seriesId}`;

/** the rollup rows the points add up to: one per (series, level, bucket) */
function rollupsOf(inserted: Row[]): TsdbRollupsTable[] {
  const acc = new Map<string, TsdbRollupsTable>();
  for (const p of inserted) {
    for (const level of ROLLUP_LEVELS) {
      const bucket = p.ts - (p.ts % level);
      const k = `${p.series}/${level}/${bucket}`;
      const r = acc.get(k);
      if (r) {
        r.vSum += p.value;
        r.vCount++;
        if (p.value < r.vMin) r.vMin = p.value;
        if (p.value > r.vMax) r.vMax = p.value;
      } else acc.set(k, { series: p.series, level, bucket, vSum: p.value, vCount: 1, vMin: p.value, vMax: p.value });
    }
  }
  return [...acc.values()];
}

/** each series' first point of a timestamp: a later one of the batch is ignored, as a stored one would be */
function firstPerTimestamp(points: TsdbPoint[], ids: (p: TsdbPoint) => number | undefined): Row[] {
  const rows = new Map<string, Row>();
  for (const p of points) {
    const series = ids(p);
    if (series === undefined) continue;
    const k = `${series}/${p.ts}`;
    if (!rows.has(k)) rows.set(k, { series, ts: p.ts, value: p.value });
  }
  return [...rows.values()];
}

/**
 * SQLite: ingest as prepared statements run once per row, in one transaction (or savepoint):
 * Kysely's multi-row statements cost several times what SQLite takes to run them (about 16,000
 * points a second against well over 50,000: `npm run bench -- tsdb`).
 */
function sqliteIngest(raw: RawSqlite, points: TsdbPoint[]): Promise<number> {
  return raw((conn) =>
    conn.atomically(() => {
      const addSeries = conn.prepare(
        'insert into tsdb_series (project_id, home_id, module_id, series_id, creation_time) values (?, ?, ?, ?, ?) on conflict (home_id, module_id, series_id) do nothing',
      );
      const seriesId = conn.prepare('select id from tsdb_series where home_id = ? and module_id = ? and series_id = ?').pluck();
      const addPoint = conn.prepare('insert into tsdb_points (series, ts, value) values (?, ?, ?) on conflict (series, ts) do nothing');
      const addRollup = conn.prepare(
        'insert into tsdb_rollups (series, level, bucket, v_sum, v_count, v_min, v_max) values (?, ?, ?, ?, ?, ?, ?) ' +
          'on conflict (series, level, bucket) do update set v_sum = v_sum + excluded.v_sum, v_count = v_count + excluded.v_count, ' +
          'v_min = min(v_min, excluded.v_min), v_max = max(v_max, excluded.v_max)',
      );
      const ids = new Map<string, number>();
      const now = new Date().toISOString();
      const idOf = (p: TsdbPoint) => {
        const k = seriesKeyOf(p);
        let id = ids.get(k);
        if (id === undefined) {
          addSeries.run(p.projectId, p.homeId, p.moduleId, p.seriesId, now);
          id = Number(seriesId.get(p.homeId, p.moduleId, p.seriesId));
          ids.set(k, id);
        }
        return id;
      };
      const inserted: Row[] = [];
      for (const r of firstPerTimestamp(points, idOf)) if (addPoint.run(r.series, r.ts, r.value).changes > 0) inserted.push(r);
      for (const r of rollupsOf(inserted)) addRollup.run(r.series, r.level, r.bucket, r.vSum, r.vCount, r.vMin, r.vMax);
      return inserted.length;
    }),
  );
}

export function tsdbRepo(base: Kysely<Database>, dialect: Dialect, raw?: RawSqlite): TsdbRepo {
  const db = base as unknown as Db;
  // SQLite's two-argument min/max are PostgreSQL's least/greatest
  const least = dialect === 'postgres' ? 'least' : 'min';
  const greatest = dialect === 'postgres' ? 'greatest' : 'max';

  const seriesOf = (key: SeriesKey) =>
    db.selectFrom('tsdbSeries').select('id').where('homeId', '=', key.homeId).where('moduleId', '=', key.moduleId).where('seriesId', '=', key.seriesId);

  /** the integer id of each series of the batch, created where new */
  async function seriesIds(points: TsdbPoint[]): Promise<Map<string, number>> {
    const keys = new Map<string, TsdbPoint>();
    for (const p of points) {
      const k = seriesKeyOf(p);
      if (!keys.has(k)) keys.set(k, p);
    }
    const firsts = [...keys.values()];
    const now = new Date().toISOString();
    for (const part of chunks(firsts, 500)) {
      await db
        .insertInto('tsdbSeries')
        .values(part.map((p) => ({ projectId: p.projectId, homeId: p.homeId, moduleId: p.moduleId, seriesId: p.seriesId, creationTime: now })))
        .onConflict((oc) => oc.columns(['homeId', 'moduleId', 'seriesId']).doNothing())
        .execute();
    }
    const ids = new Map<string, number>();
    for (const part of chunks(firsts, 500)) {
      const rows = await db
        .selectFrom('tsdbSeries')
        .select(['id', 'homeId', 'moduleId', 'seriesId'])
        .where('homeId', 'in', [...new Set(part.map((p) => p.homeId))])
        .where('moduleId', 'in', [...new Set(part.map((p) => p.moduleId))])
        .where('seriesId', 'in', [...new Set(part.map((p) => p.seriesId))])
        .execute();
      for (const r of rows) ids.set(seriesKeyOf(r), n(r.id));
    }
    return ids;
  }

  async function addToRollups(inserted: Row[]): Promise<void> {
    for (const part of chunks(rollupsOf(inserted), ROLLUP_CHUNK)) {
      await db
        .insertInto('tsdbRollups')
        .values(part)
        .onConflict((oc) =>
          oc.columns(['series', 'level', 'bucket']).doUpdateSet({
            vSum: sql`tsdb_rollups.v_sum + excluded.v_sum`,
            vCount: sql`tsdb_rollups.v_count + excluded.v_count`,
            vMin: sql`${sql.raw(least)}(tsdb_rollups.v_min, excluded.v_min)`,
            vMax: sql`${sql.raw(greatest)}(tsdb_rollups.v_max, excluded.v_max)`,
          }),
        )
        .execute();
    }
  }

  return {
    async ingest(points) {
      if (points.length === 0) return 0;
      if (raw) return sqliteIngest(raw, points);
      const ids = await seriesIds(points);
      const inserted: Row[] = [];
      for (const part of chunks(
        firstPerTimestamp(points, (p) => ids.get(seriesKeyOf(p))),
        POINT_CHUNK,
      )) {
        const back = await db
          .insertInto('tsdbPoints')
          .values(part)
          .onConflict((oc) => oc.columns(['series', 'ts']).doNothing())
          .returning(['series', 'ts', 'value'])
          .execute();
        for (const r of back) inserted.push({ series: n(r.series), ts: n(r.ts), value: n(r.value) });
      }
      if (inserted.length > 0) await addToRollups(inserted);
      return inserted.length;
    },

    async listSeries(homeId, moduleId) {
      const rows = await db
        .selectFrom('tsdbSeries')
        .select('seriesId')
        .where('homeId', '=', homeId)
        .where('moduleId', '=', moduleId)
        .orderBy('seriesId')
        .execute();
      return rows.map((r) => r.seriesId);
    },

    async exists(key) {
      return (await seriesOf(key).executeTakeFirst()) !== undefined;
    },

    async timeRange(key) {
      const s = await seriesOf(key).executeTakeFirst();
      if (!s) return undefined;
      // two queries, each one end of the (series, ts) key
      const first = await db.selectFrom('tsdbPoints').select('ts').where('series', '=', s.id).orderBy('ts', 'asc').limit(1).executeTakeFirst();
      if (!first) return undefined;
      const last = await db.selectFrom('tsdbPoints').select('ts').where('series', '=', s.id).orderBy('ts', 'desc').limit(1).executeTakeFirst();
      return { begin: n(first.ts), end: n(last!.ts) };
    },

    async buckets(key, q) {
      const s = await seriesOf(key).executeTakeFirst();
      if (!s) return [];
      // the widths and offsets are integers the domain chose (resolution.ts), written as literals
      // so that both dialects do integer arithmetic on the bigint columns
      const w = sql.lit(Math.trunc(q.width));
      const off = sql.lit(Math.trunc(q.offset));
      const a = q.source === 'raw' ? AGGREGATES.points : AGGREGATES.rollups;
      const start = sql<number>`((${sql.raw(a.time)} - ${off}) / ${w}) * ${w} + ${off}`;
      const columns = [start.as('start'), a.sum.as('s'), a.count.as('c'), a.min.as('lo'), a.max.as('hi')];
      const rows =
        q.source === 'raw'
          ? await db
              .selectFrom('tsdbPoints')
              .select(columns)
              .where('series', '=', s.id)
              .where('ts', '>=', q.begin)
              .where('ts', '<', q.end)
              .groupBy(start)
              .orderBy(start)
              .execute()
          : await db
              .selectFrom('tsdbRollups')
              .select(columns)
              .where('series', '=', s.id)
              .where('level', '=', LEVEL_OF[q.source])
              .where('bucket', '>=', q.begin)
              .where('bucket', '<', q.end)
              .groupBy(start)
              .orderBy(start)
              .execute();
      return rows.map((r): TsdbBucket => ({ start: n(r.start), sum: n(r.s), count: n(r.c), min: n(r.lo), max: n(r.hi) }));
    },

    async deleteSeries(key) {
      const s = await seriesOf(key).executeTakeFirst();
      if (!s) return false;
      await db.deleteFrom('tsdbPoints').where('series', '=', s.id).execute();
      await db.deleteFrom('tsdbRollups').where('series', '=', s.id).execute();
      return deletedRow(db.deleteFrom('tsdbSeries').where('id', '=', s.id));
    },

    async deleteModule(projectId, moduleId) {
      const ids = db.selectFrom('tsdbSeries').select('id').where('projectId', '=', projectId).where('moduleId', '=', moduleId);
      await db.deleteFrom('tsdbPoints').where('series', 'in', ids).execute();
      await db.deleteFrom('tsdbRollups').where('series', 'in', ids).execute();
      return deletedCount(db.deleteFrom('tsdbSeries').where('projectId', '=', projectId).where('moduleId', '=', moduleId));
    },

    async prune(before, limit) {
      // at most `limit` points a call (retention paces the calls), series by series through the (series, ts) key
      const old = await db
        .selectFrom('tsdbSeries as s')
        .select('s.id')
        .where(({ exists, selectFrom }) => exists(selectFrom('tsdbPoints as p').select('p.ts').whereRef('p.series', '=', 's.id').where('p.ts', '<', before)))
        .orderBy('s.id')
        .execute();
      let removed = 0;
      for (const { id } of old) {
        if (removed >= limit) break;
        const r =
          await sql`delete from tsdb_points where series = ${id} and ts in (select ts from tsdb_points where series = ${id} and ts < ${before} order by ts limit ${limit - removed})`.execute(
            db,
          );
        removed += Number(r.numAffectedRows ?? 0);
      }
      if (removed < limit) {
        // the raw points are gone: the rollup rows wholly before the cutoff go too (few: one per series a minute at most)
        for (const level of ROLLUP_LEVELS)
          await db
            .deleteFrom('tsdbRollups')
            .where('level', '=', level)
            .where('bucket', '<=', before - level)
            .execute();
      }
      return removed;
    },
  };
}
