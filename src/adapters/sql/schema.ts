// Table shapes as Kysely sees them (camelCase; CamelCasePlugin maps to snake_case columns).
// Booleans are integers 0/1 and JSON is text on both dialects, so one set of queries serves
// SQLite and PostgreSQL.
import type { Generated } from 'kysely';
import type { BundleRow, DeviceClassRow, DeviceRow, ProvisioningTokenRow } from '../../ports/store.js';

/**
 * A table's columns derived from the port's row, so each field is written once: `Stored` names
 * the fields the database keeps otherwise (0/1 for booleans, JSON as text, generated keys, extra
 * columns) and `Dropped` the row's fields that are no column of their own.
 */
export type Columns<Row, Stored, Dropped extends keyof Row = never> = Omit<Row, keyof Stored | Dropped> & Stored;

export interface ProjectsTable {
  id: Generated<number>;
  name: string;
  allowUserSignup: Generated<number>;
  verifyEmails: Generated<number>;
  commandActions: Generated<string>;
  creationTime: string;
}
export interface ApiKeysTable {
  id: string;
  projectId: number;
  name: string;
  scopes: string;
  keyHash: string;
  creationTime: string;
}
export interface UsersTable {
  id: Generated<number>;
  projectId: number;
  email: string;
  name: string;
  passwordHash: string;
  canCreateDevices: number;
  verified: Generated<number>;
  verifyCodeHash: Generated<string | null>;
  verifyCodeExpiration: Generated<string | null>;
  resetCodeHash: Generated<string | null>;
  resetCodeExpiration: Generated<string | null>;
  creationTime: string;
}
export interface SessionsTable {
  tokenHash: string;
  userId: number;
  projectId: number;
  appId: string | null;
  creationTime: string;
  expirationTime: string;
}
export interface HomesTable {
  id: Generated<number>;
  projectId: number;
  name: string;
  creationTime: string;
}
export interface MembersTable {
  homeId: number;
  userId: number;
  role: string;
  creationTime: string;
}
export type DeviceClassesTable = Columns<DeviceClassRow, { certificateRequired: Generated<number> }>;
export type DevicesTable = Columns<DeviceRow, { id: Generated<number>; isConnected: Generated<number> }>;
export type ProvisioningTokensTable = ProvisioningTokenRow;
export type BundlesTable = Columns<BundleRow, { components: string }>;
export interface KvTable {
  scope: string;
  ownerId: number;
  key: string;
  value: string;
  modificationTime: string;
}
export interface KvRevsTable {
  scope: string;
  ownerId: number;
  rev: number;
}
export interface AccessLogsTable {
  id: Generated<number>;
  projectId: number;
  clientIp: string;
  latency: number | string;
  method: string;
  path: string;
  statusCode: number;
  timestamp: string;
}
export interface GeneralLogsTable {
  id: Generated<number>;
  projectId: number | null;
  caller: string | null;
  level: number;
  source: string;
  text: string;
  timestamp: string;
}
export interface EventsTable {
  id: string;
  projectId: number;
  homeId: number | null;
  deviceId: number | null;
  eventType: string;
  timestamp: string;
  body: string;
}

export interface Database {
  projects: ProjectsTable;
  apiKeys: ApiKeysTable;
  users: UsersTable;
  sessions: SessionsTable;
  homes: HomesTable;
  members: MembersTable;
  deviceClasses: DeviceClassesTable;
  devices: DevicesTable;
  provisioningTokens: ProvisioningTokensTable;
  bundles: BundlesTable;
  kv: KvTable;
  kvRevs: KvRevsTable;
  accessLogs: AccessLogsTable;
  generalLogs: GeneralLogsTable;
  events: EventsTable;
}
