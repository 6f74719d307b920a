// The command outbox of a device (docs/api.md#command-outbox, docs/concepts.md#command-outbox):
// commands that wait for a sleeping device, their states, cancellation, and the device's own
// answer. Mounted at /devices. PUT /devices/{id}/command (device-realtime.ts) is unchanged.
import { Hono, type Context } from 'hono';
import * as v from 'valibot';
import type { HttpEnv } from '../env.js';
import { op } from '../op.js';
import { readBody } from '../body.js';
import { listResponse, pageOf } from '../paging.js';
import { deviceIdOf } from '../../domain/id.js';
import {
  CommandAckSchema,
  CommandSchema,
  CreateCommandSchema,
  ackCommand,
  cancelCommand,
  enqueueCommand,
  getCommand,
  listCommands,
  toCommand,
} from '../../domain/command/index.js';

const tag = 'device command outbox';
const auth = 'a project key with scope commands, a member of the device home';
const STATUSES = [401, 403, 404, 429, 500, 503] as const;
const did = (c: Context) => deviceIdOf(c.req.param('deviceId') ?? '');

export function deviceCommandsRoutes(): Hono<HttpEnv> {
  const r = new Hono<HttpEnv>();

  r.post(
    '/:deviceId/commands',
    op({
      operationId: 'enqueueDeviceCommand',
      summary: 'Queue a command until the device is connected (201); the same idempotency key answers the earlier command (200)',
      tag,
      success: 201,
      statuses: STATUSES,
      body: CreateCommandSchema,
      response: CommandSchema,
      auth,
    }),
    async (c) => {
      const { command, created } = await enqueueCommand({ deps: c.get('deps'), caller: c.get('caller'), input: { deviceId: did(c), body: await readBody(c) } });
      return c.json(toCommand(command), created ? 201 : 200);
    },
  );

  r.get(
    '/:deviceId/commands',
    op({
      operationId: 'getDeviceCommands',
      summary: 'Commands of the device outbox, newest first (`state` narrows)',
      tag,
      success: 200,
      statuses: STATUSES,
      response: v.array(CommandSchema),
      auth,
    }),
    async (c) => {
      const deps = c.get('deps');
      const page = pageOf(c, deps.limits);
      const { total, items } = await listCommands({ deps, caller: c.get('caller'), input: { deviceId: did(c), query: { state: c.req.query('state') }, page } });
      return listResponse(c, page, { total, items: items.map(toCommand) });
    },
  );

  r.get(
    '/:deviceId/commands/:commandId',
    op({ operationId: 'getDeviceCommand', summary: 'One command of the device outbox', tag, success: 200, statuses: STATUSES, response: CommandSchema, auth }),
    async (c) => {
      const row = await getCommand({ deps: c.get('deps'), caller: c.get('caller'), input: { deviceId: did(c), commandId: c.req.param('commandId') } });
      return c.json(toCommand(row));
    },
  );

  r.delete(
    '/:deviceId/commands/:commandId',
    op({
      operationId: 'cancelDeviceCommand',
      summary: 'Cancel an unfinished command (a finished one: 403 INVALID_STATE)',
      tag,
      success: 204,
      statuses: STATUSES,
      auth,
    }),
    async (c) => {
      await cancelCommand({ deps: c.get('deps'), caller: c.get('caller'), input: { deviceId: did(c), commandId: c.req.param('commandId') } });
      return c.body(null, 204);
    },
  );

  r.post(
    '/:deviceId/commands/:commandId/ack',
    op({
      operationId: 'ackDeviceCommand',
      summary: "The device's answer to a command: status ok (acked, the default) or error (failed), with an optional result",
      tag,
      success: 200,
      statuses: STATUSES,
      body: CommandAckSchema,
      response: CommandSchema,
      auth: 'the device itself',
    }),
    async (c) => {
      const row = await ackCommand({
        deps: c.get('deps'),
        caller: c.get('caller'),
        input: { deviceId: did(c), commandId: c.req.param('commandId'), body: await readBody(c) },
      });
      return c.json(toCommand(row));
    },
  );

  return r;
}
