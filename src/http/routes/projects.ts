// Mounted at /projects (see index.ts). Project API keys and device classes (docs/concepts.md).
import * as v from 'valibot';
import { resource } from '../op.js';
import { readBody } from '../body.js';
import { pageOf } from '../paging.js';
import { STATUSES, projectIdIn, sliceResponse } from '../params.js';
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
import { noContent } from '../no-content.js';

const ADMIN = 'project key with scope admin';
const CLASS_READERS = 'project key with scope devices, or a user of the project';

export const projectsRoutes = resource({ tag: 'projects', statuses: STATUSES.read }, (r, op) => {
  r.get(
    '/:projectId/apiKeys',
    op({ operationId: 'getProjectApiKeys', summary: "A project's API keys (never their secrets)", success: 200, response: v.array(ApiKeySchema), auth: ADMIN }),
    async (c) =>
      sliceResponse(
        c,
        pageOf(c, c.get('deps').limits),
        await listApiKeys({ deps: c.get('deps'), caller: c.get('caller'), input: { projectId: projectIdIn(c) } }),
      ),
  );

  r.post(
    '/:projectId/apiKeys',
    op({
      operationId: 'createProjectApiKey',
      summary: 'Create a project API key; its secret `key` is shown in this answer only',
      success: 201,
      body: CreateApiKeyBodySchema,
      response: CreatedApiKeySchema,
      auth: ADMIN,
    }),
    async (c) =>
      c.json(await createApiKey({ deps: c.get('deps'), caller: c.get('caller'), input: { projectId: projectIdIn(c), body: await readBody(c) } }), 201),
  );

  r.delete(
    '/:projectId/apiKeys/:keyId',
    op({ operationId: 'deleteProjectApiKey', summary: 'Revoke a project API key and close its live connections', success: 204, auth: ADMIN }),
    async (c) => {
      await revokeApiKey({ deps: c.get('deps'), caller: c.get('caller'), input: { projectId: projectIdIn(c), keyId: c.req.param('keyId') } });
      return noContent(c);
    },
  );

  r.get(
    '/:projectId/deviceClasses',
    op({ operationId: 'getDeviceClasses', summary: "A project's device classes", success: 200, response: v.array(DeviceClassSchema), auth: CLASS_READERS }),
    async (c) =>
      sliceResponse(
        c,
        pageOf(c, c.get('deps').limits),
        await listDeviceClasses({ deps: c.get('deps'), caller: c.get('caller'), input: { projectId: projectIdIn(c) } }),
      ),
  );

  r.post(
    '/:projectId/deviceClasses',
    op({
      operationId: 'createDeviceClass',
      summary: 'Create a device class (id pattern as bundleId, docs/concepts.md#firmware-bundles)',
      success: 201,
      body: CreateDeviceClassBodySchema,
      response: DeviceClassSchema,
      auth: 'project key with scope devices',
    }),
    async (c) =>
      c.json(await createDeviceClass({ deps: c.get('deps'), caller: c.get('caller'), input: { projectId: projectIdIn(c), body: await readBody(c) } }), 201),
  );

  r.get(
    '/:projectId/deviceClasses/:classId',
    op({ operationId: 'getDeviceClass', summary: 'One device class', success: 200, response: DeviceClassSchema, auth: CLASS_READERS }),
    async (c) =>
      c.json(await getDeviceClass({ deps: c.get('deps'), caller: c.get('caller'), input: { projectId: projectIdIn(c), classId: c.req.param('classId') } })),
  );

  r.patch(
    '/:projectId/deviceClasses/:classId',
    op({
      operationId: 'updateDeviceClass',
      summary: 'Change a device class: certificateRequired (docs/tls.md#client-certificates)',
      success: 200,
      body: UpdateDeviceClassBodySchema,
      response: DeviceClassSchema,
      auth: 'project key with scope devices',
    }),
    async (c) =>
      c.json(
        await updateDeviceClass({
          deps: c.get('deps'),
          caller: c.get('caller'),
          input: { projectId: projectIdIn(c), classId: c.req.param('classId'), body: await readBody(c) },
        }),
      ),
  );

  r.delete(
    '/:projectId/deviceClasses/:classId',
    op({
      operationId: 'deleteDeviceClass',
      summary: 'Delete a device class no device uses (409 DEVICE_IN_USE otherwise)',
      success: 204,
      statuses: STATUSES.inUse,
      auth: 'project key with scope devices',
    }),
    async (c) => {
      await deleteDeviceClass({ deps: c.get('deps'), caller: c.get('caller'), input: { projectId: projectIdIn(c), classId: c.req.param('classId') } });
      return noContent(c);
    },
  );
});
