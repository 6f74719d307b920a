// The events history (docs/concepts.md): GET /events?projectId&homeId&deviceId&eventType&since&until.
// Mounted at /events (see index.ts). Our own endpoint (docs/api.md#errors statuses): a project key with
// scope `events` reads its own project's events, as delivered (docs/concepts.md#events with service fields).
import * as v from 'valibot';
import { resource } from '../op.js';
import { historyList } from '../paging.js';
import { STATUSES } from '../params.js';
import { EventQuerySchema, EventSchema, listEvents } from '../../domain/event/list.js';

export const eventsRoutes = resource({ tag: 'events' }, (r, op) => {
  r.get(
    '/',
    op({
      operationId: 'getEvents',
      summary: 'Events history, newest first',
      success: 200,
      statuses: STATUSES.list,
      query: EventQuerySchema,
      response: v.array(EventSchema),
      auth: 'a project key with scope events, for its own project',
    }),
    historyList('events', EventQuerySchema, listEvents),
  );
});
