// The Store port: durable records. Adapters: src/adapters/sql (SQLite and PostgreSQL through one
// set of Kysely queries). Every adapter passes test/contract/store.ts.
// Times are RFC 3339 strings with milliseconds in UTC; JSON columns come back parsed.
import type { Deliveries } from './queue.js';

export interface Page {
  skip: number;
  limit: number;
}
export interface Paged<T> {
  items: T[];
  total: number;
}

export interface ProjectRow {
  id: number;
  name: string;
  /** docs/concepts.md: POST /users without a credential (self-signup) is allowed */
  allowUserSignup: boolean;
  creationTime: string;
}

export interface ApiKeyRow {
  id: string;
  projectId: number;
  name: string;
  scopes: string[];
  keyHash: string;
  creationTime: string;
}

export interface UserRow {
  id: number;
  projectId: number;
  email: string;
  name: string;
  passwordHash: string;
  canCreateDevices: boolean;
  creationTime: string;
}

export interface SessionRow {
  tokenHash: string;
  userId: number;
  projectId: number;
  /** the app named at sign-in (docs/concepts.md); null or absent when none was */
  appId?: string | null;
  creationTime: string;
  expirationTime: string;
}

export interface HomeRow {
  id: number;
  projectId: number;
  name: string;
  creationTime: string;
}

export type HomeRole = 'owner' | 'member';
export interface MemberRow {
  homeId: number;
  userId: number;
  role: HomeRole;
  creationTime: string;
}

export interface DeviceClassRow {
  projectId: number;
  id: string;
  name: string | null;
  description: string | null;
  creationTime: string;
}

export interface DeviceRow {
  id: number;
  projectId: number;
  deviceClass: string;
  homeId: number | null;
  name: string | null;
  description: string | null;
  tag: string | null;
  /** sha256 hex of the device API key: the only thing used for lookup */
  apiKeyHash: string;
  /** the device API key sealed with the server secret (AES-256-GCM), for privileged read-back */
  apiKeySealed: string;
  claimCodeHash: string | null;
  claimCodeSealed: string | null;
  claimExpirationTime: string | null;
  claimTime: string | null;
  creationTime: string;
  bundleInstalled: string | null;
  bundleInstallTime: string | null;
  channel: string | null;
  isConnected: boolean;
  lastConnectTime: string | null;
  lastDisconnectTime: string | null;
}

export type NewDevice = Omit<DeviceRow, 'id' | 'isConnected' | 'lastConnectTime' | 'lastDisconnectTime'>;
export type DevicePatch = Partial<
  Pick<
    DeviceRow,
    | 'homeId'
    | 'name'
    | 'description'
    | 'tag'
    | 'apiKeyHash'
    | 'apiKeySealed'
    | 'claimCodeHash'
    | 'claimCodeSealed'
    | 'claimExpirationTime'
    | 'claimTime'
    | 'bundleInstalled'
    | 'bundleInstallTime'
    | 'channel'
  >
>;

export interface DeviceFilter {
  projectId?: number;
  /** restrict to these homes (a user caller); an empty array matches nothing */
  homeIds?: number[];
  homeId?: number;
  deviceClass?: string;
  tag?: string;
  isConnected?: boolean;
  /** case-insensitive substring of name, tag or description */
  search?: string;
}

export interface ProvisioningTokenRow {
  tokenHash: string;
  projectId: number;
  homeId: number;
  deviceClass: string;
  deviceTag: string | null;
  expirationTime: string;
  usedTime: string | null;
}

export interface BundleComponent {
  componentName: string;
  componentVersionName: string;
  filename?: string;
  checksum?: string;
  url?: string;
  deviceConfigSchema?: unknown[];
}

export interface BundleRow {
  id: string;
  projectId: number;
  name: string | null;
  description: string | null;
  deviceClass: string;
  channel: string | null;
  components: BundleComponent[];
  creationTime: string;
}

export type KvScope = 'device' | 'home';
export interface KvItem {
  key: string;
  value: unknown;
  modificationTime: string;
}
export interface KvChange {
  rev: number;
}

export interface AccessLogRow {
  projectId: number;
  clientIp: string;
  latency: number;
  method: string;
  path: string;
  statusCode: number;
  timestamp: string;
}
export interface AccessLogFilter {
  projectId: number;
  since?: string;
  until?: string;
  method?: string;
  statusCode?: number;
  pathPrefix?: string;
}

export interface LogCaller {
  id?: string | number;
  type?: string;
  name?: string;
  sudoer?: boolean;
}
export interface GeneralLogRow {
  projectId: number | null;
  caller: LogCaller | null;
  level: number;
  source: string;
  text: string;
  timestamp: string;
}
export interface GeneralLogFilter {
  projectId: number;
  since?: string;
  until?: string;
  /** minimum level */
  level?: number;
  source?: string;
}

/** An event as delivered (docs/concepts.md#events with the service fields filled). */
export interface EventRecord {
  eventType: string;
  eventData: Record<string, unknown>;
  timestamp: string;
  homeId?: number;
  originDeviceId?: number;
  originDeviceClass?: string;
  originDeviceIp?: string;
  originProjectKeyId?: string;
  originProjectKeyName?: string;
}
export interface EventRow {
  id: string;
  projectId: number;
  event: EventRecord;
}
export interface EventFilter {
  projectId: number;
  homeId?: number;
  deviceId?: number;
  eventType?: string;
  since?: string;
  until?: string;
}

/** A webhooks module (docs/webhooks.md). Webhook keys are sealed with the server secret: they sign. */
export interface EventWebhookRow {
  url: string;
  /** event types, `*` for all (docs/webhooks.md#subscriptions) */
  subscriptions: string[];
  /** advanced mode (docs/webhooks.md#templates) */
  headers: Record<string, string> | null;
  body: string | null;
  keySealed: string;
}
export interface CommandWebhookRow {
  url: string;
  keySealed: string;
}
/** a webhook switched off by the service (a 410 answer), until a client turns it on again */
export interface WebhookDisabled {
  time: string;
  reason: string;
}
export interface ModuleRow {
  projectId: number;
  id: string;
  moduleType: 'webhooks';
  description: string | null;
  eventWebhook: EventWebhookRow | null;
  commandWebhook: CommandWebhookRow | null;
  eventDisabled: WebhookDisabled | null;
  commandDisabled: WebhookDisabled | null;
  creationTime: string;
  modificationTime: string;
}
export type ModulePatch = Partial<Pick<ModuleRow, 'description' | 'eventWebhook' | 'commandWebhook' | 'eventDisabled' | 'commandDisabled'>> & {
  modificationTime: string;
};

/** Device log requests (docs/concepts.md#log-requests). */
export type LogRequestStatus = 'requested' | 'uploading' | 'success' | 'failure' | 'cancelled';
export const OPEN_LOG_REQUEST: readonly LogRequestStatus[] = ['requested', 'uploading'];
export interface LogRequestRow {
  id: string;
  projectId: number;
  deviceId: number;
  status: LogRequestStatus;
  /** sha256 hex of the upload token: the token itself is shown once and kept nowhere else */
  tokenHash: string;
  start: string | null;
  end: string | null;
  prefixes: string[] | null;
  creationTime: string;
  uploadId: string | null;
  uploadSize: number | null;
  numParts: number | null;
  partSize: number | null;
  /** an upload not completed by then is abandoned */
  uploadExpires: string | null;
  filename: string | null;
  contentType: string | null;
  finishTime: string | null;
  error: string | null;
}
export type NewLogRequest = Pick<LogRequestRow, 'id' | 'projectId' | 'deviceId' | 'tokenHash' | 'start' | 'end' | 'prefixes' | 'creationTime'>;
export type LogRequestPatch = Partial<
  Pick<LogRequestRow, 'status' | 'uploadId' | 'uploadSize' | 'numParts' | 'partSize' | 'uploadExpires' | 'filename' | 'contentType' | 'finishTime' | 'error'>
>;

/** Data sources and stored records (docs/concepts.md#data-sources). */
export type DataSourceType = 'store' | 'webhook';
export interface DataSourceRow {
  projectId: number;
  id: string;
  name: string;
  type: DataSourceType;
  /** null: every class */
  deviceClasses: string[] | null;
  url: string | null;
  /** webhook signing key, sealed with the server secret */
  keySealed: string | null;
  retentionDays: number | null;
  /** a webhook source whose deliveries fail: since when, the last failure and its error */
  failingSince: string | null;
  lastFailureTime: string | null;
  lastError: string | null;
  creationTime: string;
  modificationTime: string;
}
export type DataSourcePatch = Partial<Pick<DataSourceRow, 'name' | 'deviceClasses' | 'url' | 'keySealed' | 'retentionDays' | 'failingSince' | 'lastFailureTime' | 'lastError'>> & {
  modificationTime: string;
};
export interface DataRecordRow {
  projectId: number;
  sourceId: string;
  deviceId: number;
  timestamp: string;
  data: Record<string, unknown>;
}
export interface DataRecordFilter {
  projectId: number;
  sourceId: string;
  deviceId?: number;
  since?: string;
  until?: string;
}

/** Scheduled reports and their runs (docs/concepts.md#reports). */
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
/** an events-history row in the order reports read them (oldest first) */
export interface ReportEventRow {
  id: string;
  event: EventRecord;
}
export interface ReportDeliveryRow {
  id: string;
  moduleId: string;
  kind: string;
  eventType: string | null;
  status: string;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  creationTime: string;
  updateTime: string;
}
/** a keyset cursor: rows strictly after (time, id) */
export interface TimeCursor {
  time: string;
  id: string;
}
export type PrunableHistory = 'accessLogs' | 'generalLogs' | 'events';

export interface Store {
  /** Run fn in one transaction; the Store handed to fn is bound to it. */
  transaction<T>(fn: (tx: Store) => Promise<T>): Promise<T>;
  /** cheap round trip, for /readyz */
  ping(): Promise<void>;
  close(): Promise<void>;

  projects: {
    create(p: { name: string; creationTime: string }): Promise<ProjectRow>;
    get(id: number): Promise<ProjectRow | undefined>;
    list(): Promise<ProjectRow[]>;
    update(id: number, patch: { name?: string; allowUserSignup?: boolean }): Promise<void>;
    count(): Promise<number>;
    /**
     * inside a transaction: waits until no other node is bootstrapping, so nodes that start
     * together on an empty database create the first project once (held until the transaction ends)
     */
    lockFirstStart(): Promise<void>;
  };

  apiKeys: {
    create(k: ApiKeyRow): Promise<void>;
    getByHash(keyHash: string): Promise<ApiKeyRow | undefined>;
    /** the row when a read cache holds it and may serve it now (else undefined: ask getByHash) */
    peekByHash?(keyHash: string): ApiKeyRow | undefined;
    get(id: string): Promise<ApiKeyRow | undefined>;
    list(projectId: number): Promise<ApiKeyRow[]>;
    delete(id: string): Promise<boolean>;
  };

  users: {
    create(u: Omit<UserRow, 'id'>): Promise<UserRow>;
    get(id: number): Promise<UserRow | undefined>;
    /** the row when a read cache holds it and may serve it now (else undefined: ask get) */
    peek?(id: number): UserRow | undefined;
    getByEmail(projectId: number, email: string): Promise<UserRow | undefined>;
    list(f: { projectId: number; search?: string }, page: Page): Promise<Paged<UserRow>>;
    update(id: number, patch: Partial<Pick<UserRow, 'name' | 'email' | 'passwordHash' | 'canCreateDevices'>>): Promise<void>;
    delete(id: number): Promise<boolean>;
  };

  sessions: {
    create(s: SessionRow): Promise<void>;
    getByHash(tokenHash: string): Promise<SessionRow | undefined>;
    /** the row when a read cache holds it and may serve it now (else undefined: ask getByHash) */
    peekByHash?(tokenHash: string): SessionRow | undefined;
    delete(tokenHash: string): Promise<boolean>;
    /** every session of one user: deleting the user revokes each (bus `revoke` by token hash) */
    listForUser(userId: number): Promise<SessionRow[]>;
    deleteForUser(userId: number): Promise<void>;
  };

  homes: {
    create(h: Omit<HomeRow, 'id'>): Promise<HomeRow>;
    get(id: number): Promise<HomeRow | undefined>;
    list(f: { projectId?: number; userId?: number }, page: Page): Promise<Paged<HomeRow>>;
    update(id: number, patch: { name?: string }): Promise<void>;
    delete(id: number): Promise<boolean>;
  };

  members: {
    upsert(m: MemberRow): Promise<void>;
    get(homeId: number, userId: number): Promise<MemberRow | undefined>;
    list(homeId: number): Promise<MemberRow[]>;
    homesOf(userId: number): Promise<number[]>;
    delete(homeId: number, userId: number): Promise<boolean>;
  };

  deviceClasses: {
    create(c: DeviceClassRow): Promise<void>;
    get(projectId: number, id: string): Promise<DeviceClassRow | undefined>;
    list(projectId: number): Promise<DeviceClassRow[]>;
    delete(projectId: number, id: string): Promise<boolean>;
    /** number of devices of that class, to refuse deleting a class in use */
    deviceCount(projectId: number, id: string): Promise<number>;
  };

  devices: {
    create(d: NewDevice): Promise<DeviceRow>;
    get(id: number): Promise<DeviceRow | undefined>;
    getByKeyHash(apiKeyHash: string): Promise<DeviceRow | undefined>;
    /** the row when a read cache holds it and may serve it now (else undefined: ask get) */
    peek?(id: number): DeviceRow | undefined;
    /** the row when a read cache holds it and may serve it now (else undefined: ask getByKeyHash) */
    peekByKeyHash?(apiKeyHash: string): DeviceRow | undefined;
    getByClaimHash(claimCodeHash: string): Promise<DeviceRow | undefined>;
    list(f: DeviceFilter, page: Page): Promise<Paged<DeviceRow>>;
    update(id: number, patch: DevicePatch): Promise<void>;
    /**
     * Claims a device into a home if it is in no home and its claimable window is open at `now`:
     * one conditional UPDATE, so of two concurrent claims exactly one wins. True when it won.
     */
    claim(id: number, homeId: number, now: string): Promise<boolean>;
    /** presence: flips isConnected and stamps the matching time */
    setConnected(id: number, connected: boolean, time: string): Promise<void>;
    /** start-up of embedded mode: nobody is connected yet */
    markAllOffline(time: string): Promise<number>;
    delete(id: number): Promise<boolean>;
  };

  provisioningTokens: {
    create(t: ProvisioningTokenRow): Promise<void>;
    /** marks the token used if it is unused and unexpired at `now`; returns it, else undefined */
    consume(tokenHash: string, now: string): Promise<ProvisioningTokenRow | undefined>;
  };

  bundles: {
    create(b: BundleRow): Promise<void>;
    get(id: string): Promise<BundleRow | undefined>;
    list(f: { projectId: number; deviceClass?: string; channel?: string }): Promise<BundleRow[]>;
    delete(id: string): Promise<boolean>;
  };

  kv: {
    list(scope: KvScope, ownerId: number, keyPrefix?: string): Promise<{ rev: number; items: KvItem[] }>;
    get(scope: KvScope, ownerId: number, key: string): Promise<KvItem | undefined>;
    /** insert or replace; refuses a new key beyond maxKeys with AppError LIMIT_EXCEEDED */
    set(scope: KvScope, ownerId: number, key: string, value: unknown, time: string, maxKeys: number): Promise<KvChange>;
    /** undefined when the key did not exist */
    delete(scope: KvScope, ownerId: number, key: string): Promise<KvChange | undefined>;
    /** everything of one store, when its owner is deleted */
    drop(scope: KvScope, ownerId: number): Promise<void>;
  };

  accessLogs: {
    insertMany(rows: AccessLogRow[]): Promise<void>;
    list(f: AccessLogFilter, page: Page): Promise<Paged<AccessLogRow>>;
  };

  logs: {
    insert(row: GeneralLogRow): Promise<void>;
    list(f: GeneralLogFilter, page: Page): Promise<Paged<GeneralLogRow>>;
  };

  events: {
    insert(row: EventRow): Promise<void>;
    /** several at once (the event pipeline's group commit) */
    insertMany(rows: EventRow[]): Promise<void>;
    list(f: EventFilter, page: Page): Promise<Paged<EventRow>>;
  };

  modules: {
    /** false when the project already has a module with that id */
    create(m: ModuleRow): Promise<boolean>;
    get(projectId: number, id: string): Promise<ModuleRow | undefined>;
    /** every module of the project, by id */
    list(projectId: number): Promise<ModuleRow[]>;
    /** the modules named, of any projects: one query for a batch of deliveries */
    getMany(keys: { projectId: number; id: string }[]): Promise<ModuleRow[]>;
    update(projectId: number, id: string, patch: ModulePatch): Promise<boolean>;
    delete(projectId: number, id: string): Promise<boolean>;
  };

  /** the durable delivery queue (src/ports/queue.ts) */
  deliveries: Deliveries;

  /** device log requests (docs/concepts.md#log-requests) */
  logRequests: {
    /** false when the device already has an open (requested or uploading) request */
    create(r: NewLogRequest): Promise<boolean>;
    get(id: string): Promise<LogRequestRow | undefined>;
    getByTokenHash(tokenHash: string): Promise<LogRequestRow | undefined>;
    /** newest first */
    list(deviceId: number, page: Page): Promise<Paged<LogRequestRow>>;
    /** the device's open request, if any */
    openFor(deviceId: number): Promise<LogRequestRow | undefined>;
    /**
     * Applies `patch` only while the request is in one of `from` (and, when given, still has
     * upload `uploadId`): the one conditional update that makes each transition happen once.
     * A final status frees the device for a new request. Returns the updated row.
     */
    transition(id: string, from: readonly LogRequestStatus[], patch: LogRequestPatch, uploadId?: string): Promise<LogRequestRow | undefined>;
    delete(id: string): Promise<boolean>;
    /** uploads left unfinished past their expiry */
    expired(now: string, limit: number): Promise<LogRequestRow[]>;
    /** every request of a device (cleanup when it is deleted) */
    listForDevice(deviceId: number): Promise<LogRequestRow[]>;
    deleteForDevice(deviceId: number): Promise<number>;
  };

  /** data sources of a project (docs/concepts.md#data-sources) */
  dataSources: {
    /** false when the project already has a source with that id */
    create(s: DataSourceRow): Promise<boolean>;
    get(projectId: number, id: string): Promise<DataSourceRow | undefined>;
    /** by id */
    list(projectId: number): Promise<DataSourceRow[]>;
    /** every `store` source of every project (retention) */
    listStores(): Promise<DataSourceRow[]>;
    update(projectId: number, id: string, patch: DataSourcePatch): Promise<boolean>;
    delete(projectId: number, id: string): Promise<boolean>;
  };

  /** records kept by `store` data sources */
  dataRecords: {
    insertMany(rows: DataRecordRow[]): Promise<void>;
    /** newest first */
    list(f: DataRecordFilter, page: Page): Promise<Paged<DataRecordRow>>;
    deleteForSource(projectId: number, sourceId: string): Promise<number>;
    /** up to `limit` records of one source older than `before`; returns how many went */
    prune(projectId: number, sourceId: string, before: string, limit: number): Promise<number>;
  };

  /** scheduled reports (docs/concepts.md#reports) */
  reports: {
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
  };

  /** runs of reports, also the reports' work queue */
  reportRuns: {
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
    /** output keys of the runs removed */
    deleteForReport(reportId: string): Promise<string[]>;
    /** up to `limit` finished runs created before `before`: removed, with their output keys */
    prune(before: string, limit: number): Promise<{ removed: number; outputKeys: string[] }>;
  };

  /** read-only queries reports compute from, in keyset order so long runs can stream */
  reportData: {
    /** devices of the project with id > afterId, by id */
    devices(f: { projectId: number; homeId?: number; deviceClass?: string }, afterId: number, limit: number): Promise<DeviceRow[]>;
    /** per device, the time of its last `_deviceConnected_` and `_deviceDisconnected_` before `before` */
    lastConnectivity(projectId: number, before: string): Promise<{ deviceId: number; lastConnect: string | null; lastDisconnect: string | null }[]>;
    /** events of the project in [since, until), oldest first, after the cursor */
    events(f: { projectId: number; since: string; until: string; homeId?: number; deviceClass?: string; eventTypes?: string[] }, after: TimeCursor | null, limit: number): Promise<ReportEventRow[]>;
    /** webhook deliveries of the project created in [since, until), oldest first */
    deliveries(f: { projectId: number; since: string; until: string; eventTypes?: string[] }, after: TimeCursor | null, limit: number): Promise<ReportDeliveryRow[]>;
  };

  /** batched deletes of bounded histories (retention) */
  retention: {
    /** up to `limit` rows older than `before`; returns how many went */
    prune(history: PrunableHistory, before: string, limit: number): Promise<number>;
  };
}
