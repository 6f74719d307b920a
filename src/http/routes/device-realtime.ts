// Commands and events of one device (docs/api.md#device-operations sendCommandDevice, sendDeviceEventCloud,
// receiveCommands; docs/concepts.md#devices). Mounted at /devices (see index.ts). The live channels themselves
// (the command WebSocket, MQTT) are the broker's: a WebSocket upgrade of GET /devices/{id}/command
// never reaches Hono; a plain GET does, and is told so.
import { resource } from '../op.js';
import { readBody } from '../body.js';
import { AppError } from '../../domain/errors.js';
import { deviceFor } from '../../domain/auth/access.js';
import { deviceIdIn, deviceWrite } from '../params.js';
import { CommandBodySchema, sendCommand } from '../../domain/command/index.js';
import { EventBodySchema } from '../../domain/event/schemas.js';
import { sendEvent } from '../../domain/event/send.js';
import { noContent } from '../no-content.js';

export const device_realtimeRoutes = resource({ tag: 'device realtime' }, (r, op) => {
  r.put(
    '/:deviceId/command',
    op({
      spec: 'sendCommandDevice',
      summary: 'Send a command to every live connection of the device (403 DEVICE_OFFLINE when it has none)',
      success: 204,
      body: CommandBodySchema,
      auth: 'a project key with scope commands, a member of the device home',
    }),
    deviceWrite(sendCommand),
  );

  r.put(
    '/:deviceId/event',
    op({
      spec: 'sendDeviceEventCloud',
      summary: 'Send an event from the device (its own key) or from a project key; the service adds timestamp, homeId and origin fields',
      success: 204,
      body: EventBodySchema,
      auth: 'the device itself, a project key with scope events',
    }),
    // 204 only once the event is in the events history. Written out, not deviceWrite(): the
    // event path is hot (`npm run bench -- webhooks`)
    async (c) => {
      await sendEvent({ deps: c.get('deps'), caller: c.get('caller'), input: { deviceId: deviceIdIn(c), body: await readBody(c) } });
      return noContent(c);
    },
  );

  r.get(
    '/:deviceId/command',
    op({
      spec: 'receiveCommands',
      summary: 'WebSocket (Upgrade: websocket): one text frame {action, parameters} per command; without the upgrade, 403',
      success: 101,
      auth: 'the device itself (its key in the Authorization header, or authToken in the query)',
      queryToken: true,
    }),
    async (c) => {
      await deviceFor(c.get('deps'), c.get('caller'), deviceIdIn(c), ['self']);
      throw new AppError('INVALID_PARAMETERS', {
        issues: [{ path: 'upgrade', message: 'GET /devices/{deviceId}/command is a WebSocket: send Connection: Upgrade and Upgrade: websocket' }],
      });
    },
  );
});
