// Firmware rollouts (docs/firmware.md#rollouts). Mounted at /projects. A project key with scope devices.
import { Hono, type Context } from 'hono';
import * as v from 'valibot';
import type { HttpEnv } from '../env.js';
import { op } from '../op.js';
import { readBody } from '../body.js';
import { listResponse, pageOf } from '../paging.js';
import { STATUSES, actor, pathId } from '../params.js';
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

const tag = 'firmware';
const auth = 'project key with scope devices';
const pid = (c: Context) => pathId(c, 'projectId', 'PROJECT_NOT_FOUND');
const ids = (c: Context) => ({ projectId: pid(c), rolloutId: c.req.param('rolloutId') ?? '' });

export function rolloutsRoutes(): Hono<HttpEnv> {
  const r = new Hono<HttpEnv>();

  r.get(
    '/:projectId/rollouts',
    op({
      operationId: 'getRollouts',
      summary: "A project's firmware rollouts, newest first",
      tag,
      success: 200,
      statuses: STATUSES.read,
      response: v.array(RolloutSchema),
      auth,
    }),
    async (c) => {
      const page = pageOf(c, c.get('deps').limits);
      return listResponse(c, page, await listRollouts({ ...actor(c), input: { projectId: pid(c), page } }));
    },
  );

  r.post(
    '/:projectId/rollouts',
    op({
      operationId: 'createRollout',
      summary: 'Roll a bundle out to the devices of its class, in waves',
      tag,
      success: 201,
      statuses: STATUSES.read,
      body: CreateRolloutSchema,
      response: RolloutSchema,
      auth,
    }),
    async (c) => c.json(await createRollout({ ...actor(c), input: { projectId: pid(c), body: await readBody(c) } }), 201),
  );

  r.get(
    '/:projectId/rollouts/:rolloutId',
    op({ operationId: 'getRollout', summary: 'One rollout, with its counts', tag, success: 200, statuses: STATUSES.read, response: RolloutSchema, auth }),
    async (c) => c.json(await getRollout({ ...actor(c), input: ids(c) })),
  );

  r.patch(
    '/:projectId/rollouts/:rolloutId',
    op({
      operationId: 'updateRollout',
      summary: 'Pause, resume or abort a rollout (aborting cancels its commands still queued or sent)',
      tag,
      success: 200,
      statuses: STATUSES.read,
      body: PatchRolloutSchema,
      response: RolloutSchema,
      auth,
    }),
    async (c) => c.json(await patchRollout({ ...actor(c), input: { ...ids(c), body: await readBody(c) } })),
  );

  r.get(
    '/:projectId/rollouts/:rolloutId/devices',
    op({
      operationId: 'getRolloutDevices',
      summary: 'The devices of a rollout and their states, by device id',
      tag,
      success: 200,
      statuses: STATUSES.read,
      query: RolloutDevicesQuerySchema,
      response: v.array(RolloutDeviceSchema),
      auth,
    }),
    async (c) => {
      const page = pageOf(c, c.get('deps').limits);
      return listResponse(c, page, await listRolloutDevices({ ...actor(c), input: { ...ids(c), query: c.req.query(), page } }));
    },
  );

  return r;
}
