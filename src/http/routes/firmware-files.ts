// Files of bundle components (docs/firmware.md#files). Mounted at /bundles.
//   PUT /{bundleId}/components/{componentName}/file  raw bytes → 201 {componentName, size, sha256, url}
//   GET /{bundleId}/components/{componentName}/file  the bytes (ETag, If-None-Match → 304, Range → 206)
import type { Context } from 'hono';
import { resource } from '../op.js';
import { STATUSES } from '../params.js';
import { baseUrlOf, webStream } from './log-requests.js';
import { AppError } from '../../domain/errors.js';
import { closeAfterAnswer } from '../close-after-answer.js';
import { FirmwareFileSchema, etagOf, openFirmwareFile, uploadFirmwareFile } from '../../domain/firmware/index.js';

/**
 * The request body as chunks, without cancelling it when the reader stops early (a file past
 * its limit): cancelling destroys the socket before the refusal is written, so the client would
 * see the connection drop instead of BODY_TOO_LARGE. The answer closes the connection gently
 * (close-after-answer.ts).
 */
function chunksOf(body: ReadableStream<Uint8Array> | null): AsyncIterable<Uint8Array> | null {
  if (!body) return null;
  return {
    async *[Symbol.asyncIterator]() {
      const reader = body.getReader();
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          yield value;
        }
      } finally {
        reader.releaseLock();
      }
    },
  };
}

const DOWNLOAD_HEADERS = {
  etag: 'The sha256 of the file, quoted',
  'content-length': 'Bytes in this answer',
  'accept-ranges': '`bytes`: a Range request resumes a download',
};

const componentOf = (c: Context) => ({ bundleId: c.req.param('bundleId') ?? '', componentName: c.req.param('componentName') ?? '' });

export const firmwareFilesRoutes = resource({ tag: 'firmware' }, (r, op) => {
  r.put(
    '/:bundleId/components/:componentName/file',
    op({
      operationId: 'putFirmwareFile',
      summary: "Store a component's firmware file (the raw bytes as the body, application/octet-stream); sets the component's url and checksum",
      success: 201,
      statuses: STATUSES.read,
      response: FirmwareFileSchema,
      rawBody: {
        mediaType: 'application/octet-stream',
        description: 'The file, byte for byte, up to limits.firmwareFileBytes (64 MiB); with Content-Length, or streamed chunked',
      },
      auth: 'project key with scope devices',
    }),
    async (c) => {
      const length = c.req.header('content-length');
      const declared = length !== undefined && /^\d{1,15}$/.test(length) ? Number(length) : undefined;
      const body = chunksOf(c.req.raw.body);
      const deps = c.get('deps');
      try {
        const file = await uploadFirmwareFile({
          deps,
          caller: c.get('caller'),
          input: { ...componentOf(c), body, declaredLength: declared, baseUrl: deps.publicUrl ?? baseUrlOf(c) },
        });
        return c.json(file, 201);
      } catch (e) {
        // refused with the body not read to its end: an answer the client can read, then the close
        if (e instanceof AppError && e.reason === 'BODY_TOO_LARGE') closeAfterAnswer(c);
        throw e;
      }
    },
  );

  r.get(
    '/:bundleId/components/:componentName/file',
    op({
      operationId: 'getFirmwareFile',
      summary: "Download a component's firmware file; ETag is its sha256, Range (one range) answers 206, If-None-Match 304",
      success: 200,
      statuses: [401, 403, 404, 416, 429, 500, 503],
      rawResponse: {
        mediaType: 'application/octet-stream',
        headers: DOWNLOAD_HEADERS,
        also: {
          206: {
            description: 'The range asked for (one `Range: bytes=a-b`, `a-` or `-n`)',
            body: true,
            headers: { ...DOWNLOAD_HEADERS, 'content-range': '`bytes <first>-<last>/<size>`' },
          },
          304: { description: 'Not modified: If-None-Match named the ETag', body: false, headers: { etag: DOWNLOAD_HEADERS.etag } },
        },
      },
      auth: 'project key with scope devices, or a device of the bundle class',
    }),
    async (c) => {
      const got = await openFirmwareFile({
        deps: c.get('deps'),
        caller: c.get('caller'),
        input: { ...componentOf(c), range: c.req.header('range'), ifNoneMatch: c.req.header('if-none-match') },
      });
      const headers: Record<string, string> = {
        etag: etagOf(got.file),
        'accept-ranges': 'bytes',
        'cache-control': 'private, no-cache',
        'x-content-type-options': 'nosniff',
      };
      if (got.notModified) return c.body(null, 304, headers);
      headers['content-type'] = 'application/octet-stream';
      if (got.range) {
        const { start, end } = got.range;
        headers['content-range'] = `bytes ${start}-${end}/${got.file.size}`;
        headers['content-length'] = String(end - start + 1);
        return c.body(webStream(got.stream), 206, headers);
      }
      headers['content-length'] = String(got.file.size);
      return c.body(webStream(got.stream), 200, headers);
    },
  );
});
