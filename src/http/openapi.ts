// /openapi.json, generated from the same valibot schemas and op() metadata that validate and
// guard the routes: walk app.routes, keep the handlers that carry `meta`.
import type { Hono } from 'hono';
import { toJsonSchema } from '@valibot/to-json-schema';
import type { GenericSchema } from 'valibot';
import type { OpMeta } from './op.js';
import { statusOf } from './errors.js';
import { REASONS } from '../domain/errors.js';
import { RANGE_HEADER } from './paging.js';

const jsonSchema = (s: GenericSchema) => {
  const out = toJsonSchema(s, { target: 'draft-2020-12', errorMode: 'ignore', typeMode: 'input' }) as Record<string, unknown>;
  delete out.$schema;
  return out;
};

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

function queryParams(meta: OpMeta) {
  const js = meta.query ? jsonSchema(meta.query) : undefined;
  const props = (js?.properties ?? {}) as Record<string, unknown>;
  const params = Object.entries(props).map(([name, schema]) => ({ name, in: 'query', required: false, schema }));
  if (meta.queryToken) params.push({ name: 'authToken', in: 'query', required: false, schema: { type: 'string' } });
  return params;
}

export function buildOpenApi(app: Hono<any>, info: { version: string }) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of app.routes) {
    const meta = (r.handler as { meta?: OpMeta }).meta;
    if (!meta) continue;
    const path = r.path.replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?/g, '{$1}');
    const pathParams = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    const responses: Record<string, unknown> = {};
    responses[String(meta.success)] = {
      description: DESCRIPTIONS[meta.success] ?? 'Success',
      ...(meta.response ? { content: { 'application/json': { schema: jsonSchema(meta.response) } } } : {}),
      ...(meta.response && meta.operationId.startsWith('get') ? { headers: { [RANGE_HEADER]: { schema: { type: 'string' } } } } : {}),
    };
    for (const s of meta.statuses ?? [401, 403, 404, 429, 500, 503]) {
      responses[String(s)] = { description: DESCRIPTIONS[s] ?? 'Error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
    }
    paths[path] ??= {};
    paths[path][r.method.toLowerCase()] = {
      operationId: meta.operationId,
      summary: meta.summary,
      tags: [meta.tag],
      ...(meta.auth ? { description: `Who may call: ${meta.auth}.` } : {}),
      ...(meta.authenticated === false ? { security: [] } : {}),
      parameters: [...pathParams, ...queryParams(meta)],
      ...(meta.body
        ? {
            requestBody: {
              required: true,
              content: {
                'application/json': { schema: jsonSchema(meta.body) },
                'application/x-www-form-urlencoded': { schema: jsonSchema(meta.body) },
                'multipart/form-data': { schema: jsonSchema(meta.body) },
              },
            },
          }
        : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Hearth API', version: info.version, description: 'Self-hosted device cloud. Credentials: `Authorization: ModeCloud <token>` or `Bearer <token>`.' },
    servers: [{ url: '/' }],
    components: {
      securitySchemes: { token: { type: 'http', scheme: 'bearer' } },
      schemas: {
        Error: {
          type: 'object',
          required: ['reason'],
          properties: {
            reason: { type: 'string', enum: [...REASONS], description: `Status by reason: ${REASONS.map((r) => `${r} ${statusOf[r]}`).join(', ')}` },
            data: { type: 'object' },
          },
        },
      },
    },
    security: [{ token: [] }],
    paths,
  };
}
