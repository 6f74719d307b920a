// The access log (a row for every authenticated request) and the general log of a project
// (docs/operations.md#logs): append-only, listed newest first.
import type { Page, Paged } from './page.js';

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

export interface AccessLogRepo {
  insertMany(rows: AccessLogRow[]): Promise<void>;
  list(f: AccessLogFilter, page: Page): Promise<Paged<AccessLogRow>>;
}

export interface GeneralLogRepo {
  insert(row: GeneralLogRow): Promise<void>;
  list(f: GeneralLogFilter, page: Page): Promise<Paged<GeneralLogRow>>;
}
