// Scheduled reports (docs/concepts.md#reports): their definitions and the tick lease that fires
// each due report once across workers. Runs are in report-runs.ts, the data they read in
// report-data.ts.
import type { Page, Paged } from './page.js';

export type ReportKind = 'devices' | 'connectivity' | 'events' | 'deliveries';
export type ReportFormat = 'csv' | 'json';
export interface ReportFilter {
  homeId?: number;
  deviceClass?: string;
  eventTypes?: string[];
}
export type ReportDestination = { type: 'store' } | { type: 'webhook'; url: string };
export interface ReportRow {
  id: string;
  projectId: number;
  name: string;
  description: string | null;
  kind: ReportKind;
  filter: ReportFilter | null;
  window: string | null;
  format: ReportFormat;
  schedule: { cron: string; timezone: string };
  destination: ReportDestination;
  /** signing key of a webhook destination, sealed with the server secret */
  keySealed: string | null;
  enabled: boolean;
  creationTime: string;
  modificationTime: string;
  lastRunTime: string | null;
  /** null while disabled; the tick lease compares it */
  nextRunTime: string | null;
  /** the worker that fired the last tick */
  leaseOwner: string | null;
}
export type ReportPatch = Partial<
  Pick<ReportRow, 'name' | 'description' | 'kind' | 'filter' | 'window' | 'format' | 'schedule' | 'destination' | 'keySealed' | 'enabled' | 'nextRunTime'>
> & { modificationTime: string };

export interface ReportRepo {
  create(r: ReportRow): Promise<void>;
  get(id: string): Promise<ReportRow | undefined>;
  /** oldest first */
  list(projectId: number, page: Page): Promise<Paged<ReportRow>>;
  update(id: string, patch: ReportPatch): Promise<boolean>;
  delete(id: string): Promise<boolean>;
  /** enabled reports whose nextRunTime <= now, most overdue first */
  due(now: string, limit: number): Promise<ReportRow[]>;
  /**
   * The tick lease: moves nextRunTime from `due` to `next` and stamps lastRunTime and the owner,
   * only if nextRunTime is still `due`. Exactly one of several workers gets true.
   */
  claimTick(id: string, due: string, next: string | null, owner: string): Promise<boolean>;
}
