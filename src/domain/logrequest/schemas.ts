// Device log requests (docs/concepts.md#log-requests, docs/concepts.md#firmware-bundles; docs/concepts.md#log-requests): the request body, the upload bodies and the
// record as answered.
import * as v from 'valibot';
import { timeQuery } from '../log/query.js';
import { TimeSchema } from '../validate.js';

export const LOG_REQUEST_STATUSES = ['success', 'failure', 'requested', 'uploading', 'cancelled'] as const;

/** docs/concepts.md#firmware-bundles: `start`, `end` (RFC 3339) and `prefixes`, all optional */
export const CreateLogRequestSchema = v.object({
  start: timeQuery('start'),
  end: timeQuery('end'),
  prefixes: v.optional(
    v.pipe(
      v.array(
        v.pipe(v.string('each prefix must be a string'), v.minLength(1, 'a prefix may not be empty'), v.maxLength(256, 'a prefix is at most 256 characters')),
      ),
      v.maxLength(100, 'at most 100 prefixes'),
    ),
  ),
});
export type CreateLogRequestInput = v.InferOutput<typeof CreateLogRequestSchema>;

// a MIME type as the device names it; it is served back as the download's Content-Type
const MIME =
  /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}(\s*;\s*[A-Za-z0-9!#$&^_.+-]+=("[^"\\\r\n]*"|[A-Za-z0-9!#$&^_.+-]+))*$/;
// a plain file name: no folders, no control characters (it ends up in Content-Disposition)
const FILENAME = /^[^/\\\u0000-\u001f\u007f"]{1,255}$/;

export const StartUploadSchema = v.object({
  filename: v.optional(
    v.pipe(v.string('filename must be a string'), v.regex(FILENAME, 'filename must be 1 to 255 characters, without / \\ " or control characters')),
  ),
  size: v.pipe(v.number('size must be a number of bytes'), v.integer('size must be an integer'), v.minValue(0, 'size may not be negative')),
  contentType: v.pipe(
    v.string('contentType must be a string'),
    v.maxLength(255, 'contentType is at most 255 characters'),
    v.regex(MIME, 'contentType must be a MIME type, e.g. text/plain'),
  ),
});
export type StartUploadInput = v.InferOutput<typeof StartUploadSchema>;

export const UploadSessionSchema = v.object({
  uploadId: v.string(),
  numOfParts: v.number(),
  partSize: v.number(),
  urls: v.array(v.string()),
});

export const ReportFailureSchema = v.object({
  status: v.picklist(['failure'], 'status must be "failure"'),
  reason: v.optional(v.pipe(v.string(), v.maxLength(1024, 'reason is at most 1024 characters'))),
});

/** docs/concepts.md#log-requests, every field optional; `token` only in the answer to the creation */
export const LogRequestSchema = v.object({
  id: v.string(),
  deviceId: v.number(),
  projectId: v.number(),
  status: v.picklist(LOG_REQUEST_STATUSES),
  token: v.optional(v.string()),
  ts: TimeSchema,
  uploadId: v.optional(v.string()),
  filename: v.optional(v.string()),
  contentType: v.optional(v.string()),
  url: v.optional(v.string()),
  start: v.optional(TimeSchema),
  end: v.optional(TimeSchema),
  prefixes: v.optional(v.array(v.string())),
});
export type LogRequest = v.InferOutput<typeof LogRequestSchema>;
