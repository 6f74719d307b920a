// Device log requests (docs/concepts.md#log-requests): a request, then the device's upload.
import type { Page, Paged } from './page.js';

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

export interface LogRequestRepo {
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
}
