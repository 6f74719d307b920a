// Access logs and general logs (docs/operations.md#logs getHTTPAccessLogEntries, getLogEntries; docs/operations.md#logs).
// Mounted at / (see index.ts). A project key with scope `logs` reads its own project's logs;
// `projectId` defaults to the key's project.
import { Hono } from 'hono';
import * as v from 'valibot';
import type { HttpEnv } from '../env.js';
import { op } from '../op.js';
import { parseQuery } from '../body.js';
import { listResponse, pageOf } from '../paging.js';
import { historyProject } from '../../domain/log/query.js';
import { AccessLogEntrySchema, AccessLogQuerySchema, listAccessLogs } from '../../domain/access-log/list.js';
import { LogEntrySchema, LogQuerySchema, listLogs } from '../../domain/log/list.js';

export function logsRoutes(): Hono<HttpEnv> {
  const r = new Hono<HttpEnv>();
  const auth = 'a project key with scope logs, for its own project';

  r.get(
    '/httpAccessLogs',
    op({
      spec: 'getHTTPAccessLogEntries',
      operationId: 'getHTTPAccessLogEntries',
      summary: 'HTTP access log entries, newest first',
      tag: 'logs',
      success: 200,
      query: AccessLogQuerySchema,
      response: v.array(AccessLogEntrySchema),
      auth,
    }),
    async (c) => {
      const deps = c.get('deps');
      // the credential first: who may not read learns nothing about the query
      historyProject(c.get('caller'), undefined, 'logs');
      const q = parseQuery(c, AccessLogQuerySchema);
      const page = pageOf(c, deps.limits);
      return listResponse(c, page, await listAccessLogs({ deps, caller: c.get('caller'), input: { query: q, page } }));
    },
  );

  r.get(
    '/logs',
    op({
      spec: 'getLogEntries',
      operationId: 'getLogEntries',
      summary: 'General log entries, newest first',
      tag: 'logs',
      success: 200,
      query: LogQuerySchema,
      response: v.array(LogEntrySchema),
      auth,
    }),
    async (c) => {
      const deps = c.get('deps');
      // the credential first: who may not read learns nothing about the query
      historyProject(c.get('caller'), undefined, 'logs');
      const q = parseQuery(c, LogQuerySchema);
      const page = pageOf(c, deps.limits);
      return listResponse(c, page, await listLogs({ deps, caller: c.get('caller'), input: { query: q, page } }));
    },
  );

  return r;
}
