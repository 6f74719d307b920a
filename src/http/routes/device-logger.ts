// The device's side of a log request (docs/concepts.md#log-requests): the upload token in the path is its only
// credential (app.ts redacts it from access logs). Mounted at /deviceLogger.
//   POST  /{token}                               start an upload session → 201
//   PUT   /{token}/uploads/{uploadId}/parts/{n}  raw bytes of part n → 204
//   POST  /{token}/uploads/{uploadId}            complete → 204
//   PATCH /{token}  {status: "failure"}          give up → 204
import { Hono } from 'hono';
import type { HttpEnv } from '../env.js';
import { op } from '../op.js';
import { readBody } from '../body.js';
import { baseUrlOf } from './log-requests.js';
import {
  ReportFailureSchema,
  StartUploadSchema,
  UploadSessionSchema,
  completeUpload,
  putPart,
  reportUploadFailure,
  startUpload,
} from '../../domain/logrequest/index.js';

const tag = 'device log upload';
const auth = 'the device, with the token of its log request in the path';
const statuses = [401, 403, 404, 429, 500, 503] as const;

export function deviceLoggerRoutes(): Hono<HttpEnv> {
  const r = new Hono<HttpEnv>();

  r.post(
    '/:token',
    op({
      operationId: 'startDeviceLogUpload',
      summary: 'Start uploading a requested log file',
      tag,
      success: 201,
      statuses,
      authenticated: false,
      body: StartUploadSchema,
      response: UploadSessionSchema,
      auth,
    }),
    async (c) =>
      c.json(await startUpload({ deps: c.get('deps'), input: { token: c.req.param('token'), body: await readBody(c), baseUrl: baseUrlOf(c) } }), 201),
  );

  r.patch(
    '/:token',
    op({
      operationId: 'failDeviceLogUpload',
      summary: 'Report that the logs cannot be sent',
      tag,
      success: 204,
      statuses,
      authenticated: false,
      body: ReportFailureSchema,
      auth,
    }),
    async (c) => {
      await reportUploadFailure({ deps: c.get('deps'), input: { token: c.req.param('token'), body: await readBody(c) } });
      return c.body(null, 204);
    },
  );

  r.put(
    '/:token/uploads/:uploadId/parts/:part',
    op({ operationId: 'putDeviceLogPart', summary: 'Upload one part of a log file (raw bytes)', tag, success: 204, statuses, authenticated: false, auth }),
    async (c) => {
      const length = c.req.header('content-length');
      const declared = length !== undefined && /^\d{1,15}$/.test(length) ? Number(length) : undefined;
      const body = c.req.raw.body as AsyncIterable<Uint8Array> | null;
      await putPart({
        deps: c.get('deps'),
        input: { token: c.req.param('token'), uploadId: c.req.param('uploadId'), partNumber: c.req.param('part'), body, declaredLength: declared },
      });
      return c.body(null, 204);
    },
  );

  r.post(
    '/:token/uploads/:uploadId',
    op({ operationId: 'completeDeviceLogUpload', summary: 'Complete a log file upload', tag, success: 204, statuses, authenticated: false, auth }),
    async (c) => {
      await completeUpload({ deps: c.get('deps'), input: { token: c.req.param('token'), uploadId: c.req.param('uploadId') } });
      return c.body(null, 204);
    },
  );

  return r;
}
