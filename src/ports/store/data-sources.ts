// Data sources and the records `store` sources keep (docs/concepts.md#data-sources).
import type { Page, Paged } from './page.js';
import type { ProjectKeyedRepo } from './project-keyed.js';

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
export type DataSourcePatch = Partial<
  Pick<DataSourceRow, 'name' | 'deviceClasses' | 'url' | 'keySealed' | 'retentionDays' | 'failingSince' | 'lastFailureTime' | 'lastError'>
> & {
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

export interface DataSourceRepo extends ProjectKeyedRepo<DataSourceRow> {
  /** false when the project already has a source with that id */
  create(s: DataSourceRow): Promise<boolean>;
  /** every `store` source of every project (retention) */
  listStores(): Promise<DataSourceRow[]>;
  update(projectId: number, id: string, patch: DataSourcePatch): Promise<boolean>;
}

export interface DataRecordRepo {
  insertMany(rows: DataRecordRow[]): Promise<void>;
  /** newest first */
  list(f: DataRecordFilter, page: Page): Promise<Paged<DataRecordRow>>;
  deleteForSource(projectId: number, sourceId: string): Promise<number>;
  /** up to `limit` records of one source older than `before`; returns how many went */
  prune(projectId: number, sourceId: string, before: string, limit: number): Promise<number>;
}
