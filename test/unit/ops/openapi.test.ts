// /openapi.json (docs/operations.md#health-and-metrics): a valid OpenAPI 3.1 document, generated from the same op() metadata
// and valibot schemas that guard the routes, naming every route that has metadata.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import * as v from 'valibot';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import type { OpMeta } from '../../../src/http/op-meta.js';

describe('OpenAPI document', () => {
  let t: TestApi;
  let doc: any;
  beforeAll(async () => {
    t = await makeTestApi();
    const r = await t.req('GET', '/openapi.json');
    expect(r.status).toBe(200);
    doc = r.body;
  });
  afterAll(() => t.close());

  it('validates as OpenAPI 3.1', async () => {
    const res = await new Validator().validate(doc);
    expect(res.errors, JSON.stringify(res.errors, null, 1)?.slice(0, 3000)).toBeUndefined();
    expect(res.valid).toBe(true);
    expect(doc.openapi).toMatch(/^3\.1\./);
  });

  it('contains every route that carries op() metadata, under its method and operationId', () => {
    const routes = t.app.routes.filter((r) => (r.handler as { meta?: OpMeta }).meta);
    expect(routes.length).toBeGreaterThan(5);
    for (const r of routes) {
      const meta = (r.handler as unknown as { meta: OpMeta }).meta;
      const path = r.path.replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?/g, '{$1}');
      expect(doc.paths[path]?.[r.method.toLowerCase()]?.operationId, `${r.method} ${path}`).toBe(meta.operationId);
    }
  });

  it('has unique operationIds', () => {
    const ids = Object.values(doc.paths).flatMap((ms: any) => Object.values(ms).map((o: any) => o.operationId));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('lists exactly the documented statuses of a documented operation, with its success code', () => {
    const put = doc.paths['/devices/{deviceId}/kv/{key}'].put;
    expect(put.operationId).toBe('createUpdateKeyValuePair');
    expect(Object.keys(put.responses).sort()).toEqual(['204', '403', '404', '500', '503']);
    const list = doc.paths['/devices/{deviceId}/kv'].get;
    expect(Object.keys(list.responses).sort()).toEqual(['200', '401', '403', '429', '500', '503']);
    expect(list.responses['200'].headers).toHaveProperty('vnd.tinkermode.range');
  });

  it('documents request bodies and query parameters from the validating schemas', () => {
    const put = doc.paths['/devices/{deviceId}/kv/{key}'].put;
    const body = put.requestBody.content['application/json'].schema;
    expect(body).toEqual({ $ref: '#/components/schemas/KeyValueWrite' });
    expect(doc.components.schemas.KeyValueWrite.required).toEqual(['value']);
    const q = doc.paths['/httpAccessLogs'].get.parameters.map((p: { name: string }) => p.name);
    expect(q).toEqual(expect.arrayContaining(['projectId', 'since', 'until', 'method', 'statusCode', 'pathPrefix', 'skip', 'limit']));
    const events = doc.paths['/events'].get.parameters.map((p: { name: string }) => p.name);
    expect(events).toEqual(expect.arrayContaining(['projectId', 'homeId', 'deviceId', 'eventType', 'since', 'until']));
  });

  it('documents the firmware file upload as raw bytes and its download as bytes with ETag, 206 and 304', () => {
    const path = doc.paths['/bundles/{bundleId}/components/{componentName}/file'];
    const binary = { schema: { type: 'string', format: 'binary' } };
    expect(path.put.operationId).toBe('putFirmwareFile');
    expect(path.put.requestBody.required).toBe(true);
    expect(path.put.requestBody.content).toEqual({ 'application/octet-stream': binary });
    expect(path.put.responses['201'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/FirmwareFile' });
    const get = path.get;
    expect(get.operationId).toBe('getFirmwareFile');
    expect(get.requestBody).toBeUndefined();
    expect(get.responses['200'].content).toEqual({ 'application/octet-stream': binary });
    expect(Object.keys(get.responses['200'].headers)).toEqual(expect.arrayContaining(['etag', 'content-length', 'accept-ranges']));
    expect(get.responses['206'].content).toEqual({ 'application/octet-stream': binary });
    expect(get.responses['206'].headers).toHaveProperty('content-range');
    expect(get.responses['304'].content).toBeUndefined();
    expect(get.responses['416'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
    expect(Object.keys(get.responses).sort()).toEqual(['200', '206', '304', '401', '403', '404', '416', '429', '500', '503']);
  });

  it('marks the operations endpoints as taking no credential', () => {
    expect(doc.paths['/healthz'].get.security).toEqual([]);
  });
});

describe('OpenAPI validator (guards the test above against passing vacuously)', () => {
  it('rejects a document with a response lacking its description', async () => {
    const bad = { openapi: '3.1.0', info: { title: 'x', version: '1' }, paths: { '/x': { get: { responses: { '200': {} } } } } };
    expect((await new Validator().validate(bad)).valid).toBe(false);
  });
});

describe('OpenAPI document: descriptions, examples, components, tags (docs/api.md#openapi)', () => {
  let t: TestApi;
  let doc: any;
  beforeAll(async () => {
    t = await makeTestApi();
    doc = (await t.req('GET', '/openapi.json')).body;
  });
  afterAll(() => t.close());

  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, ms]: [string, any]) =>
      Object.entries(ms).map(([m, o]: [string, any]) => ({ where: `${m.toUpperCase()} ${path}`, o })),
    );

  /** every property of every object schema in the tree, with where it is */
  function properties(node: unknown, where: string, out: { where: string; p: any }[] = []): { where: string; p: any }[] {
    if (!node || typeof node !== 'object') return out;
    if (Array.isArray(node)) {
      node.forEach((n, i) => properties(n, `${where}[${i}]`, out));
      return out;
    }
    const n = node as Record<string, unknown>;
    for (const [k, v] of Object.entries(n)) {
      if (k === 'example' || k === 'examples') continue;
      if (k === 'properties' && v && typeof v === 'object' && !Array.isArray(v)) {
        for (const [name, p] of Object.entries(v)) {
          out.push({ where: `${where}.${name}`, p });
          properties(p, `${where}.${name}`, out);
        }
      } else properties(v, `${where}.${k}`, out);
    }
    return out;
  }

  it('gives every operation a description, a tag that is declared, and examples for its request and responses', () => {
    const tags = new Set(doc.tags.map((tg: { name: string; description: string }) => tg.name));
    expect(doc.tags.every((tg: { description?: string }) => tg.description)).toBe(true);
    const ops = operations();
    expect(ops.length).toBeGreaterThan(90);
    for (const { where, o } of ops) {
      expect(o.description, `${where}: op() summary`).toMatch(/\S/);
      expect(o.tags?.length, where).toBe(1);
      expect(tags.has(o.tags[0]), `${where}: tag ${o.tags[0]} (TAGS in src/http/openapi-fields.ts)`).toBe(true);
      const body = o.requestBody?.content?.['application/json'];
      if (body) expect(body.example !== undefined || Object.keys(body.examples ?? {}).length > 0, `${where} request example`).toBe(true);
      for (const [status, r] of Object.entries(o.responses) as [string, any][]) {
        const c = r.content?.['application/json'];
        if (c) expect(c.example, `${where} ${status} example`).toBeDefined();
      }
      for (const p of o.parameters) {
        expect(p.description, `${where} ?${p.name}`).toMatch(/\S/);
        expect(p.example, `${where} ?${p.name} example (FIELDS in src/http/openapi-fields.ts)`).toBeDefined();
      }
    }
  });

  it('describes every schema property, in components and inline', () => {
    const props = [...properties(doc.components.schemas, 'components'), ...properties(doc.paths, 'paths')];
    expect(props.length).toBeGreaterThan(300);
    const bare = props.filter(({ p }) => !p.description && !p.$ref).map(({ where }) => where);
    expect(bare, 'describe these fields: v.description() where the schema is defined, or an entry of FIELDS in src/http/openapi-fields.ts').toEqual([]);
  });

  it('shares resource schemas as components instead of inlining copies', () => {
    expect(doc.components.schemas.Device.properties.isConnected.description).toMatch(/connect/i);
    const one = doc.paths['/devices/{deviceId}'].get.responses['200'].content['application/json'].schema;
    const list = doc.paths['/devices'].get.responses['200'].content['application/json'].schema;
    expect(one).toEqual({ $ref: '#/components/schemas/Device' });
    expect(list).toEqual({ type: 'array', items: { $ref: '#/components/schemas/Device' } });
    // no inlined copy of the Device schema anywhere in the paths
    const text = JSON.stringify(doc.paths);
    expect(text).not.toContain('"lastDisconnectTime":{"type"');
  });

  it('offers the ModeCloud header scheme for try-it', () => {
    expect(doc.components.securitySchemes.ModeCloud).toMatchObject({ type: 'apiKey', in: 'header', name: 'Authorization' });
    expect(doc.security).toContainEqual({ ModeCloud: [] });
  });

  it('gives each example of a shared schema every field that schema requires, of its type', () => {
    const checked: string[] = [];
    const check = (where: string, schema: any, example: unknown) => {
      if (schema?.type === 'array' && schema.items?.$ref) {
        expect(Array.isArray(example), where).toBe(true);
        for (const e of example as unknown[]) check(where, schema.items, e);
        return;
      }
      const ref = schema?.$ref as string | undefined;
      if (!ref || example === undefined) return;
      const c = doc.components.schemas[ref.split('/').pop()!];
      expect(typeof example, where).toBe('object');
      for (const f of c.required ?? []) {
        expect(example, `${where}: ${f}`).toHaveProperty(f);
        const t = c.properties?.[f]?.type;
        const v = (example as Record<string, unknown>)[f];
        if (t === 'string') expect(typeof v, `${where}: ${f}`).toBe('string');
        if (t === 'number' || t === 'integer') expect(typeof v, `${where}: ${f}`).toBe('number');
        if (t === 'boolean') expect(typeof v, `${where}: ${f}`).toBe('boolean');
      }
      checked.push(where);
    };
    for (const { where, o } of operations()) {
      const body = o.requestBody?.content?.['application/json'];
      if (body?.example !== undefined) check(`${where} request`, body.schema, body.example);
      for (const [status, r] of Object.entries(o.responses) as [string, any][]) {
        const c = r.content?.['application/json'];
        if (c) check(`${where} ${status}`, c.schema, c.example);
      }
    }
    expect(checked.length).toBeGreaterThan(300);
  });

  it('has request examples that the validating schemas of the routes accept', () => {
    const failures: string[] = [];
    let n = 0;
    for (const r of t.app.routes) {
      const meta = (r.handler as { meta?: OpMeta }).meta;
      if (!meta?.body) continue;
      const path = r.path.replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?/g, '{$1}');
      const content = doc.paths[path][r.method.toLowerCase()].requestBody.content['application/json'];
      const examples = content.examples ? Object.values(content.examples).map((e: any) => e.value) : [content.example];
      for (const ex of examples) {
        n++;
        const parsed = v.safeParse(meta.body, ex);
        if (!parsed.success) failures.push(`${meta.operationId}: ${JSON.stringify(ex)}: ${parsed.issues.map((i) => i.message).join('; ')}`);
      }
    }
    expect(n).toBeGreaterThan(25);
    expect(failures).toEqual([]);
  });

  it('has examples that its own schemas accept (a device example is a device)', () => {
    const ex = doc.paths['/devices/{deviceId}'].get.responses['200'].content['application/json'].example;
    expect(Object.keys(ex)).toEqual(expect.arrayContaining(doc.components.schemas.Device.required));
    expect(typeof ex.id).toBe('number');
  });
});
