// The browser event stream (docs/devices.md#mqtt), documented here; the stream itself is the broker's (a
// WebSocket upgrade of this path never reaches Hono). A plain GET is told to upgrade. Mounted at /.
import { Hono } from 'hono';
import * as v from 'valibot';
import type { HttpEnv } from '../env.js';
import { op } from '../op.js';
import { AppError } from '../../domain/errors.js';
import { requireCaller } from '../../domain/auth/access.js';

const StreamQuery = v.object({
  homeId: v.optional(v.pipe(v.string(), v.description('only events of this home'))),
  eventTypes: v.optional(v.pipe(v.string(), v.description('only these event types, comma-separated'))),
});

export function realtimeRoutes(): Hono<HttpEnv> {
  const r = new Hono<HttpEnv>();

  r.get(
    '/userSession/websocket',
    op({
      operationId: 'userEventStream',
      summary: 'WebSocket (Upgrade: websocket): one text frame per event of the homes the caller can see; without the upgrade, 403',
      tag: 'realtime',
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

  return r;
}
