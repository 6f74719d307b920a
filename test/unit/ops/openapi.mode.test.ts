// /openapi.json documents what MODE's app library relies on (issue 15) and the throttled
// authentication (issue 13 F5): generated from the routes' own metadata.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';

describe('OpenAPI: MODE app operations and throttled authentication', () => {
  let t: TestApi;
  let doc: any;
  beforeAll(async () => {
    t = await makeTestApi();
    doc = (await t.req('GET', '/openapi.json')).body;
  });
  afterAll(() => t.close());

  /** a schema, with a `$ref` to a shared component followed */
  const schemaOf = (s: any): any => (s?.$ref ? doc.components.schemas[s.$ref.replace('#/components/schemas/', '')] : s);

  it('documents multipart/form-data beside JSON and form-encoded bodies', () => {
    const login = doc.paths['/auth/user'].post;
    expect(Object.keys(login.requestBody.content).sort()).toEqual(['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data']);
    expect(schemaOf(login.requestBody.content['multipart/form-data'].schema).properties).toHaveProperty('appId');
  });

  it('lists 429 for sign-in, signup and addDeviceHome', () => {
    for (const [path, method] of [
      ['/auth/user', 'post'],
      ['/users', 'post'],
      ['/devices', 'post'],
    ])
      expect(Object.keys(doc.paths[path][method].responses), `${method} ${path}`).toContain('429');
  });

  it('has the member role change, member fields, project settings and the session appId', () => {
    const patch = doc.paths['/homes/{homeId}/members/{userId}'].patch;
    expect(patch.operationId).toBe('updateHomeMember');
    expect(schemaOf(patch.requestBody.content['application/json'].schema).properties.role.enum).toEqual(['owner', 'member']);
    const member = schemaOf(patch.responses['200'].content['application/json'].schema);
    expect(member.required).toEqual(expect.arrayContaining(['userId', 'name', 'email', 'verified', 'role']));
    const add = schemaOf(doc.paths['/homes/{homeId}/members'].post.requestBody.content['application/json'].schema);
    expect(Object.keys(add.properties)).toEqual(expect.arrayContaining(['userId', 'email', 'phoneNumber', 'role']));
    expect(schemaOf(doc.paths['/projects/{projectId}'].patch.requestBody.content['application/json'].schema).properties).toHaveProperty('allowUserSignup');
    expect(schemaOf(doc.paths['/userSession'].get.responses['200'].content['application/json'].schema).properties).toHaveProperty('appId');
    expect(schemaOf(doc.components.schemas.Error).properties.reason.enum).toContain('LAST_OWNER');
  });
});
