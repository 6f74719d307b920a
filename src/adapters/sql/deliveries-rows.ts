// The delivery queue's table as Kysely sees it, and its rows as the Queue port hands them out:
// shared by the rows side (deliveries.ts) and the worker's side (deliveries-lease.ts).
import type { Kysely, Selectable } from 'kysely';
import type { Columns, Database } from './schema.js';
import type { DeliveryKind, DeliveryRow, DeliveryStatus } from '../../ports/queue.js';

/** the row, plus the lane that orders claims (event deliveries apart from the rest); attempts are JSON text */
export type DeliveriesTable = Columns<DeliveryRow, { kind: string; lane: string; status: string; attempts: string }>;
export type DeliveriesDb = Kysely<Database & { deliveries: DeliveriesTable }>;

export function toRow(r: Selectable<DeliveriesTable>): DeliveryRow {
  return {
    id: r.id,
    projectId: r.projectId,
    moduleId: r.moduleId,
    kind: r.kind as DeliveryKind,
    eventId: r.eventId,
    eventType: r.eventType,
    payload: r.payload,
    status: r.status as DeliveryStatus,
    attempts: JSON.parse(r.attempts),
    roundAttempts: r.roundAttempts,
    nextAttemptTime: r.nextAttemptTime,
    creationTime: r.creationTime,
    updateTime: r.updateTime,
    claimedBy: r.claimedBy,
  };
}

/** a row as SQLite hands it back without Kysely's camelCase mapping (sqlite-raw.ts) */
export function fromSnake(r: Record<string, any>): DeliveryRow {
  return toRow({
    id: r.id,
    projectId: r.project_id,
    moduleId: r.module_id,
    kind: r.kind,
    lane: r.lane,
    eventId: r.event_id,
    eventType: r.event_type,
    payload: r.payload,
    status: r.status,
    attempts: r.attempts,
    roundAttempts: r.round_attempts,
    nextAttemptTime: r.next_attempt_time,
    creationTime: r.creation_time,
    updateTime: r.update_time,
    claimedBy: r.claimed_by,
  });
}
