// Access logs and general logs (docs/operations.md#logs getHTTPAccessLogEntries, getLogEntries; docs/operations.md#logs).
// Mounted at / (see index.ts). A project key with scope `logs` reads its own project's logs;
// `projectId` defaults to the key's project.
import * as v from 'valibot';
import { resource } from '../op.js';
import { historyList } from '../paging.js';
import { AccessLogEntrySchema, AccessLogQuerySchema, listAccessLogs } from '../../domain/access-log/list.js';
import { LogEntrySchema, LogQuerySchema, listLogs } from '../../domain/log/list.js';

export const logsRoutes = resource({ tag: 'logs', auth: 'a project key with scope logs, for its own project' }, (r, op) => {
  r.get(
    '/httpAccessLogs',
    op({
      spec: 'getHTTPAccessLogEntries',
      summary: 'HTTP access log entries, newest first',
      success: 200,
      query: AccessLogQuerySchema,
      response: v.array(AccessLogEntrySchema),
    }),
    historyList('logs', AccessLogQuerySchema, listAccessLogs),
  );

  r.get(
    '/logs',
    op({ spec: 'getLogEntries', summary: 'General log entries, newest first', success: 200, query: LogQuerySchema, response: v.array(LogEntrySchema) }),
    historyList('logs', LogQuerySchema, listLogs),
  );
});
