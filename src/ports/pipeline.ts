// The event pipeline as Deps carries it (domain/event/pipeline.ts builds it): the outbox that
// commits events with their deliveries, the webhook target cache and the local hand-off of new
// deliveries to a worker of this process (domain/webhook/handoff.ts).
import type { EventRow, ModuleRow, PresenceWrite, TsdbPoint } from './store.js';
import type { InsertClaim, NewDelivery } from './queue.js';

/** docs/timeseries.md#sending-points: the points one event carries for its project's tsdb modules */
export interface EventPoints {
  points: TsdbPoint[];
  /** entries of `timeSeriesData` that were not a point */
  dropped: number;
}

export interface OutboxItem {
  row: EventRow;
  deliveries: NewDelivery[];
  /** set by the commit: some deliveries went to the queue for any worker to claim */
  queued?: boolean;
  /** docs/timeseries.md#sending-points: the points the event carries for the project's tsdb modules */
  points?: EventPoints;
  /** a `_deviceConnected_`/`_deviceDisconnected_` event: the device's presence flip, in the same transaction */
  presence?: PresenceWrite;
  /**
   * its sender sends nothing more until this event is answered (a REST event: its connection is
   * idle until the 204): the next commit waits for such senders to come back (group-commit.ts)
   */
  senderWaits?: boolean;
}

export interface Reservation {
  /** how the taken rows must be written */
  claim: InsertClaim;
  /** the rows this worker takes, in the order given */
  taken: NewDelivery[];
  /** the rows are committed: the worker starts them */
  accept(): void;
  /** they were not written: the room is given back */
  cancel(): void;
}

/** a worker of this process that takes new deliveries as they are written */
export interface LocalClaimer {
  /** takes what it has room for now (maybe nothing) */
  reserve(rows: NewDelivery[]): Reservation | undefined;
}

export interface EventPipeline {
  /** resolves once the event and its deliveries are committed, with the other events of this moment */
  commit(item: OutboxItem): Promise<void>;
  /** every module of the project, cached (one query per project per TARGETS_TTL_MS at most); a cached list comes without a promise */
  projectModules(projectId: number): ModuleRow[] | Promise<ModuleRow[]>;
  /** the project's modules changed: the next event reads them again */
  invalidateTargets(projectId: number): void;
  /** a worker of this process offers room for new deliveries (handoff.ts); returns the detach */
  attachClaimer(claimer: LocalClaimer): () => void;
  /** the outbox's transactions since the pipeline was made, and the events they held (/metrics) */
  commitCounts(): { commits: number; items: number };
}
