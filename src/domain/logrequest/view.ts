// A log request as answered (docs/concepts.md#log-requests). The token is shown once, in the answer to the creation
// (it is stored only as a hash); `url` is set once the file is stored (docs/concepts.md#log-requests).
import type { LogRequestRow } from '../../ports/store.js';
import type { LogRequest } from './schemas.js';

/** where the stored file is downloaded (docs/concepts.md#log-requests) */
export const fileUrl = (baseUrl: string, r: Pick<LogRequestRow, 'deviceId' | 'id'>) =>
  `${baseUrl}/devices/${r.deviceId}/logRequests/${encodeURIComponent(r.id)}/file`;

export function toLogRequest(r: LogRequestRow, o: { baseUrl: string; token?: string }): LogRequest {
  const out: LogRequest = { id: r.id, deviceId: r.deviceId, projectId: r.projectId, status: r.status, ts: r.creationTime };
  if (o.token) out.token = o.token;
  if (r.uploadId) out.uploadId = r.uploadId;
  if (r.filename) out.filename = r.filename;
  if (r.contentType) out.contentType = r.contentType;
  if (r.status === 'success') out.url = fileUrl(o.baseUrl, r);
  if (r.start) out.start = r.start;
  if (r.end) out.end = r.end;
  if (r.prefixes) out.prefixes = r.prefixes;
  return out;
}
