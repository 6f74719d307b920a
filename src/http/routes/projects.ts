// Mounted at /projects (see index.ts). Project API keys and device classes (docs/concepts.md).
import { Hono, type Context } from 'hono';
import * as v from 'valibot';
import type { HttpEnv } from '../env.js';
import { op } from '../op.js';
import { readBody } from '../body.js';
import { pageOf } from '../paging.js';
import { STATUSES, actor, pathId, sliceResponse } from '../params.js';
import {
  ApiKeySchema,
  CreateApiKeyBodySchema,
  CreateDeviceClassBodySchema,
  CreatedApiKeySchema,
  DeviceClassSchema,
  createApiKey,
  createDeviceClass,
  updateDeviceClass,
  UpdateDeviceClassBodySchema,
  deleteDeviceClass,
  getDeviceClass,
  listApiKeys,
  listDeviceClasses,
  revokeApiKey,
} from '../../domain/project/index.js';

const tag = 'projects';
const ADMIN = 'project key with scope admin';
const CLASS_READERS = 'project key with scope devices, or a user of the project';
const pid = (c: Context) => pathId(c, 'projectId', 'PROJECT_NOT_FOUND');

export function projectsRoutes(): Hono<HttpEnv> {
  const r = new Hono<HttpEnv>();

  r.get(
    '/:projectId/apiKeys',
    op({
      operationId: 'getProjectApiKeys',
      summary: "A project's API keys (never their secrets)",
      tag,
      success: 200,
      statuses: STATUSES.read,
      response: v.array(ApiKeySchema),
      auth: ADMIN,
    }),
    async (c) => sliceResponse(c, pageOf(c, c.get('deps').limits), await listApiKeys({ ...actor(c), input: { projectId: pid(c) } })),
  );

  r.post(
    '/:projectId/apiKeys',
    op({
      operationId: 'createProjectApiKey',
      summary: 'Create a project API key; its secret `key` is shown in this answer only',
      tag,
      success: 201,
      statuses: STATUSES.read,
      body: CreateApiKeyBodySchema,
      response: CreatedApiKeySchema,
      auth: ADMIN,
    }),
    async (c) => c.json(await createApiKey({ ...actor(c), input: { projectId: pid(c), body: await readBody(c) } }), 201),
  );

  r.delete(
    '/:projectId/apiKeys/:keyId',
    op({
      operationId: 'deleteProjectApiKey',
      summary: 'Revoke a project API key and close its live connections',
      tag,
      success: 204,
      statuses: STATUSES.read,
      auth: ADMIN,
    }),
    async (c) => {
      await revokeApiKey({ ...actor(c), input: { projectId: pid(c), keyId: c.req.param('keyId') } });
      return c.body(null, 204);
    },
  );

  r.get(
    '/:projectId/deviceClasses',
    op({
      operationId: 'getDeviceClasses',
      summary: "A project's device classes",
      tag,
      success: 200,
      statuses: STATUSES.read,
      response: v.array(DeviceClassSchema),
      auth: CLASS_READERS,
    }),
    async (c) => sliceResponse(c, pageOf(c, c.get('deps').limits), await listDeviceClasses({ ...actor(c), input: { projectId: pid(c) } })),
  );

  r.post(
    '/:projectId/deviceClasses',
    op({
      operationId: 'createDeviceClass',
      summary: 'Create a device class (id pattern as bundleId, docs/concepts.md#firmware-bundles)',
      tag,
      success: 201,
      statuses: STATUSES.read,
      body: CreateDeviceClassBodySchema,
      response: DeviceClassSchema,
      auth: 'project key with scope devices',
    }),
    async (c) => c.json(await createDeviceClass({ ...actor(c), input: { projectId: pid(c), body: await readBody(c) } }), 201),
  );

  r.get(
    '/:projectId/deviceClasses/:classId',
    op({
      operationId: 'getDeviceClass',
      summary: 'One device class',
      tag,
      success: 200,
      statuses: STATUSES.read,
      response: DeviceClassSchema,
      auth: CLASS_READERS,
    }),
    async (c) => c.json(await getDeviceClass({ ...actor(c), input: { projectId: pid(c), classId: c.req.param('classId') } })),
  );

  r.patch(
    '/:projectId/deviceClasses/:classId',
    op({
      operationId: 'updateDeviceClass',
      summary: 'Change a device class: certificateRequired (docs/tls.md#client-certificates)',
      tag,
      success: 200,
      statuses: STATUSES.read,
      body: UpdateDeviceClassBodySchema,
      response: DeviceClassSchema,
      auth: 'project key with scope devices',
    }),
    async (c) => c.json(await updateDeviceClass({ ...actor(c), input: { projectId: pid(c), classId: c.req.param('classId'), body: await readBody(c) } })),
  );

  r.delete(
    '/:projectId/deviceClasses/:classId',
    op({
      operationId: 'deleteDeviceClass',
      summary: 'Delete a device class no device uses (409 DEVICE_IN_USE otherwise)',
      tag,
      success: 204,
      statuses: STATUSES.inUse,
      auth: 'project key with scope devices',
    }),
    async (c) => {
      await deleteDeviceClass({ ...actor(c), input: { projectId: pid(c), classId: c.req.param('classId') } });
      return c.body(null, 204);
    },
  );

  return r;
}
