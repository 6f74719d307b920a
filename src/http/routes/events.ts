// The events history (docs/concepts.md): GET /events?projectId&homeId&deviceId&eventType&since&until.
// Mounted at /events (see index.ts). Our own endpoint (docs/api.md#errors statuses): a project key with
// scope `events` reads its own project's events, as delivered (docs/concepts.md#events with service fields).
import { Hono } from 'hono';
import * as v from 'valibot';
import type { HttpEnv } from '../env.js';
import { op } from '../op.js';
import { parseQuery } from '../body.js';
import { listResponse, pageOf } from '../paging.js';
import { historyProject } from '../../domain/log/query.js';
import { EventQuerySchema, EventSchema, listEvents } from '../../domain/event/list.js';

export function eventsRoutes(): Hono<HttpEnv> {
  const r = new Hono<HttpEnv>();
  r.get(
    '/',
    op({
      operationId: 'getEvents',
      summary: 'Events history, newest first',
      tag: 'events',
      success: 200,
      statuses: [401, 403, 429, 500, 503],
      query: EventQuerySchema,
      response: v.array(EventSchema),
      auth: 'a project key with scope events, for its own project',
    }),
    async (c) => {
      const deps = c.get('deps');
      // the credential first: who may not read learns nothing about the query
      historyProject(c.get('caller'), undefined, 'events');
      const q = parseQuery(c, EventQuerySchema);
      const page = pageOf(c, deps.limits);
      return listResponse(c, page, await listEvents({ deps, caller: c.get('caller'), input: { query: q, page } }));
    },
  );
  return r;
}
