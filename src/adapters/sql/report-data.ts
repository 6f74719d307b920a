// What reports are computed from (docs/concepts.md#reports): devices, the connectivity system events, the events
// history and webhook deliveries, read in keyset order (time, id) so that a long run streams page
// by page and a row inserted meanwhile never shifts a page. Read-only; the tables belong to their
// own repositories (devices.ts, logs.ts, deliveries.ts).
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { EventRecord, TimeCursor, ReportDataRepo } from '../../ports/store.js';
import type { DeliveryAttempt } from '../../ports/queue.js';

interface DeliveriesView {
  id: string;
  projectId: number;
  moduleId: string;
  kind: string;
  eventType: string | null;
  status: string;
  attempts: string;
  creationTime: string;
  updateTime: string;
}
type Db = Kysely<Database & { deliveries: DeliveriesView }>;

const CONNECTED = '_deviceConnected_';
const DISCONNECTED = '_deviceDisconnected_';

export function reportDataRepo(base: Kysely<Database>): ReportDataRepo {
  const db = base as unknown as Db;
  return {
    async devices(f, afterId, limit) {
      let q = db.selectFrom('devices').selectAll().where('projectId', '=', f.projectId).where('id', '>', afterId);
      if (f.homeId !== undefined) q = q.where('homeId', '=', f.homeId);
      if (f.deviceClass !== undefined) q = q.where('deviceClass', '=', f.deviceClass);
      const rows = await q.orderBy('id').limit(limit).execute();
      return rows.map((r) => ({ ...r, isConnected: !!r.isConnected }));
    },

    async lastConnectivity(projectId, before) {
      const rows = await db
        .selectFrom('events')
        .select([
          'deviceId',
          sql<string | null>`max(case when event_type = ${CONNECTED} then timestamp end)`.as('lastConnect'),
          sql<string | null>`max(case when event_type = ${DISCONNECTED} then timestamp end)`.as('lastDisconnect'),
        ])
        .where('projectId', '=', projectId)
        .where('eventType', 'in', [CONNECTED, DISCONNECTED])
        .where('deviceId', 'is not', null)
        .where('timestamp', '<', before)
        .groupBy('deviceId')
        .execute();
      return rows.map((r) => ({ deviceId: Number(r.deviceId), lastConnect: r.lastConnect, lastDisconnect: r.lastDisconnect }));
    },

    async events(f, after, limit) {
      let q = db
        .selectFrom('events')
        .select(['id', 'body', 'timestamp'])
        .where('projectId', '=', f.projectId)
        .where('timestamp', '>=', f.since)
        .where('timestamp', '<', f.until);
      if (f.homeId !== undefined) q = q.where('homeId', '=', f.homeId);
      if (f.eventTypes?.length) q = q.where('eventType', 'in', f.eventTypes);
      if (f.deviceClass !== undefined) {
        const cls = f.deviceClass;
        q = q.where('deviceId', 'in', (e) =>
          e.selectFrom('devices').select('devices.id').where('devices.projectId', '=', f.projectId).where('devices.deviceClass', '=', cls),
        );
      }
      if (after) q = q.where((e) => e.or([e('timestamp', '>', after.time), e.and([e('timestamp', '=', after.time), e('id', '>', after.id)])]));
      const rows = await q.orderBy('timestamp').orderBy('id').limit(limit).execute();
      return rows.map((r) => ({ id: r.id, event: JSON.parse(r.body) as EventRecord }));
    },

    async deliveries(f, after, limit) {
      let q = db
        .selectFrom('deliveries')
        .select(['id', 'moduleId', 'kind', 'eventType', 'status', 'attempts', 'creationTime', 'updateTime'])
        .where('projectId', '=', f.projectId)
        .where('creationTime', '>=', f.since)
        .where('creationTime', '<', f.until);
      if (f.eventTypes?.length) q = q.where('eventType', 'in', f.eventTypes);
      if (after) q = q.where((e) => e.or([e('creationTime', '>', after.time), e.and([e('creationTime', '=', after.time), e('id', '>', after.id)])]));
      const rows = await q.orderBy('creationTime').orderBy('id').limit(limit).execute();
      return rows.map((r) => {
        const attempts = JSON.parse(r.attempts) as DeliveryAttempt[];
        const last = attempts.at(-1);
        return {
          id: r.id,
          moduleId: r.moduleId,
          kind: r.kind,
          eventType: r.eventType,
          status: r.status,
          attempts: attempts.length,
          lastStatusCode: last?.statusCode ?? null,
          lastError: last?.error ?? null,
          creationTime: r.creationTime,
          updateTime: r.updateTime,
        };
      });
    },
  };
}
