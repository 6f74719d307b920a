// The Queue port: durable webhook deliveries (docs/webhooks.md, docs/architecture.md#processes, Queue). It lives in the
// same database as the records so that an event and its deliveries commit together (outbox):
// pub/sub may drop a message, the queue never does. Workers claim due rows under a lease; a
// worker that dies leaves rows whose lease expires and that another worker claims again, so
// delivery is at least once. Adapter: src/adapters/sql/deliveries.ts (SQLite and PostgreSQL,
// `FOR UPDATE SKIP LOCKED` there). Contract: test/contract/queue.ts.
import type { Page, Paged } from './store/page.js';

/** event and command webhooks of a smart module; `data` batches of a webhook data source and
 * `report` outputs to a report's webhook, whose moduleId is the source or report id */
export type DeliveryKind = 'event' | 'command' | 'data' | 'report';
export type DeliveryStatus = 'pending' | 'delivering' | 'success' | 'failed' | 'dropped';
export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'delivering', 'success', 'failed', 'dropped'];

/** One try at delivering (docs/webhooks.md delivery log). */
export interface DeliveryAttempt {
  time: string;
  /** the receiver's status, when it answered */
  statusCode?: number;
  /** why no 2xx: TIMEOUT, ECONNREFUSED, REDIRECT_NOT_FOLLOWED, HTTP_500, TEMPLATE_ERROR: ... */
  error?: string;
  latencyMs: number;
  /** the first 4 KiB of the answer */
  response: string;
}

export interface DeliveryRow {
  /** also the X-Service-Delivery header: the same on every retry */
  id: string;
  projectId: number;
  moduleId: string;
  kind: DeliveryKind;
  /** the events-history id, for event deliveries */
  eventId: string | null;
  /** eventType or command action, for listing and reports */
  eventType: string | null;
  /** the exact JSON text of the docs/webhooks.md#event-webhook / docs/webhooks.md#command-webhook body */
  payload: string;
  status: DeliveryStatus;
  attempts: DeliveryAttempt[];
  /** attempts since the last (re)delivery request: indexes the retry schedule */
  roundAttempts: number;
  /** when the row is due: pending → next try; delivering → lease end; null once finished */
  nextAttemptTime: string | null;
  creationTime: string;
  /** last status change */
  updateTime: string;
  claimedBy: string | null;
}

export type NewDelivery = Pick<DeliveryRow, 'id' | 'projectId' | 'moduleId' | 'kind' | 'eventId' | 'eventType' | 'payload' | 'creationTime'>;

/** what a worker writes back after an attempt, only while it still holds the lease */
export interface DeliveryOutcome {
  status: Exclude<DeliveryStatus, 'delivering'>;
  attempts: DeliveryAttempt[];
  roundAttempts: number;
  /** pending: when to try again */
  nextAttemptTime: string | null;
  updateTime: string;
}

export interface DeliveryFilter {
  projectId: number;
  moduleId: string;
  status?: DeliveryStatus;
  /** creationTime >= since */
  since?: string;
}

export interface ClaimRequest {
  workerId: string;
  now: string;
  /** the lease: after this, another worker may claim the row again */
  leaseUntil: string;
  limit: number;
  /** lanes (projectId/moduleId/kind) this worker has no room for right now */
  excludeLanes?: string[];
}

export interface QueueStats {
  pending: number;
  delivering: number;
  /** creationTime of the oldest unfinished delivery */
  oldestPendingTime: string | null;
}

/** `${projectId}/${moduleId}/${kind}`: one webhook, the unit of fairness between receivers */
export const laneOf = (d: { projectId: number; moduleId: string; kind: DeliveryKind }): string => `${d.projectId}/${d.moduleId}/${d.kind}`;

/** new rows handed straight to a worker of this process: leased to it from the start */
export interface InsertClaim {
  workerId: string;
  /** the lease: after this, another worker may claim the rows */
  leaseUntil: string;
}

export interface Deliveries {
  /**
   * new rows, status pending, due at their creationTime; with `claim`, status delivering under
   * that worker's lease instead (the rows are claimed as they are written, no claim query)
   */
  insertMany(rows: NewDelivery[], claim?: InsertClaim): Promise<void>;
  get(projectId: number, moduleId: string, id: string): Promise<DeliveryRow | undefined>;
  /** newest first */
  list(f: DeliveryFilter, page: Page): Promise<Paged<DeliveryRow>>;
  /** takes up to `limit` due rows (pending and due, or delivering with an expired lease) */
  claim(req: ClaimRequest): Promise<DeliveryRow[]>;
  /** records an attempt's outcome; false when the lease was lost to another worker */
  complete(id: string, workerId: string, outcome: DeliveryOutcome): Promise<boolean>;
  /**
   * several outcomes in one statement; returns the ids whose lease was still held. `projectId`
   * (the row's, which the worker holds) spares reading it back for the fleet figures
   */
  completeMany(workerId: string, items: { id: string; outcome: DeliveryOutcome; projectId?: number }[]): Promise<Set<string>>;
  /** gives claimed rows back untouched (no attempt made), due at `now` */
  release(ids: string[], workerId: string, now: string): Promise<void>;
  /**
   * a live worker keeps the rows it still holds (docs/webhooks.md#retries): their lease now ends at
   * `leaseUntil`; rows no longer leased by it are left alone. Returns how many were renewed.
   */
  renew(ids: string[], workerId: string, leaseUntil: string): Promise<number>;
  /** start-up of embedded mode: no other worker can hold a lease, give every one back */
  releaseAll(now: string): Promise<number>;
  /** a new round of retries for a finished or waiting delivery; undefined when it does not exist */
  redeliver(projectId: number, moduleId: string, id: string, now: string): Promise<DeliveryRow | undefined>;
  /** with its module */
  deleteForModule(projectId: number, moduleId: string): Promise<number>;
  /** at most `limit` finished rows created before `before` (retention, in short batches) */
  prune(before: string, limit: number): Promise<number>;
  stats(): Promise<QueueStats>;
  /**
   * docs/api.md#fleet-figures: the project's unfinished deliveries that failed at least once
   * (waiting for a retry or being retried) and the creationTime of its oldest unfinished one;
   * reads the live rows only, never the finished history
   */
  liveStats(projectId: number): Promise<{ retrying: number; oldestPendingTime: string | null }>;
}
