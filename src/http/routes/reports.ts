// Scheduled reports (docs/concepts.md#reports), their runs and outputs. Mounted at /scheduledReports.
// Our own payloads (the docs shows none; docs/api.md#errors statuses): a project key with scope `reports`.
import * as v from 'valibot';
import { resource } from '../op.js';
import { parseQuery, readBody } from '../body.js';
import { listResponse, pageOf } from '../paging.js';
import { STATUSES, signedIn, withWebhookChecks } from '../params.js';
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
import { noContent } from '../no-content.js';

export const reportsRoutes = resource({ tag: 'scheduled reports', statuses: STATUSES.read, auth: 'a project key with scope reports' }, (r, op) => {
  r.get(
    '/',
    op({
      operationId: 'getScheduledReports',
      summary: 'Scheduled reports of a project',
      success: 200,
      query: ReportListQuerySchema,
      response: v.array(ReportSchema),
    }),
    async (c) => {
      const { deps, caller } = signedIn(c);
      const q = parseQuery(c, ReportListQuerySchema);
      const page = pageOf(c, deps.limits);
      return listResponse(c, page, await listReports({ deps, caller, input: { projectId: q.projectId, page } }));
    },
  );

  r.post(
    '/',
    op({ operationId: 'createScheduledReport', summary: 'Create a scheduled report', success: 201, body: CreateReportSchema, response: ReportSchema }),
    async (c) => {
      const { deps, caller } = signedIn(c);
      return c.json(await createReport({ deps: withWebhookChecks(deps), caller, input: { body: await readBody(c) } }), 201);
    },
  );

  r.get('/:reportId', op({ operationId: 'getScheduledReport', summary: 'A scheduled report', success: 200, response: ReportSchema }), async (c) => {
    const { deps, caller } = signedIn(c);
    return c.json(await getReport({ deps, caller, input: { reportId: c.req.param('reportId') } }));
  });

  r.patch(
    '/:reportId',
    op({ operationId: 'updateScheduledReport', summary: 'Update a scheduled report', success: 200, body: PatchReportSchema, response: ReportSchema }),
    async (c) => {
      const { deps, caller } = signedIn(c);
      return c.json(await updateReport({ deps: withWebhookChecks(deps), caller, input: { reportId: c.req.param('reportId'), body: await readBody(c) } }));
    },
  );

  r.delete('/:reportId', op({ operationId: 'deleteScheduledReport', summary: 'Delete a scheduled report, its runs and outputs', success: 204 }), async (c) => {
    const { deps, caller } = signedIn(c);
    await deleteReport({ deps, caller, input: { reportId: c.req.param('reportId') } });
    return noContent(c);
  });

  r.post('/:reportId/run', op({ operationId: 'runScheduledReport', summary: 'Run a scheduled report now', success: 202, response: RunSchema }), async (c) => {
    const { deps, caller } = signedIn(c);
    return c.json(await runReportNow({ deps, caller, input: { reportId: c.req.param('reportId') } }), 202);
  });

  r.get(
    '/:reportId/runs',
    op({ operationId: 'getScheduledReportRuns', summary: 'Runs of a report, newest first', success: 200, response: v.array(RunSchema) }),
    async (c) => {
      const { deps, caller } = signedIn(c);
      const page = pageOf(c, deps.limits);
      return listResponse(c, page, await listRuns({ deps, caller, input: { reportId: c.req.param('reportId'), page } }));
    },
  );

  r.get(
    '/:reportId/runs/:runId',
    op({ operationId: 'getScheduledReportRun', summary: 'One run of a report', success: 200, response: RunSchema }),
    async (c) => {
      const { deps, caller } = signedIn(c);
      return c.json(await getRun({ deps, caller, input: { reportId: c.req.param('reportId'), runId: c.req.param('runId') } }));
    },
  );

  r.get(
    '/:reportId/runs/:runId/output',
    op({ operationId: 'getScheduledReportOutput', summary: 'The CSV or JSON a run produced', success: 200 }),
    async (c) => {
      const { deps, caller } = signedIn(c);
      const out = await openRunOutput({ deps, caller, input: { reportId: c.req.param('reportId'), runId: c.req.param('runId') } });
      return c.body(webStream(out.stream), 200, {
        'content-type': out.contentType,
        'content-length': String(out.size),
        'content-disposition': `attachment; filename="${out.filename}"`,
        'x-content-type-options': 'nosniff',
      });
    },
  );
});
