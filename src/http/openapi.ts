// /openapi.json, generated from the same valibot schemas and op() metadata that validate and
// guard the routes: walk app.routes, keep the handlers that carry `meta`. Every object schema a
// route takes or answers becomes one shared component (#/components/schemas/<Name>), referenced
// wherever the same schema object is used; descriptions and examples the schemas do not carry
// themselves come from the glossary in openapi-fields.ts. docs/api.md#openapi
import type { Hono } from 'hono';
import { toJsonSchema, toJsonSchemaDefs } from '@valibot/to-json-schema';
import type { GenericSchema } from 'valibot';
import type { OpMeta } from './op-meta.js';
import { statusOf } from '../protocol/error-status.js';
import { REASONS, type Reason } from '../domain/errors.js';
import { RANGE_HEADER } from './paging.js';
import { COMPONENT_NAMES, OP_EXAMPLES, TAGS, describeField, exampleOf, type JsonSchema } from './openapi-fields.js';

const DESCRIPTIONS: Record<number, string> = {
  101: 'Switching protocols (WebSocket)',
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'Done, empty body',
  401: 'Authorization is required',
  403: 'Invalid data or denied permission',
  404: 'The resource does not exist or is not accessible',
  405: 'Method not allowed',
  409: 'The resource is in use',
  429: 'Rate limit exceeded',
  500: 'Unexpected error',
  503: 'Temporarily unavailable',
};

/** raw bytes (a file's body) */
const BINARY = { type: 'string', format: 'binary' };

/** an example error body per status: the commonest reason of that status */
const ERROR_EXAMPLE: Record<number, { reason: Reason; data?: unknown }> = {
  401: { reason: 'AUTHORIZATION_REQUIRED' },
  403: { reason: 'INVALID_PARAMETERS', data: { issues: [{ path: 'name', message: 'name must be a string' }] } },
  404: { reason: 'DEVICE_NOT_FOUND', data: { deviceId: 42 } },
  405: { reason: 'METHOD_NOT_ALLOWED' },
  409: { reason: 'DEVICE_IN_USE', data: { deviceId: 42 } },
  429: { reason: 'RATE_LIMITED', data: { retryAfter: 1 } },
  500: { reason: 'INTERNAL_ERROR' },
  503: { reason: 'SERVICE_UNAVAILABLE' },
};

const pascal = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** object schemas (array items unwrapped) that are worth a component */
function unwrapArray(s: GenericSchema): { item: GenericSchema; array: boolean } {
  const a = s as unknown as { type: string; item?: GenericSchema };
  return a.type === 'array' && a.item ? { item: a.item, array: true } : { item: s, array: false };
}
const OBJECTISH = new Set(['object', 'loose_object', 'strict_object', 'object_with_rest']);
const isObjectish = (s: GenericSchema): boolean => {
  const root = (s as { pipe?: GenericSchema[] }).pipe?.[0] ?? s;
  return OBJECTISH.has(root.type);
};

/** the named schemas of the document, each schema object once */
function collectComponents(metas: OpMeta[]): Map<GenericSchema, string> {
  const named = new Map<GenericSchema, string>();
  const taken = new Set<string>();
  const add = (s: GenericSchema, fallback: string) => {
    if (named.has(s) || !isObjectish(s)) return;
    let name = fallback;
    for (let i = 2; taken.has(name); i++) name = `${fallback}${i}`;
    taken.add(name);
    named.set(s, name);
  };
  // the table's names first, so a resource is called Device wherever it first appears
  for (const m of metas) {
    const r = m.response && unwrapArray(m.response).item;
    if (r && COMPONENT_NAMES[m.operationId]) add(r, COMPONENT_NAMES[m.operationId]);
  }
  for (const m of metas) {
    if (m.body) add(m.body, COMPONENT_NAMES[`${m.operationId}:body`] ?? `${pascal(m.operationId)}Request`);
    if (m.response) add(unwrapArray(m.response).item, `${pascal(m.operationId)}Response`);
  }
  return named;
}

/** every property of a schema (and of its nested objects) described, from the glossary when the schema is silent */
function describeProperties(schema: JsonSchema, owner: string, path = ''): void {
  if (!schema || typeof schema !== 'object') return;
  const props = schema.properties as Record<string, JsonSchema> | undefined;
  if (props) {
    for (const [name, p] of Object.entries(props)) {
      const full = path ? `${path}.${name}` : name;
      if (!p.description && !p.$ref) {
        const d = describeField(owner, full, name);
        if (d) p.description = d;
      }
      describeProperties(p, owner, full);
    }
  }
  if (schema.items) describeProperties(schema.items as JsonSchema, owner, path);
  for (const k of ['anyOf', 'oneOf', 'allOf'] as const) for (const s of (schema[k] as JsonSchema[] | undefined) ?? []) describeProperties(s, owner, path);
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object')
    describeProperties(schema.additionalProperties as JsonSchema, owner, path);
}

export function buildOpenApi(app: Hono<any>, info: { version: string }) {
  const routes = app.routes.flatMap((r) => {
    const meta = (r.handler as { meta?: OpMeta }).meta;
    return meta ? [{ method: r.method, path: r.path, meta }] : [];
  });
  const named = collectComponents(routes.map((r) => r.meta));
  const definitions = Object.fromEntries([...named].map(([s, n]) => [n, s]));
  const config = {
    target: 'draft-2020-12' as const,
    errorMode: 'ignore' as const,
    typeMode: 'input' as const,
    definitions,
    overrideRef: ({ referenceId }: { referenceId: string }) => `#/components/schemas/${referenceId}`,
  };
  const jsonSchema = (s: GenericSchema, owner: string): JsonSchema => {
    const out = toJsonSchema(s, config) as JsonSchema;
    delete out.$schema;
    delete out.$defs;
    describeProperties(out, owner);
    return out;
  };

  const schemas: Record<string, JsonSchema> = {};
  const converted = toJsonSchemaDefs(definitions, config) as Record<string, JsonSchema>;
  for (const name of named.values()) {
    const js = converted[name];
    describeProperties(js, name);
    js.description ??= describeField(name, '', name) ?? `${name}`;
    schemas[name] = js;
  }
  schemas.Error = {
    type: 'object',
    description: 'Every error answers this body; the status of each reason is fixed (docs/api.md#errors).',
    required: ['reason'],
    properties: {
      reason: { type: 'string', enum: [...REASONS], description: `What went wrong. Status by reason: ${REASONS.map((r) => `${r} ${statusOf[r]}`).join(', ')}` },
      data: { type: 'object', description: 'Details: the offending field names, ids or validation issues (`issues: [{path, message}]`)' },
    },
  };
  const resolve = (js: JsonSchema): JsonSchema => {
    const ref = js.$ref as string | undefined;
    return ref?.startsWith('#/components/schemas/') ? schemas[ref.slice('#/components/schemas/'.length)] : js;
  };
  const example = (js: JsonSchema): unknown => exampleOf(js, resolve);

  const paths: Record<string, Record<string, unknown>> = {};
  for (const { method, path: honoPath, meta } of routes) {
    const path = honoPath.replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?/g, '{$1}');
    const given = OP_EXAMPLES[meta.operationId];
    const param = (name: string, where: 'path' | 'query', schema: JsonSchema, required: boolean) => {
      const description = (schema.description as string | undefined) ?? describeField(`${meta.operationId}?`, name, name) ?? name;
      const s = { ...schema };
      delete s.description;
      return { name, in: where, required, description, schema: s, example: given?.params?.[name] ?? example({ ...s, 'x-field': name }) };
    };
    const pathParams = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => param(m[1], 'path', { type: 'string' }, true));
    const qjs = meta.query ? jsonSchema(meta.query, `${meta.operationId}?`) : undefined;
    const queryParams = Object.entries((qjs?.properties ?? {}) as Record<string, JsonSchema>).map(([n, s]) => param(n, 'query', s, false));
    if (meta.queryToken) queryParams.push(param('ticket', 'query', { type: 'string' }, false), param('authToken', 'query', { type: 'string' }, false));

    const responses: Record<string, unknown> = {};
    const rjs = meta.response ? jsonSchema(meta.response, meta.operationId) : undefined;
    responses[String(meta.success)] = {
      description: DESCRIPTIONS[meta.success] ?? 'Success',
      ...(rjs ? { content: { 'application/json': { schema: rjs, example: given?.response ?? example(rjs) } } } : {}),
      ...(rjs && meta.operationId.startsWith('get') && rjs.type === 'array'
        ? {
            headers: {
              [RANGE_HEADER]: { description: 'The page answered: `<first>-<last>/<total>` (`*/0` when empty)', schema: { type: 'string' }, example: '0-0/1' },
            },
          }
        : {}),
    };
    if (meta.rawResponse) {
      const raw = meta.rawResponse;
      const bytes = { [raw.mediaType]: { schema: BINARY } };
      const headersOf = (h: Record<string, string>) =>
        Object.fromEntries(Object.entries(h).map(([name, description]) => [name, { description, schema: { type: 'string' } }]));
      responses[String(meta.success)] = { description: DESCRIPTIONS[meta.success] ?? 'Success', headers: headersOf(raw.headers), content: bytes };
      for (const [status, a] of Object.entries(raw.also ?? {}))
        responses[status] = { description: a.description, headers: headersOf(a.headers ?? raw.headers), ...(a.body ? { content: bytes } : {}) };
    }
    for (const s of meta.statuses ?? [401, 403, 404, 429, 500, 503]) {
      responses[String(s)] = {
        description: DESCRIPTIONS[s] ?? 'Error',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' }, example: ERROR_EXAMPLE[s] ?? { reason: 'INTERNAL_ERROR' } } },
      };
    }
    const bjs = meta.body ? jsonSchema(meta.body, meta.operationId) : undefined;
    const bodyExamples = given?.requests
      ? { examples: Object.fromEntries(Object.entries(given.requests).map(([k, value]) => [k, { summary: k, value }])) }
      : { example: given?.request ?? (bjs ? example(bjs) : undefined) };
    paths[path] ??= {};
    paths[path][method.toLowerCase()] = {
      operationId: meta.operationId,
      summary: meta.summary.replace(/\.$/, ''),
      description: [
        `${meta.summary.replace(/\.$/, '')}.`,
        meta.auth ? `Who may call: ${meta.auth}.` : meta.authenticated === false ? 'Takes no credential.' : '',
        TAGS[meta.tag]?.page ? `More: ${TAGS[meta.tag].page} in the project's documentation.` : '',
      ]
        .filter(Boolean)
        .join('\n\n'),
      tags: [meta.tag],
      ...(meta.authenticated === false ? { security: [] } : {}),
      parameters: [...pathParams, ...queryParams],
      ...(bjs
        ? {
            requestBody: {
              required: true,
              description: 'JSON; a form-encoded or multipart body with the same fields is accepted too (`"true"`, `"false"` and digits are coerced).',
              content: {
                'application/json': { schema: bjs, ...bodyExamples },
                'application/x-www-form-urlencoded': { schema: bjs },
                'multipart/form-data': { schema: bjs },
              },
            },
          }
        : {}),
      ...(meta.rawBody
        ? { requestBody: { required: true, description: meta.rawBody.description, content: { [meta.rawBody.mediaType]: { schema: BINARY } } } }
        : {}),
      responses,
    };
  }
  // areas in the glossary's order (devices first, operations last), any other after them
  const order = [...Object.keys(TAGS).filter((t) => t !== 'operations'), 'operations'];
  const rank = (t: string) => (order.includes(t) ? order.indexOf(t) : order.length);
  const usedTags = [...new Set(routes.map((r) => r.meta.tag))].sort((a, b) => rank(a) - rank(b));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Hearth API',
      version: info.version,
      description:
        'Self-hosted device cloud: the HTTP API of projects, homes, devices, key-value stores, commands, events, data, logs, smart modules (webhooks) and reports. ' +
        'Send a credential as `Authorization: ModeCloud <token>` (or `Bearer <token>`): a project API key (`pk.…`), a user token (`ut.…`) or a device API key (`dk.…`). ' +
        'Errors answer `{reason, data}`; lists take `skip` and `limit` and answer the `vnd.tinkermode.range` header. ' +
        'The device side (MQTT topics, WebSocket channels) is described by `/asyncapi.json`.',
    },
    servers: [{ url: '/', description: 'this server' }],
    tags: usedTags.map((name) => ({ name, description: TAGS[name]?.description ?? name })),
    components: {
      securitySchemes: {
        ModeCloud: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: 'A project API key, user token or device API key, sent as `Authorization: ModeCloud <token>` (enter `ModeCloud pk.…` as the value).',
        },
        bearer: { type: 'http', scheme: 'bearer', description: 'The same credential as `Authorization: Bearer <token>`.' },
      },
      schemas,
    },
    security: [{ ModeCloud: [] }, { bearer: [] }],
    paths,
  };
}
