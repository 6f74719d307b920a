// The Store port: durable records. Adapters: src/adapters/sql (SQLite and PostgreSQL through one
// set of Kysely queries). Every adapter passes test/contract/store.ts.
// Times are RFC 3339 strings with milliseconds in UTC; JSON columns come back parsed.
//
// Each repository, with its row types, has a file of its own under ./store/; this file composes
// them into the Store and re-exports them all, so `ports/store.js` stays the one import path.
// A caller that uses a few repositories may say so: `Pick<Store, 'devices' | 'kv'>` (a domain verb,
// in its deps: `StoreOf<'devices' | 'kv'>`, domain/deps.ts).
import type { Deliveries } from './queue.js';
import type { ApiKeyRepo, ProjectRepo } from './store/projects.js';
import type { SessionRepo, UserRepo } from './store/users.js';
import type { HomeRepo, MemberRepo } from './store/homes.js';
import type { DeviceClassRepo, DeviceRepo } from './store/devices.js';
import type { ProvisioningTokenRepo } from './store/provisioning.js';
import type { BundleRepo } from './store/bundles.js';
import type { KvRepo } from './store/kv.js';
import type { AccessLogRepo, GeneralLogRepo } from './store/logs.js';
import type { EventRepo } from './store/events.js';
import type { ModuleRepo } from './store/modules.js';
import type { LogRequestRepo } from './store/log-requests.js';
import type { DataRecordRepo, DataSourceRepo } from './store/data-sources.js';
import type { ReportRepo } from './store/reports.js';
import type { ReportRunRepo } from './store/report-runs.js';
import type { ReportDataRepo } from './store/report-data.js';
import type { RetentionRepo } from './store/retention.js';
import type { TsdbRepo } from './store/tsdb.js';
import type { CommandRepo } from './store/commands.js';
import type { DeviceCertificateRepo } from './store/device-certificates.js';
import type { StreamTicketRepo } from './store/stream-tickets.js';
import type { FirmwareFileRepo, RolloutRepo } from './store/rollouts.js';
import type { StatsRepo } from './store/stats.js';

export * from './store/page.js';
export * from './store/project-keyed.js';
export * from './store/projects.js';
export * from './store/users.js';
export * from './store/homes.js';
export * from './store/devices.js';
export * from './store/provisioning.js';
export * from './store/bundles.js';
export * from './store/kv.js';
export * from './store/logs.js';
export * from './store/events.js';
export * from './store/modules.js';
export * from './store/log-requests.js';
export * from './store/data-sources.js';
export * from './store/reports.js';
export * from './store/report-runs.js';
export * from './store/report-data.js';
export * from './store/retention.js';
export * from './store/tsdb.js';
export * from './store/commands.js';
export * from './store/device-certificates.js';
export * from './store/stream-tickets.js';
export * from './store/rollouts.js';
export * from './store/stats.js';

/** the repositories of the Store, each also usable alone */
export interface Repositories {
  projects: ProjectRepo;
  apiKeys: ApiKeyRepo;
  users: UserRepo;
  sessions: SessionRepo;
  homes: HomeRepo;
  members: MemberRepo;
  deviceClasses: DeviceClassRepo;
  devices: DeviceRepo;
  provisioningTokens: ProvisioningTokenRepo;
  bundles: BundleRepo;
  kv: KvRepo;
  accessLogs: AccessLogRepo;
  logs: GeneralLogRepo;
  events: EventRepo;
  modules: ModuleRepo;
  /** the durable delivery queue (src/ports/queue.ts) */
  deliveries: Deliveries;
  /** device log requests (docs/concepts.md#log-requests) */
  logRequests: LogRequestRepo;
  /** data sources of a project (docs/concepts.md#data-sources) */
  dataSources: DataSourceRepo;
  /** records kept by `store` data sources */
  dataRecords: DataRecordRepo;
  /** scheduled reports (docs/concepts.md#reports) */
  reports: ReportRepo;
  /** runs of reports, also the reports' work queue */
  reportRuns: ReportRunRepo;
  /** read-only queries reports compute from, in keyset order so long runs can stream */
  reportData: ReportDataRepo;
  /** batched deletes of bounded histories (retention) */
  retention: RetentionRepo;
  /** home time series of tsdb modules (docs/timeseries.md) */
  tsdb: TsdbRepo;
  /** the device command outbox (docs/concepts.md#command-outbox) */
  commands: CommandRepo;
  /** client certificates registered on devices (docs/tls.md#client-certificates) */
  deviceCertificates: DeviceCertificateRepo;
  /** single-use WebSocket tickets (docs/api.md#stream-tickets) */
  streamTickets: StreamTicketRepo;
  /** files of bundle components (docs/firmware.md#files) */
  firmwareFiles: FirmwareFileRepo;
  /** firmware rollouts and their devices (docs/firmware.md#rollouts) */
  rollouts: RolloutRepo;
  /** per-minute fleet counters (docs/api.md#fleet-figures) */
  stats: StatsRepo;
}

export interface Store extends Repositories {
  /**
   * Run fn in one transaction; the Store handed to fn is bound to it. `syncLater`: the commit may
   * resolve before it is on disk, and `synced()` makes it durable; nobody is answered before then.
   * `whole`: fn never goes on after a failure of its writes (whatever throws rolls the whole
   * transaction back), so a repository's own all-or-nothing step inside it needs no savepoint.
   */
  transaction<T>(fn: (tx: Store) => Promise<T>, how?: { syncLater?: boolean; whole?: boolean }): Promise<T>;
  /**
   * resolves once every commit made so far is on disk: SQLite with synchronous=full syncs its WAL
   * off the event loop (docs/operations.md#durability); elsewhere at once, every commit already is
   */
  synced(): Promise<void>;
  /** cheap round trip, for /readyz */
  ping(): Promise<void>;
  close(): Promise<void>;
}
