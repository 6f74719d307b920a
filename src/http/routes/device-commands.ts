// The command outbox of a device (docs/api.md#command-outbox, docs/concepts.md#command-outbox):
// commands that wait for a sleeping device, their states, cancellation, and the device's own
// answer. Mounted at /devices. PUT /devices/{id}/command (device-realtime.ts) is unchanged.
import * as v from 'valibot';
import { resource } from '../op.js';
import { readBody } from '../body.js';
import { listResponse, pageOf } from '../paging.js';
import { STATUSES, deviceIdIn } from '../params.js';
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
import { noContent } from '../no-content.js';

const auth = 'a project key with scope commands, a member of the device home';

export const deviceCommandsRoutes = resource({ tag: 'device command outbox', statuses: STATUSES.read, auth }, (r, op) => {
  r.post(
    '/:deviceId/commands',
    op({
      operationId: 'enqueueDeviceCommand',
      summary: 'Queue a command until the device is connected (201); the same idempotency key answers the earlier command (200)',
      success: 201,
      body: CreateCommandSchema,
      response: CommandSchema,
    }),
    async (c) => {
      const { command, created } = await enqueueCommand({
        deps: c.get('deps'),
        caller: c.get('caller'),
        input: { deviceId: deviceIdIn(c), body: await readBody(c) },
      });
      return c.json(toCommand(command), created ? 201 : 200);
    },
  );

  r.get(
    '/:deviceId/commands',
    op({
      operationId: 'getDeviceCommands',
      summary: 'Commands of the device outbox, newest first (`state` narrows)',
      success: 200,
      response: v.array(CommandSchema),
    }),
    async (c) => {
      const deps = c.get('deps');
      const page = pageOf(c, deps.limits);
      const { total, items } = await listCommands({
        deps,
        caller: c.get('caller'),
        input: { deviceId: deviceIdIn(c), query: { state: c.req.query('state') }, page },
      });
      return listResponse(c, page, { total, items: items.map(toCommand) });
    },
  );

  r.get(
    '/:deviceId/commands/:commandId',
    op({ operationId: 'getDeviceCommand', summary: 'One command of the device outbox', success: 200, response: CommandSchema }),
    async (c) => {
      const row = await getCommand({ deps: c.get('deps'), caller: c.get('caller'), input: { deviceId: deviceIdIn(c), commandId: c.req.param('commandId') } });
      return c.json(toCommand(row));
    },
  );

  r.delete(
    '/:deviceId/commands/:commandId',
    op({ operationId: 'cancelDeviceCommand', summary: 'Cancel an unfinished command (a finished one: 403 INVALID_STATE)', success: 204 }),
    async (c) => {
      await cancelCommand({ deps: c.get('deps'), caller: c.get('caller'), input: { deviceId: deviceIdIn(c), commandId: c.req.param('commandId') } });
      return noContent(c);
    },
  );

  r.post(
    '/:deviceId/commands/:commandId/ack',
    op({
      operationId: 'ackDeviceCommand',
      summary: "The device's answer to a command: status ok (acked, the default) or error (failed), with an optional result",
      success: 200,
      body: CommandAckSchema,
      response: CommandSchema,
      auth: 'the device itself',
    }),
    async (c) => {
      const row = await ackCommand({
        deps: c.get('deps'),
        caller: c.get('caller'),
        input: { deviceId: deviceIdIn(c), commandId: c.req.param('commandId'), body: await readBody(c) },
      });
      return c.json(toCommand(row));
    },
  );
});
