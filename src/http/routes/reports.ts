// Scheduled reports (docs/concepts.md#reports), their runs and outputs. Mounted at /scheduledReports.
// Our own payloads (the docs shows none; docs/api.md#errors statuses): a project key with scope `reports`.
import { Hono, type Context } from 'hono';
import * as v from 'valibot';
import type { HttpEnv } from '../env.js';
import { op } from '../op.js';
import { parseQuery, readBody } from '../body.js';
import { listResponse, pageOf } from '../paging.js';
import { requireCaller } from '../../domain/auth/access.js';
import { webhookChecksOf } from '../../domain/webhook/checks.js';
import { webStream } from './log-requests.js';
import {
  CreateReportSchema,
  PatchReportSchema,
  ReportListQuerySchema,
  ReportSchema,
  RunSchema,
  createReport,
  deleteReport,
  getReport,
  getRun,
  listReports,
  listRuns,
  openRunOutput,
  runReportNow,
  updateReport,
} from '../../domain/report/index.js';

const tag = 'scheduled reports';
const auth = 'a project key with scope reports';
const statuses = [401, 403, 404, 429, 500, 503] as const;

/** the caller first: 401 before anything about the request */
function who(c: Context<HttpEnv>) {
  const caller = c.get('caller');
  requireCaller(caller);
  return { deps: c.get('deps'), caller };
}

export function reportsRoutes(): Hono<HttpEnv> {
  const r = new Hono<HttpEnv>();

  r.get(
    '/',
    op({
      operationId: 'getScheduledReports',
      summary: 'Scheduled reports of a project',
      tag,
      success: 200,
      statuses,
      query: ReportListQuerySchema,
      response: v.array(ReportSchema),
      auth,
    }),
    async (c) => {
      const { deps, caller } = who(c);
      const q = parseQuery(c, ReportListQuerySchema);
      const page = pageOf(c, deps.limits);
      return listResponse(c, page, await listReports({ deps, caller, input: { projectId: q.projectId, page } }));
    },
  );

  r.post(
    '/',
    op({
      operationId: 'createScheduledReport',
      summary: 'Create a scheduled report',
      tag,
      success: 201,
      statuses,
      body: CreateReportSchema,
      response: ReportSchema,
      auth,
    }),
    async (c) => {
      const { deps, caller } = who(c);
      return c.json(await createReport({ deps: { ...deps, checks: webhookChecksOf(deps) }, caller, input: { body: await readBody(c) } }), 201);
    },
  );

  r.get(
    '/:reportId',
    op({ operationId: 'getScheduledReport', summary: 'A scheduled report', tag, success: 200, statuses, response: ReportSchema, auth }),
    async (c) => {
      const { deps, caller } = who(c);
      return c.json(await getReport({ deps, caller, input: { reportId: c.req.param('reportId') } }));
    },
  );

  r.patch(
    '/:reportId',
    op({
      operationId: 'updateScheduledReport',
      summary: 'Update a scheduled report',
      tag,
      success: 200,
      statuses,
      body: PatchReportSchema,
      response: ReportSchema,
      auth,
    }),
    async (c) => {
      const { deps, caller } = who(c);
      return c.json(
        await updateReport({ deps: { ...deps, checks: webhookChecksOf(deps) }, caller, input: { reportId: c.req.param('reportId'), body: await readBody(c) } }),
      );
    },
  );

  r.delete(
    '/:reportId',
    op({ operationId: 'deleteScheduledReport', summary: 'Delete a scheduled report, its runs and outputs', tag, success: 204, statuses, auth }),
    async (c) => {
      const { deps, caller } = who(c);
      await deleteReport({ deps, caller, input: { reportId: c.req.param('reportId') } });
      return c.body(null, 204);
    },
  );

  r.post(
    '/:reportId/run',
    op({ operationId: 'runScheduledReport', summary: 'Run a scheduled report now', tag, success: 202, statuses, response: RunSchema, auth }),
    async (c) => {
      const { deps, caller } = who(c);
      return c.json(await runReportNow({ deps, caller, input: { reportId: c.req.param('reportId') } }), 202);
    },
  );

  r.get(
    '/:reportId/runs',
    op({ operationId: 'getScheduledReportRuns', summary: 'Runs of a report, newest first', tag, success: 200, statuses, response: v.array(RunSchema), auth }),
    async (c) => {
      const { deps, caller } = who(c);
      const page = pageOf(c, deps.limits);
      return listResponse(c, page, await listRuns({ deps, caller, input: { reportId: c.req.param('reportId'), page } }));
    },
  );

  r.get(
    '/:reportId/runs/:runId',
    op({ operationId: 'getScheduledReportRun', summary: 'One run of a report', tag, success: 200, statuses, response: RunSchema, auth }),
    async (c) => {
      const { deps, caller } = who(c);
      return c.json(await getRun({ deps, caller, input: { reportId: c.req.param('reportId'), runId: c.req.param('runId') } }));
    },
  );

  r.get(
    '/:reportId/runs/:runId/output',
    op({ operationId: 'getScheduledReportOutput', summary: 'The CSV or JSON a run produced', tag, success: 200, statuses, auth }),
    async (c) => {
      const { deps, caller } = who(c);
      const out = await openRunOutput({ deps, caller, input: { reportId: c.req.param('reportId'), runId: c.req.param('runId') } });
      return c.body(webStream(out.stream), 200, {
        'content-type': out.contentType,
        'content-length': String(out.size),
        'content-disposition': `attachment; filename="${out.filename}"`,
        'x-content-type-options': 'nosniff',
      });
    },
  );

  return r;
}
