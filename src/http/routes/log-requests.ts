// Device log requests (docs/api.md#device-operations getDeviceLogRequests, requestDeviceLogs, getDeviceLogRequest,
// deleteDeviceLogRequest; docs/concepts.md#log-requests) and the download of a stored log file. Mounted at /devices.
// Callers: a project key (scope `devices`) or a member of the device's home.
import type { Context } from 'hono';
import * as v from 'valibot';
import { resource } from '../op.js';
import { readBody } from '../body.js';
import { listResponse, pageOf } from '../paging.js';
import { STATUSES, deviceIdIn } from '../params.js';
import {
  CreateLogRequestSchema,
  LogRequestSchema,
  deleteLogRequest,
  getLogRequest,
  listLogRequests,
  openLogFile,
  requestDeviceLogs,
  toLogRequest,
} from '../../domain/logrequest/index.js';
import { noContent } from '../no-content.js';

/** the origin clients reached us at: urls in answers point back to it */
export const baseUrlOf = (c: Context) => new URL(c.req.url).origin;

/** `attachment`, with an ASCII fallback name and the exact one (RFC 6266) */
function disposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

/** a Web stream over the bytes of a blob, for c.body() */
export function webStream(source: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> {
  const it = source[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(ctrl) {
      const { value, done } = await it.next();
      if (done) ctrl.close();
      else ctrl.enqueue(value);
    },
    async cancel() {
      await it.return?.();
    },
  });
}

export const logRequestsRoutes = resource({ tag: 'device log requests', auth: 'a project key with scope devices, a member of the device home' }, (r, op) => {
  r.get(
    '/:deviceId/logRequests',
    op({ spec: 'getDeviceLogRequests', summary: 'Log requests of a device, newest first', success: 200, response: v.array(LogRequestSchema) }),
    async (c) => {
      const deps = c.get('deps');
      const page = pageOf(c, deps.limits);
      const { items, total } = await listLogRequests({ deps, caller: c.get('caller'), input: { deviceId: deviceIdIn(c), page } });
      return listResponse(c, page, { total, items: items.map((x) => toLogRequest(x, { baseUrl: baseUrlOf(c) })) });
    },
  );

  r.post(
    '/:deviceId/logRequests',
    op({ spec: 'requestDeviceLogs', summary: 'Ask a device for its logs', success: 201, body: CreateLogRequestSchema, response: LogRequestSchema }),
    async (c) => {
      const deps = c.get('deps');
      const deviceId = deviceIdIn(c);
      const { request, token } = await requestDeviceLogs({ deps, caller: c.get('caller'), input: { deviceId, body: await readBody(c) } });
      return c.json(toLogRequest(request, { baseUrl: baseUrlOf(c), token }), 201);
    },
  );

  r.get(
    '/:deviceId/logRequests/:requestId',
    op({ spec: 'getDeviceLogRequest', summary: 'One log request of a device', success: 200, response: LogRequestSchema }),
    async (c) => {
      const row = await getLogRequest({
        deps: c.get('deps'),
        caller: c.get('caller'),
        input: { deviceId: deviceIdIn(c), requestId: c.req.param('requestId') },
      });
      return c.json(toLogRequest(row, { baseUrl: baseUrlOf(c) }));
    },
  );

  r.delete('/:deviceId/logRequests/:requestId', op({ spec: 'deleteDeviceLogRequest', summary: 'Cancel or remove a log request', success: 204 }), async (c) => {
    await deleteLogRequest({ deps: c.get('deps'), caller: c.get('caller'), input: { deviceId: deviceIdIn(c), requestId: c.req.param('requestId') } });
    return noContent(c);
  });

  r.get(
    '/:deviceId/logRequests/:requestId/file',
    op({ operationId: 'getDeviceLogFile', summary: 'Download the log file a device uploaded', success: 200, statuses: STATUSES.read }),
    async (c) => {
      const file = await openLogFile({ deps: c.get('deps'), caller: c.get('caller'), input: { deviceId: deviceIdIn(c), requestId: c.req.param('requestId') } });
      // the type is the device's word: never let a browser sniff or render it in our origin
      return c.body(webStream(file.stream), 200, {
        'content-type': file.contentType,
        'content-length': String(file.size),
        'content-disposition': disposition(file.filename),
        'x-content-type-options': 'nosniff',
        'content-security-policy': "default-src 'none'; sandbox",
      });
    },
  );
});
