// Runs of reports (docs/concepts.md#reports), also the reports' work queue: workers claim
// queued runs under a lease, as they claim deliveries.
import type { Page, Paged } from './page.js';

export type ReportRunStatus = 'queued' | 'running' | 'success' | 'failure';
export interface ReportRunRow {
  id: string;
  reportId: string;
  projectId: number;
  trigger: 'manual' | 'schedule';
  status: ReportRunStatus;
  /** the end of the report's window: the tick time, or the request time of a manual run */
  dueTime: string;
  startTime: string | null;
  endTime: string | null;
  rows: number | null;
  error: string | null;
  outputKey: string | null;
  outputBytes: number | null;
  creationTime: string;
  claimedBy: string | null;
  leaseUntil: string | null;
}
export type NewReportRun = Pick<ReportRunRow, 'id' | 'reportId' | 'projectId' | 'trigger' | 'dueTime' | 'creationTime'>;
export type ReportRunOutcome = Pick<ReportRunRow, 'status' | 'endTime' | 'rows' | 'error' | 'outputKey' | 'outputBytes'>;

export interface ReportRunRepo {
  create(r: NewReportRun): Promise<ReportRunRow>;
  get(id: string): Promise<ReportRunRow | undefined>;
  /** newest first */
  list(reportId: string, page: Page): Promise<Paged<ReportRunRow>>;
  /** takes up to `limit` queued runs, or running ones whose lease ended, for `workerId` */
  claim(workerId: string, now: string, leaseUntil: string, limit: number): Promise<ReportRunRow[]>;
  /** rows so far, and a longer lease; false when the lease was lost */
  progress(id: string, workerId: string, rows: number, leaseUntil: string): Promise<boolean>;
  /** final outcome; false when the lease was lost */
  finish(id: string, workerId: string, outcome: ReportRunOutcome): Promise<boolean>;
  /**
   * the outcome of the webhook delivery of a run whose output was written (docs/concepts.md#reports): the
   * run's status follows its delivery; false when there is no such run (deleted, or no output)
   */
  settleDelivery(id: string, outcome: Pick<ReportRunRow, 'status' | 'endTime' | 'error'>): Promise<boolean>;
  /** output keys of the runs removed */
  deleteForReport(reportId: string): Promise<string[]>;
  /** up to `limit` finished runs created before `before`: removed, with their output keys */
  prune(before: string, limit: number): Promise<{ removed: number; outputKeys: string[] }>;
}
