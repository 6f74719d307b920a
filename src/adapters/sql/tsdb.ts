// Home time series (docs/timeseries.md#rollups): a row per series, the raw points keyed by (series,
// timestamp), and rollup rows keyed by (series, level, bucket) holding sum, count, min and max of
// the points in [bucket, bucket + level). Ingest adds new points to the rollups in the same
// statement batch (an upsert), so an aggregate over months reads rollup rows, not points.
import { sql, type Generated, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { Dialect } from './migrations.js';
import type { SeriesKey, TsdbBucket, TsdbPoint, TsdbRepo } from '../../ports/store.js';

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

export function tsdbRepo(base: Kysely<Database>, dialect: Dialect): TsdbRepo {
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
      const k = `${p.homeId}\u0000${p.moduleId}\u0000${p.seriesId}`;
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
      for (const r of rows) ids.set(`${r.homeId}\u0000${r.moduleId}\u0000${r.seriesId}`, n(r.id));
    }
    return ids;
  }

  async function addToRollups(inserted: { series: number; ts: number; value: number }[]): Promise<void> {
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
    for (const part of chunks([...acc.values()], ROLLUP_CHUNK)) {
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
      const ids = await seriesIds(points);
      // one row per (series, ts): the first point of the batch wins, as a stored one does
      const rows = new Map<string, { series: number; ts: number; value: number }>();
      for (const p of points) {
        const series = ids.get(`${p.homeId}\u0000${p.moduleId}\u0000${p.seriesId}`);
        if (series === undefined) continue;
        const k = `${series}/${p.ts}`;
        if (!rows.has(k)) rows.set(k, { series, ts: p.ts, value: p.value });
      }
      const inserted: { series: number; ts: number; value: number }[] = [];
      for (const part of chunks([...rows.values()], POINT_CHUNK)) {
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
      let rows: { start: unknown; s: unknown; c: unknown; lo: unknown; hi: unknown }[];
      if (q.source === 'raw') {
        const start = sql<number>`((ts - ${off}) / ${w}) * ${w} + ${off}`;
        rows = await db
          .selectFrom('tsdbPoints')
          .select([
            start.as('start'),
            sql<number>`sum(value)`.as('s'),
            sql<number>`count(*)`.as('c'),
            sql<number>`min(value)`.as('lo'),
            sql<number>`max(value)`.as('hi'),
          ])
          .where('series', '=', s.id)
          .where('ts', '>=', q.begin)
          .where('ts', '<', q.end)
          .groupBy(start)
          .orderBy(start)
          .execute();
      } else {
        const start = sql<number>`((bucket - ${off}) / ${w}) * ${w} + ${off}`;
        rows = await db
          .selectFrom('tsdbRollups')
          .select([
            start.as('start'),
            sql<number>`sum(v_sum)`.as('s'),
            sql<number>`sum(v_count)`.as('c'),
            sql<number>`min(v_min)`.as('lo'),
            sql<number>`max(v_max)`.as('hi'),
          ])
          .where('series', '=', s.id)
          .where('level', '=', LEVEL_OF[q.source])
          .where('bucket', '>=', q.begin)
          .where('bucket', '<', q.end)
          .groupBy(start)
          .orderBy(start)
          .execute();
      }
      return rows.map((r): TsdbBucket => ({ start: n(r.start), sum: n(r.s), count: n(r.c), min: n(r.lo), max: n(r.hi) }));
    },

    async deleteSeries(key) {
      const s = await seriesOf(key).executeTakeFirst();
      if (!s) return false;
      await db.deleteFrom('tsdbPoints').where('series', '=', s.id).execute();
      await db.deleteFrom('tsdbRollups').where('series', '=', s.id).execute();
      const r = await db.deleteFrom('tsdbSeries').where('id', '=', s.id).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },

    async deleteModule(projectId, moduleId) {
      const ids = db.selectFrom('tsdbSeries').select('id').where('projectId', '=', projectId).where('moduleId', '=', moduleId);
      await db.deleteFrom('tsdbPoints').where('series', 'in', ids).execute();
      await db.deleteFrom('tsdbRollups').where('series', 'in', ids).execute();
      const r = await db.deleteFrom('tsdbSeries').where('projectId', '=', projectId).where('moduleId', '=', moduleId).executeTakeFirst();
      return Number(r.numDeletedRows);
    },

    async prune(before, limit) {
      // oldest first, at most `limit` points a call (retention paces the calls)
      const r =
        await sql`delete from tsdb_points where (series, ts) in (select series, ts from tsdb_points where ts < ${before} order by ts limit ${limit})`.execute(
          db,
        );
      const removed = Number(r.numAffectedRows ?? 0);
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
