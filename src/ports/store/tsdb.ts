// Home time series (docs/timeseries.md): points of a tsdb smart module, kept raw and in rollups at
// 1 minute, 1 hour and 1 day (sum, count, min, max), so an aggregate over a long range reads
// rollup rows, not every point. Times here are epoch milliseconds (UTC).

/** a series: (home, module, seriesId) */
export interface SeriesKey {
  homeId: number;
  moduleId: string;
  seriesId: string;
}

export interface TsdbPoint extends SeriesKey {
  projectId: number;
  /** epoch milliseconds */
  ts: number;
  value: number;
}

/** where an aggregate reads: the raw points or one of the rollups (docs/timeseries.md#rollups) */
export type TsdbSource = 'raw' | '1min' | '1hour' | '1day';

/** one bucket: its start (epoch ms) and what the points in it add up to */
export interface TsdbBucket {
  start: number;
  sum: number;
  count: number;
  min: number;
  max: number;
}

export interface TsdbBucketQuery {
  source: TsdbSource;
  /** points with begin <= ts < end */
  begin: number;
  end: number;
  /** bucket width in ms; a bucket starts at offset + k * width */
  width: number;
  offset: number;
}

export interface TsdbRepo {
  /**
   * Stores the points and adds them to the rollups, in the caller's transaction if any. A point
   * whose series already has one at that timestamp is ignored (a resent event counts once).
   * Returns how many points were new.
   */
  ingest(points: TsdbPoint[]): Promise<number>;
  /** the series ids of a module in a home, sorted */
  listSeries(homeId: number, moduleId: string): Promise<string[]>;
  exists(key: SeriesKey): Promise<boolean>;
  /** the first and last point's timestamps; undefined when the series has no point */
  timeRange(key: SeriesKey): Promise<{ begin: number; end: number } | undefined>;
  /** the points of [begin, end) added up per bucket, buckets with no point left out, in order */
  buckets(key: SeriesKey, q: TsdbBucketQuery): Promise<TsdbBucket[]>;
  /** the series, its points and rollups; false when there was no such series */
  deleteSeries(key: SeriesKey): Promise<boolean>;
  /** every series of a module (the module was deleted); returns how many series went */
  deleteModule(projectId: number, moduleId: string): Promise<number>;
  /** retention: up to `limit` raw points older than `before` (and rollup rows whose bucket ends before it); returns how many rows went */
  prune(before: number, limit: number): Promise<number>;
}
