// /openapi.json (API.md §11): a valid OpenAPI 3.1 document, generated from the same op() metadata
// and valibot schemas that guard the routes, naming every route that has metadata.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import type { OpMeta } from '../../../src/http/op.js';

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

  it('lists exactly the SPEC statuses of a SPEC operation, with its success code', () => {
    const put = doc.paths['/devices/{deviceId}/kv/{key}'].put;
    expect(put.operationId).toBe('createUpdateKeyValuePair');
    expect(Object.keys(put.responses).sort()).toEqual(['204', '403', '404', '500', '503']);
    const list = doc.paths['/devices/{deviceId}/kv'].get;
    expect(Object.keys(list.responses).sort()).toEqual(['200', '401', '403', '429', '500', '503']);
    expect(list.responses['200'].headers).toHaveProperty('vnd.tinkermode.range');
  });

  it('documents request bodies and query parameters from the validating schemas', () => {
    const put = doc.paths['/devices/{deviceId}/kv/{key}'].put;
    expect(put.requestBody.content['application/json'].schema.required).toEqual(['value']);
    const q = doc.paths['/httpAccessLogs'].get.parameters.map((p: { name: string }) => p.name);
    expect(q).toEqual(expect.arrayContaining(['projectId', 'since', 'until', 'method', 'statusCode', 'pathPrefix', 'skip', 'limit']));
    const events = doc.paths['/events'].get.parameters.map((p: { name: string }) => p.name);
    expect(events).toEqual(expect.arrayContaining(['projectId', 'homeId', 'deviceId', 'eventType', 'since', 'until']));
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
