// The browser event stream (docs/devices.md#mqtt), documented here; the stream itself is the broker's (a
// WebSocket upgrade of this path never reaches Hono). A plain GET is told to upgrade. Mounted at /.
// Also the stream tickets browsers open their WebSockets with (docs/api.md#stream-tickets).
import * as v from 'valibot';
import { resource } from '../op.js';
import { STATUSES } from '../params.js';
import { AppError } from '../../domain/errors.js';
import { requireCaller } from '../../domain/auth/access.js';
import { tokenFromHeader } from '../../domain/auth/resolve.js';
import { StreamTicketSchema, issueStreamTicket } from '../../domain/auth/ticket.js';

const StreamQuery = v.object({
  homeId: v.optional(v.pipe(v.string(), v.description('only events of this home'))),
  eventTypes: v.optional(v.pipe(v.string(), v.description('only these event types, comma-separated'))),
});

export const realtimeRoutes = resource({ tag: 'realtime' }, (r, op) => {
  r.get(
    '/userSession/websocket',
    op({
      operationId: 'userEventStream',
      summary: 'WebSocket (Upgrade: websocket): one text frame per event of the homes the caller can see; without the upgrade, 403',
      statuses: [401, 403, 404, 500, 503],
      success: 101,
      query: StreamQuery,
      auth: 'a user token (its homes) or a project key with scope events (every home of its project)',
      queryToken: true,
    }),
    async (c) => {
      requireCaller(c.get('caller'));
      throw new AppError('INVALID_PARAMETERS', {
        issues: [{ path: 'upgrade', message: 'GET /userSession/websocket is a WebSocket: send Connection: Upgrade and Upgrade: websocket' }],
      });
    },
  );

  r.post(
    '/auth/ticket',
    op({
      operationId: 'createStreamTicket',
      summary:
        'A single-use ticket, valid a few seconds, for opening a WebSocket as the presented credential without putting the credential in the URL: `?ticket=` on /userSession/websocket, /devices/{deviceId}/kv or /devices/{deviceId}/command',
      success: 201,
      statuses: STATUSES.list,
      response: StreamTicketSchema,
      auth: 'a project key, a user token or a device key, in the Authorization header',
    }),
    async (c) =>
      c.json(await issueStreamTicket({ deps: c.get('deps'), caller: c.get('caller'), input: { token: tokenFromHeader(c.req.header('authorization')) } }), 201),
  );
});
