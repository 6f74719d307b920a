// Request bodies: JSON, or form-encoded (real device firmware posts /deviceRegistration as a
// form, docs/api.md#conventions), or multipart/form-data (MODE's app library posts its login as a browser
// FormData), forms with "true"/"false"/integers coerced. The size cap is enforced by the edge's
// body limit before the body is buffered, whatever its type.
import type { Context } from 'hono';
import type * as v from 'valibot';
import { AppError } from '../domain/errors.js';
import type { Deps } from '../domain/deps.js';
import { requestHeader } from './headers.js';
import { requestText } from './request-body.js';
import { parseWith } from '../domain/validate.js';
import { DEFAULT_JSON_DEPTH, depthError, jsonTextDepthIssue, valueDepthIssue } from '../domain/json-depth.js';

/**
 * part uploads (routes/device-logger.ts) are bounded by their route (one part's size), not by the
 * API's body limit (edge/body-limit.ts)
 */
export const PART_UPLOAD_PATH = /^\/deviceLogger\/[^/]+\/uploads\/[^/]+\/parts\/[^/]+\/?$/;
/** docs/firmware.md#files: a firmware file upload, bounded by limits.firmwareFileBytes in its own route */
export const FIRMWARE_FILE_PATH = /^\/bundles\/[^/]+\/components\/[^/]+\/file\/?$/;

const INTEGER = /^-?(0|[1-9]\d{0,14})$/;

function coerceForm(value: string): unknown {
  if (value === 'true') return true;
  if (value === 'false') return false;
  if (INTEGER.test(value)) return Number(value);
  return value;
}

/** multipart/form-data fields (Hono's parseBody); a file part is refused: no operation takes one */
async function readMultipart(c: Context): Promise<Record<string, unknown>> {
  let form: Record<string, unknown>;
  try {
    form = await c.req.parseBody();
  } catch (e) {
    throw new AppError('INVALID_PARAMETERS', { issues: [{ path: '', message: `malformed multipart/form-data body: ${(e as Error).message}` }] });
  }
  const out: Record<string, unknown> = {};
  for (const [k, val] of Object.entries(form)) {
    if (Array.isArray(val)) throw new AppError('INVALID_PARAMETERS', { issues: [{ path: k, message: `${k} must be given once` }] });
    if (typeof val !== 'string') throw new AppError('INVALID_PARAMETERS', { issues: [{ path: k, message: `${k} must be a text field, not a file` }] });
    out[k] = coerceForm(val);
  }
  return out;
}

export async function readBody(c: Context): Promise<unknown> {
  const type = (requestHeader(c, 'content-type') ?? '').toLowerCase();
  if (type.startsWith('multipart/form-data')) return readMultipart(c);
  const text = await requestText(c);
  // docs/api.md#conventions: nesting is judged on the text, before JSON.parse (which recurses too)
  const depth = (c.get('deps') as Deps | undefined)?.limits.jsonDepth ?? DEFAULT_JSON_DEPTH;
  if (type.startsWith('application/x-www-form-urlencoded')) {
    const out: Record<string, unknown> = {};
    for (const [k, val] of new URLSearchParams(text)) out[k] = coerceForm(val);
    // flat today; kept honest should form decoding ever build nested values
    const issue = valueDepthIssue(out, depth);
    if (issue) throw depthError(issue, depth);
    return out;
  }
  if (text.trim() === '') return {};
  const issue = jsonTextDepthIssue(text, depth);
  if (issue) throw depthError(issue, depth);
  try {
    return JSON.parse(text);
  } catch (e) {
    // a RangeError (a stack overflow inside JSON.parse) is the client's input too
    throw new AppError('INVALID_JSON', { message: (e as Error).message });
  }
}

/** a request body parsed by the domain's parser (src/domain/validate.ts) */
export async function parseBody<S extends v.GenericSchema>(c: Context, schema: S): Promise<v.InferOutput<S>> {
  return parseWith(schema, await readBody(c));
}

/** a query string parsed by the domain's parser: always an object, so the array guard is moot */
export function parseQuery<S extends v.GenericSchema>(c: Context, schema: S): v.InferOutput<S> {
  return parseWith(schema, c.req.query());
}
