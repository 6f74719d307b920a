// Table shapes as Kysely sees them (camelCase; CamelCasePlugin maps to snake_case columns).
// Booleans are integers 0/1 and JSON is text on both dialects, so one set of queries serves
// SQLite and PostgreSQL.
import type { Generated } from 'kysely';

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
export interface DeviceClassesTable {
  projectId: number;
  id: string;
  name: string | null;
  description: string | null;
  /** 0/1: docs/tls.md#client-certificates */
  certificateRequired: Generated<number>;
  creationTime: string;
}
export interface DevicesTable {
  id: Generated<number>;
  projectId: number;
  deviceClass: string;
  homeId: number | null;
  name: string | null;
  description: string | null;
  tag: string | null;
  apiKeyHash: string;
  apiKeySealed: string;
  claimCodeHash: string | null;
  claimCodeSealed: string | null;
  claimExpirationTime: string | null;
  claimTime: string | null;
  creationTime: string;
  bundleInstalled: string | null;
  bundleInstallTime: string | null;
  channel: string | null;
  isConnected: Generated<number>;
  lastConnectTime: string | null;
  lastDisconnectTime: string | null;
}
export interface ProvisioningTokensTable {
  tokenHash: string;
  projectId: number;
  homeId: number;
  deviceClass: string;
  deviceTag: string | null;
  expirationTime: string;
  usedTime: string | null;
}
export interface BundlesTable {
  id: string;
  projectId: number;
  name: string | null;
  description: string | null;
  deviceClass: string;
  channel: string | null;
  components: string;
  creationTime: string;
}
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
