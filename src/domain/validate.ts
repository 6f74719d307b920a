// Input parsing for domain verbs: each verb parses its own input at the top (house rule 2), so the
// HTTP routes and the admin CLI get the same validation. Issues have the wire shape of
// INVALID_PARAMETERS `data.issues` (docs/api.md#conventions): `{path, message}`.
import * as v from 'valibot';
import { AppError } from './errors.js';
import { ID_PATTERN, MAX_ID } from './id.js';

/** valibot issues as `data.issues` of an INVALID_PARAMETERS error (docs/api.md#errors) */
export function issuesOf(issues: readonly v.BaseIssue<unknown>[]): { path: string; message: string }[] {
  return issues.map((i) => ({
    path: (i.path ?? []).map((p) => String(p.key)).join('.'),
    message: i.message,
  }));
}

/** a JSON object: not null, not an array (valibot's `object` and `record` take arrays) */
export const isJsonObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** a value that must be a JSON object (eventData, a command's parameters, a data record), refused with `message` */
export const jsonObject = (message: string) => v.custom<Record<string, unknown>>(isJsonObject, message);

const OBJECT_TYPES: ReadonlySet<string> = new Set(['object', 'loose_object', 'strict_object', 'object_with_rest']);

/**
 * The one input parser: a valibot failure is INVALID_PARAMETERS with `issuesOf` its issues. A JSON
 * array given where an object schema is expected is refused whole (valibot's object schemas accept
 * arrays; a JSON array is never a valid body of ours).
 */
export function parseInput<S extends v.GenericSchema>(schema: S, input: unknown): v.InferOutput<S> {
  const root = (schema as { pipe?: v.GenericSchema[] }).pipe?.[0] ?? schema;
  if (OBJECT_TYPES.has(root.type) && Array.isArray(input)) {
    throw new AppError('INVALID_PARAMETERS', { issues: [{ path: '', message: 'expected a JSON object' }] });
  }
  return parseWith(schema, input);
}

/**
 * parseInput without the array guard. For input that is never a JSON array (query strings, path
 * segments, a single value) and for the verbs whose answer to an array body predates the guard
 * (webhook command/preview/log, events, commands, KV PUT): their wire errors are fixed.
 */
export function parseWith<S extends v.GenericSchema>(schema: S, input: unknown): v.InferOutput<S> {
  const r = v.safeParse(schema, input);
  if (!r.success) throw new AppError('INVALID_PARAMETERS', { issues: issuesOf(r.issues) });
  return r.output;
}

/** a timestamp in an answer: RFC 3339 with milliseconds in UTC, as the store keeps it (docs/api.md#conventions) */
export const TimeSchema = v.pipe(v.string(), v.isoTimestamp());

/** ids of projects, homes, users and devices: positive integers that fit an SQL `integer` (id.ts) */
export const IdSchema = v.pipe(
  v.number('expected a positive integer'),
  v.integer('expected a positive integer'),
  v.minValue(1, 'expected a positive integer'),
  v.maxValue(MAX_ID, 'expected a positive integer'),
);

// docs/concepts.md#firmware-bundles bundleId pattern (docs/concepts.md uses it for device class ids too). the docs writes it
// `^[a-zA-Z0-9]([a-zA-Z0-9\-_\.]*[a-zA-Z0-9])*$`; this equivalent form has no nested quantifier,
// which backtracks exponentially on a long id ending in a bad character (ReDoS).
export const SLUG_PATTERN = /^[a-zA-Z0-9](?:[a-zA-Z0-9\-_.]*[a-zA-Z0-9])?$/;
export const SlugSchema = (what: string) =>
  v.pipe(
    v.string(`${what} must be a string`),
    v.minLength(1, `${what} is required`),
    v.maxLength(128, `${what} must be at most 128 characters`),
    v.regex(SLUG_PATTERN, `${what} must match ^[a-zA-Z0-9]([a-zA-Z0-9\\-_\\.]*[a-zA-Z0-9])*$`),
  );

/** a display string of bounded length */
export const TextSchema = (what: string, max: number) =>
  v.pipe(v.string(`${what} must be a string`), v.maxLength(max, `${what} must be at most ${max} characters`));

/**
 * A text field that a form may have turned into a number: form bodies (urlencoded, multipart)
 * coerce digits (docs/api.md#conventions), so a password `12345678` arrives as a number. Only canonical integers
 * are coerced, so String() gives back exactly what was typed.
 */
export const FormTextSchema = (message: string) =>
  v.pipe(v.union([v.string(message), v.pipe(v.number(message), v.integer(message))], message), v.transform(String));

/** a PATCH body's read-only fields, accepted as anything so that checkReadOnly can compare them with what the caller read */
export function readOnlyEntries<K extends string>(fields: readonly K[]): Record<K, v.OptionalSchema<v.UnknownSchema, undefined>> {
  return Object.fromEntries(fields.map((f) => [f, v.optional(v.unknown())])) as Record<K, v.OptionalSchema<v.UnknownSchema, undefined>>;
}

/**
 * The read-only rule (docs/concepts.md#devices, PATCH): a read-only field sent back with the value the caller
 * read is ignored; a different value is 403 READ_ONLY_FIELD naming the fields. `current` is what
 * the caller can read (absent = not shown to it, so any value sent is a change).
 */
export function checkReadOnly(given: Record<string, unknown>, current: Record<string, unknown>, readOnly: readonly string[]): void {
  const changed = readOnly.filter((f) => f in given && !sameJson(given[f] ?? null, current[f] ?? null));
  if (changed.length) throw new AppError('READ_ONLY_FIELD', { fields: changed });
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** an optional id in a query string: a positive integer that fits an SQL `integer` */
export const IdQuerySchema = (name: string) =>
  v.optional(
    v.pipe(
      v.string(),
      v.regex(ID_PATTERN, `${name} must be a positive integer`),
      v.transform(Number),
      v.maxValue(MAX_ID, `${name} must be a positive integer`),
    ),
  );

/**
 * skip and limit of a list, named in its query schema for /openapi.json only: the HTTP edge parses
 * and bounds them (http/paging.ts). The history lists check them in their query instead
 * (log/query.ts pageQueryEntries), where the order of their errors is fixed.
 */
export const pageDocEntries = { skip: v.optional(v.string()), limit: v.optional(v.string()) };
