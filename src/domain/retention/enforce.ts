// Retention (issue: retention; docs/concepts.md "bounded retention" of the events history, docs/operations.md#logs of access
// and general logs): everything older than its limit goes, in batches of `batchSize` rows with a
// pause between batches, so the API keeps the database (SQLite has a single writer) and no
// statement runs long. A limit of 0 days keeps that history forever. Each `store` data source
// may keep its records longer or shorter than the default (`retentionDays`, docs/concepts.md#data-sources); time-series
// points go after `tsdb.retentionDays` (docs/timeseries.md#retention). The same
// pass ends abandoned log uploads (docs/concepts.md#log-requests).
import type { Deps, EmitDeps, StoreOf, SystemArgs } from '../deps.js';
import type { PrunableHistory } from '../../ports/store.js';
import { expireAbandonedUploads } from '../logrequest/index.js';

export interface RetentionLimits {
  accessLogDays: number;
  generalLogDays: number;
  eventDays: number;
  dataRecordDays: number;
  reportOutputDays: number;
  /** docs/timeseries.md#retention: days a time-series point is kept (config `tsdb.retentionDays`); absent or 0: forever */
  tsdbDays?: number;
  batchSize: number;
}

export interface RetentionResult {
  accessLogs: number;
  generalLogs: number;
  events: number;
  dataRecords: number;
  reportRuns: number;
  abandonedUploads: number;
  /** time-series points (docs/timeseries.md#retention) */
  tsdbPoints: number;
  /** per-minute fleet counters older than the figures read (docs/api.md#fleet-figures) */
  statMinutes: number;
  batches: number;
}

export type RetentionDeps = EmitDeps &
  Pick<Deps, 'limits' | 'blobs' | 'logUploads'> &
  StoreOf<'dataRecords' | 'dataSources' | 'devices' | 'logRequests' | 'logs' | 'reportRuns' | 'retention' | 'stats' | 'transaction' | 'tsdb'>;

/** between two batches: let queued requests reach the database first */
export const yieldBetweenBatches = (): Promise<void> => new Promise((r) => setTimeout(r, 5));

export async function enforceRetention({
  deps,
  input: limits,
}: SystemArgs<
  /** pause: what runs between two batches (a collaborator, so it travels with the ports) */
  RetentionDeps & { pause?: () => Promise<void> },
  RetentionLimits
>): Promise<RetentionResult> {
  const pause = deps.pause ?? yieldBetweenBatches;
  const now = deps.clock.now().getTime();
  const cutoff = (days: number) => new Date(now - days * 86_400_000).toISOString();
  const out: RetentionResult = {
    accessLogs: 0,
    generalLogs: 0,
    events: 0,
    dataRecords: 0,
    reportRuns: 0,
    abandonedUploads: 0,
    tsdbPoints: 0,
    statMinutes: 0,
    batches: 0,
  };
  const batch = limits.batchSize;

  /** runs one batch at a time until a batch comes back short */
  const drain = async (step: () => Promise<number>): Promise<number> => {
    let total = 0;
    for (;;) {
      const n = await step();
      out.batches++;
      total += n;
      if (n < batch) return total;
      await pause();
    }
  };

  const histories: [PrunableHistory, number, 'accessLogs' | 'generalLogs' | 'events'][] = [
    ['accessLogs', limits.accessLogDays, 'accessLogs'],
    ['generalLogs', limits.generalLogDays, 'generalLogs'],
    ['events', limits.eventDays, 'events'],
  ];
  for (const [history, days, key] of histories) {
    if (days > 0) out[key] = await drain(() => deps.store.retention.prune(history, cutoff(days), batch));
  }

  for (const s of await deps.store.dataSources.listStores()) {
    const days = s.retentionDays ?? limits.dataRecordDays;
    if (days > 0) out.dataRecords += await drain(() => deps.store.dataRecords.prune(s.projectId, s.id, cutoff(days), batch));
  }

  if (limits.reportOutputDays > 0) {
    const before = cutoff(limits.reportOutputDays);
    out.reportRuns = await drain(async () => {
      const { removed, outputKeys } = await deps.store.reportRuns.prune(before, batch);
      for (const k of outputKeys) await deps.blobs.delete(k);
      return removed;
    });
  }

  if (limits.tsdbDays) {
    const before = now - limits.tsdbDays * 86_400_000;
    out.tsdbPoints = await drain(() => deps.store.tsdb.prune(before, batch));
  }

  // docs/api.md#fleet-figures reads the last hour: a day of counters is kept, then they go
  const statsBefore = new Date(now - 86_400_000).toISOString().slice(0, 16);
  out.statMinutes = await drain(() => deps.store.stats.prune(statsBefore, batch));

  out.abandonedUploads = await expireAbandonedUploads({ deps, input: { batch } });
  return out;
}
