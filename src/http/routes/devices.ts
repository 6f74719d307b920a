// Mounted at /devices (see index.ts). The registry's device operations (docs/api.md#device-operations, docs/concepts.md#devices);
// KV, commands, events, data and log requests live in their own route files.
import * as v from 'valibot';
import { resource } from '../op.js';
import { parseQuery, readBody } from '../body.js';
import { listResponse, pageOf } from '../paging.js';
import { deviceIdIn, deviceWrite, sliceResponse } from '../params.js';
import { isAppError } from '../../domain/errors.js';
import { after } from '../../domain/maybe.js';
import {
  AddDeviceBodySchema,
  ConfigSchemaSchema,
  DeviceListQuerySchema,
  DeviceSchema,
  FirmwareBodySchema,
  PatchDeviceBodySchema,
  TagBodySchema,
  addDeviceHome,
  deleteDevice,
  getDevice,
  getDeviceConfigurationSchemas,
  listDevices,
  updateDevice,
  updateDeviceTag,
} from '../../domain/device/index.js';
// a device's install report moves it in its rollouts: a rollout verb
import { recordFirmwareInstallation } from '../../domain/rollout/index.js';
import { noContent } from '../no-content.js';

export const devicesRoutes = resource({ tag: 'devices' }, (r, op) => {
  r.get(
    '/',
    op({
      spec: 'getAllDevices',
      summary: "A project's devices; a user sees its homes' devices",
      success: 200,
      query: DeviceListQuerySchema,
      response: v.array(DeviceSchema),
      auth: 'project key with scope devices, or a user',
    }),
    async (c) => {
      const { skip: _s, limit: _l, total, ...filter } = parseQuery(c, DeviceListQuerySchema);
      const page = pageOf(c, c.get('deps').limits);
      return listResponse(c, page, await listDevices({ deps: c.get('deps'), caller: c.get('caller'), input: { filter, page, total } }));
    },
  );

  r.post(
    '/',
    op({
      spec: 'addDeviceHome',
      summary: 'Provision on demand {token}, claim {claimCode, homeId}, or create {projectId, deviceClass} a device',
      success: 201,
      body: AddDeviceBodySchema,
      response: DeviceSchema,
      auth: 'anyone with a provisioning token; a member or project key to claim; a project key or a user allowed to create devices',
    }),
    async (c) => {
      try {
        return c.json(await addDeviceHome({ deps: c.get('deps'), caller: c.get('caller'), input: { body: await readBody(c) } }), 201);
      } catch (err) {
        // docs/api.md#errors: a used, expired or unknown provisioning token is 403 INVALID_TOKEN (not 401:
        // the request's credential, if any, was fine)
        if (isAppError(err) && err.reason === 'INVALID_TOKEN' && err.data?.credential === 'provisioning token') {
          return c.json({ reason: err.reason, data: err.data }, 403);
        }
        throw err;
      }
    },
  );

  r.get(
    '/:deviceId',
    op({
      spec: 'getDeviceInfo',
      summary: 'One device',
      success: 200,
      response: DeviceSchema,
      auth: 'project key with scope devices, a home member, or the device',
    }),
    // the commonest read: answered at once when the read cache holds the device. Its arguments
    // are one literal, as every route's here: a property added to a spread copy (`{ ...rest, input }`)
    // takes V8's slow path on Node 20, about a microsecond, a tenth of the GET (`npm run bench -- api`)
    (c) => after(getDevice({ deps: c.get('deps'), caller: c.get('caller'), input: { deviceId: deviceIdIn(c) } }), (d) => c.json(d)),
  );

  r.patch(
    '/:deviceId',
    op({
      spec: 'updateDeviceInfo',
      summary: 'Update name, description, tag (a project key also homeId and claimCode); read-only fields must be unchanged',
      success: 204,
      body: PatchDeviceBodySchema,
      auth: 'project key with scope devices, or a home member',
    }),
    deviceWrite(updateDevice),
  );

  r.delete(
    '/:deviceId',
    op({
      spec: 'deleteDevice',
      summary: 'Delete a device (a home member only removes it from the home)',
      success: 204,
      auth: 'project key with scope devices, or a home member',
    }),
    async (c) => {
      await deleteDevice({ deps: c.get('deps'), caller: c.get('caller'), input: { deviceId: deviceIdIn(c) } });
      return noContent(c);
    },
  );

  r.put(
    '/:deviceId/tag',
    op({
      spec: 'updateDeviceTag',
      summary: "Set the device's tag",
      success: 204,
      body: TagBodySchema,
      auth: 'project key with scope devices, a home member, or the device',
    }),
    deviceWrite(updateDeviceTag),
  );

  r.put(
    '/:deviceId/bundle',
    op({
      spec: 'recordFirmwareInstallation',
      summary: 'Record the firmware bundle the device installed',
      success: 204,
      body: FirmwareBodySchema,
      auth: 'project key with scope devices, or the device',
    }),
    deviceWrite(recordFirmwareInstallation),
  );

  r.get(
    '/:deviceId/configSchemas',
    op({
      spec: 'getDeviceConfigurationSchemas',
      summary: "Config schemas of the installed bundle's components ([] when none)",
      success: 200,
      response: v.array(ConfigSchemaSchema),
      auth: 'project key with scope devices, a home member, or the device',
    }),
    async (c) => {
      const page = pageOf(c, c.get('deps').limits);
      return sliceResponse(c, page, await getDeviceConfigurationSchemas({ deps: c.get('deps'), caller: c.get('caller'), input: { deviceId: deviceIdIn(c) } }));
    },
  );
});
