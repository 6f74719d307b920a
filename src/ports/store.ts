// The Store port: durable records. Adapters: src/adapters/sql (SQLite and PostgreSQL through one
// set of Kysely queries). Every adapter passes test/contract/store.ts.
// Times are RFC 3339 strings with milliseconds in UTC; JSON columns come back parsed.

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

/** An event as delivered (SPEC §2.7 with the service fields filled). */
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
    count(): Promise<number>;
  };

  apiKeys: {
    create(k: ApiKeyRow): Promise<void>;
    getByHash(keyHash: string): Promise<ApiKeyRow | undefined>;
    get(id: string): Promise<ApiKeyRow | undefined>;
    list(projectId: number): Promise<ApiKeyRow[]>;
    delete(id: string): Promise<boolean>;
  };

  users: {
    create(u: Omit<UserRow, 'id'>): Promise<UserRow>;
    get(id: number): Promise<UserRow | undefined>;
    getByEmail(projectId: number, email: string): Promise<UserRow | undefined>;
    list(f: { projectId: number; search?: string }, page: Page): Promise<Paged<UserRow>>;
    update(id: number, patch: Partial<Pick<UserRow, 'name' | 'email' | 'passwordHash' | 'canCreateDevices'>>): Promise<void>;
    delete(id: number): Promise<boolean>;
  };

  sessions: {
    create(s: SessionRow): Promise<void>;
    getByHash(tokenHash: string): Promise<SessionRow | undefined>;
    delete(tokenHash: string): Promise<boolean>;
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
    getByClaimHash(claimCodeHash: string): Promise<DeviceRow | undefined>;
    list(f: DeviceFilter, page: Page): Promise<Paged<DeviceRow>>;
    update(id: number, patch: DevicePatch): Promise<void>;
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
    list(f: EventFilter, page: Page): Promise<Paged<EventRow>>;
  };
}
