// Device classes and devices (docs/concepts.md#devices): the registry every device-scoped request
// reads, and the claim and presence updates that must happen once.
import type { Page, Paged } from './page.js';
import type { ProjectKeyedRepo } from './project-keyed.js';

export interface DeviceClassRow {
  projectId: number;
  id: string;
  name: string | null;
  description: string | null;
  /** docs/tls.md#client-certificates: devices of the class sign in with a certificate only (a key alone is refused) */
  certificateRequired?: boolean;
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

/** who a device is, as a live connection needs it (its sign-in): its id, project, class and home */
export type DeviceIdentity = Pick<DeviceRow, 'id' | 'projectId' | 'deviceClass' | 'homeId'>;

/** a device signing in with its key: who it is, and whether its class requires a client certificate instead */
export interface DeviceKeySignIn extends DeviceIdentity {
  /** its class's certificateRequired (false when the class has no row) */
  certificateRequired: boolean;
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
  /** in a home (true) or in none (false) */
  inHome?: boolean;
  /** keyset paging: only ids above this one (then `skip` counts from there) */
  afterId?: number;
}

export interface DeviceClassRepo extends ProjectKeyedRepo<DeviceClassRow> {
  create(c: DeviceClassRow): Promise<void>;
  /** sets the class's certificateRequired; false when there is no such class */
  setCertificateRequired(projectId: number, id: string, required: boolean): Promise<boolean>;
  /** number of devices of that class, to refuse deleting a class in use */
  deviceCount(projectId: number, id: string): Promise<number>;
}

/** one device's presence flip, written with the `_deviceConnected_`/`_deviceDisconnected_` event that reports it */
export interface PresenceWrite {
  id: number;
  connected: boolean;
  time: string;
}

export interface DeviceRepo {
  create(d: NewDevice): Promise<DeviceRow>;
  /** many at once (a few statements), answered in id order; all or none only inside a transaction */
  createMany(ds: readonly NewDevice[]): Promise<DeviceRow[]>;
  get(id: number): Promise<DeviceRow | undefined>;
  getByKeyHash(apiKeyHash: string): Promise<DeviceRow | undefined>;
  /**
   * the identity of the device holding this key and whether its class requires a certificate,
   * read from the records every time (never a cached copy, and none is kept): a device
   * connection's sign-in, in one lookup. Not the row: the presence write that follows the
   * sign-in drops any cached copy of it anyway, and the row's other fields were the largest
   * allocation of a connect storm's key check (issue #25)
   */
  signInByKeyHash(apiKeyHash: string): Promise<DeviceKeySignIn | undefined>;
  /** the row when a read cache holds it and may serve it now (else undefined: ask get) */
  peek?(id: number): DeviceRow | undefined;
  /** the row when a read cache holds it and may serve it now (else undefined: ask getByKeyHash) */
  peekByKeyHash?(apiKeyHash: string): DeviceRow | undefined;
  getByClaimHash(claimCodeHash: string): Promise<DeviceRow | undefined>;
  /** by id, with the count of all that match */
  list(f: DeviceFilter, page: Page): Promise<Paged<DeviceRow>>;
  /** the same page without the count: it reads only the rows it returns (and those it skips) */
  listPage(f: DeviceFilter, page: Page): Promise<DeviceRow[]>;
  update(id: number, patch: DevicePatch): Promise<void>;
  /**
   * Claims a device into a home if it is in no home and its claimable window is open at `now`:
   * one conditional UPDATE, so of two concurrent claims exactly one wins. True when it won.
   */
  claim(id: number, homeId: number, now: string): Promise<boolean>;
  /** presence: flips isConnected and stamps the matching time */
  setConnected(id: number, connected: boolean, time: string): Promise<void>;
  /** presence of many devices at once (one device at most once): the event pipeline's group commit writes them with the events */
  setConnectedMany(changes: readonly PresenceWrite[]): Promise<void>;
  /** start-up of embedded mode: nobody is connected yet */
  markAllOffline(time: string): Promise<number>;
  delete(id: number): Promise<boolean>;
  /**
   * docs/api.md#fleet-figures: the project's devices and how many are connected, counted from
   * indexes alone (the connected ones from a partial index of connected devices)
   */
  counts(projectId: number): Promise<{ total: number; connected: number }>;
}
