// Firmware rollouts (docs/firmware.md#rollouts). Mounted at /projects. A project key with scope devices.
import type { Context } from 'hono';
import * as v from 'valibot';
import { resource } from '../op.js';
import { readBody } from '../body.js';
import { listResponse, pageOf } from '../paging.js';
import { STATUSES, projectIdIn } from '../params.js';
import {
  CreateRolloutSchema,
  PatchRolloutSchema,
  RolloutDeviceSchema,
  RolloutDevicesQuerySchema,
  RolloutSchema,
  createRollout,
  getRollout,
  listRolloutDevices,
  listRollouts,
  patchRollout,
} from '../../domain/rollout/index.js';

const ids = (c: Context) => ({ projectId: projectIdIn(c), rolloutId: c.req.param('rolloutId') ?? '' });

export const rolloutsRoutes = resource({ tag: 'firmware', statuses: STATUSES.read, auth: 'project key with scope devices' }, (r, op) => {
  r.get(
    '/:projectId/rollouts',
    op({ operationId: 'getRollouts', summary: "A project's firmware rollouts, newest first", success: 200, response: v.array(RolloutSchema) }),
    async (c) => {
      const page = pageOf(c, c.get('deps').limits);
      return listResponse(c, page, await listRollouts({ deps: c.get('deps'), caller: c.get('caller'), input: { projectId: projectIdIn(c), page } }));
    },
  );

  r.post(
    '/:projectId/rollouts',
    op({
      operationId: 'createRollout',
      summary: 'Roll a bundle out to the devices of its class, in waves',
      success: 201,
      body: CreateRolloutSchema,
      response: RolloutSchema,
    }),
    async (c) =>
      c.json(await createRollout({ deps: c.get('deps'), caller: c.get('caller'), input: { projectId: projectIdIn(c), body: await readBody(c) } }), 201),
  );

  r.get(
    '/:projectId/rollouts/:rolloutId',
    op({ operationId: 'getRollout', summary: 'One rollout, with its counts', success: 200, response: RolloutSchema }),
    async (c) => c.json(await getRollout({ deps: c.get('deps'), caller: c.get('caller'), input: ids(c) })),
  );

  r.patch(
    '/:projectId/rollouts/:rolloutId',
    op({
      operationId: 'updateRollout',
      summary: 'Pause, resume or abort a rollout (aborting cancels its commands still queued or sent)',
      success: 200,
      body: PatchRolloutSchema,
      response: RolloutSchema,
    }),
    async (c) => c.json(await patchRollout({ deps: c.get('deps'), caller: c.get('caller'), input: { ...ids(c), body: await readBody(c) } })),
  );

  r.get(
    '/:projectId/rollouts/:rolloutId/devices',
    op({
      operationId: 'getRolloutDevices',
      summary: 'The devices of a rollout and their states, by device id',
      success: 200,
      query: RolloutDevicesQuerySchema,
      response: v.array(RolloutDeviceSchema),
    }),
    async (c) => {
      const page = pageOf(c, c.get('deps').limits);
      return listResponse(
        c,
        page,
        await listRolloutDevices({ deps: c.get('deps'), caller: c.get('caller'), input: { ...ids(c), query: c.req.query(), page } }),
      );
    },
  );
});
