// The device's side of a log request (docs/concepts.md#log-requests): the upload token in the path is its only
// credential (app.ts redacts it from access logs). Mounted at /deviceLogger.
//   POST  /{token}                               start an upload session → 201
//   PUT   /{token}/uploads/{uploadId}/parts/{n}  raw bytes of part n → 204
//   POST  /{token}/uploads/{uploadId}            complete → 204
//   PATCH /{token}  {status: "failure"}          give up → 204
import { resource } from '../op.js';
import { readBody } from '../body.js';
import { STATUSES } from '../params.js';
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
import { noContent } from '../no-content.js';

// the token in the path is the credential: no Authorization header is read
const auth = 'the device, with the token of its log request in the path';

export const deviceLoggerRoutes = resource({ tag: 'device log upload', statuses: STATUSES.read, authenticated: false, auth }, (r, op) => {
  r.post(
    '/:token',
    op({
      operationId: 'startDeviceLogUpload',
      summary: 'Start uploading a requested log file',
      success: 201,
      body: StartUploadSchema,
      response: UploadSessionSchema,
    }),
    async (c) =>
      c.json(await startUpload({ deps: c.get('deps'), input: { token: c.req.param('token'), body: await readBody(c), baseUrl: baseUrlOf(c) } }), 201),
  );

  r.patch(
    '/:token',
    op({ operationId: 'failDeviceLogUpload', summary: 'Report that the logs cannot be sent', success: 204, body: ReportFailureSchema }),
    async (c) => {
      await reportUploadFailure({ deps: c.get('deps'), input: { token: c.req.param('token'), body: await readBody(c) } });
      return noContent(c);
    },
  );

  r.put(
    '/:token/uploads/:uploadId/parts/:part',
    op({ operationId: 'putDeviceLogPart', summary: 'Upload one part of a log file (raw bytes)', success: 204 }),
    async (c) => {
      const length = c.req.header('content-length');
      const declared = length !== undefined && /^\d{1,15}$/.test(length) ? Number(length) : undefined;
      const body = c.req.raw.body as AsyncIterable<Uint8Array> | null;
      await putPart({
        deps: c.get('deps'),
        input: { token: c.req.param('token'), uploadId: c.req.param('uploadId'), partNumber: c.req.param('part'), body, declaredLength: declared },
      });
      return noContent(c);
    },
  );

  r.post('/:token/uploads/:uploadId', op({ operationId: 'completeDeviceLogUpload', summary: 'Complete a log file upload', success: 204 }), async (c) => {
    await completeUpload({ deps: c.get('deps'), input: { token: c.req.param('token'), uploadId: c.req.param('uploadId') } });
    return noContent(c);
  });
});
