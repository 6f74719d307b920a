// The delivery log (docs/webhooks.md): a module's deliveries newest first, one delivery with its payload
// and every attempt, and redelivery (a new round of retries, same delivery id).
import * as v from 'valibot';
import type { Deps, StoreOf, VerbArgs } from '../deps.js';
import type { Page, Paged } from '../../ports/store.js';
import { DELIVERY_STATUSES, type DeliveryAttempt, type DeliveryRow } from '../../ports/queue.js';
import { AppError } from '../errors.js';
import { parseWith } from '../validate.js';
import { moduleFor, type ModuleRef } from '../module/access.js';
import { WEBHOOK_QUEUE } from './fan-out.js';

export const DeliveryQuerySchema = v.object({
  status: v.optional(v.picklist(DELIVERY_STATUSES, `status must be one of ${DELIVERY_STATUSES.join(', ')}`)),
  since: v.optional(v.pipe(v.string(), v.isoTimestamp('since must be an RFC 3339 timestamp'))),
});

export interface DeliverySummary {
  id: string;
  moduleId: string;
  kind: DeliveryRow['kind'];
  status: DeliveryRow['status'];
  eventType?: string;
  eventId?: string;
  creationTime: string;
  updateTime: string;
  attemptCount: number;
  nextAttemptTime?: string;
  lastAttempt?: Omit<DeliveryAttempt, 'response'>;
}
export interface DeliveryDetail extends DeliverySummary {
  payload: unknown;
  attempts: DeliveryAttempt[];
}

export function deliverySummary(d: DeliveryRow): DeliverySummary {
  const s: DeliverySummary = {
    id: d.id,
    moduleId: d.moduleId,
    kind: d.kind,
    status: d.status,
    creationTime: d.creationTime,
    updateTime: d.updateTime,
    attemptCount: d.attempts.length,
  };
  if (d.eventType !== null) s.eventType = d.eventType;
  if (d.eventId !== null) s.eventId = d.eventId;
  if (d.status === 'pending' && d.nextAttemptTime) s.nextAttemptTime = d.nextAttemptTime;
  const last = d.attempts.at(-1);
  if (last) {
    const { response: _response, ...rest } = last;
    s.lastAttempt = rest;
  }
  return s;
}

export const deliveryDetail = (d: DeliveryRow): DeliveryDetail => ({ ...deliverySummary(d), payload: JSON.parse(d.payload), attempts: d.attempts });

type LogDeps = StoreOf<'deliveries' | 'modules'>;

export async function listDeliveries({
  deps,
  caller,
  input: { projectId, moduleId, query, page },
}: VerbArgs<LogDeps, ModuleRef & { query: unknown; page: Page }>): Promise<Paged<DeliverySummary>> {
  await moduleFor(deps, caller, projectId, moduleId);
  const q = parseWith(DeliveryQuerySchema, query);
  const since = q.since ? new Date(q.since).toISOString() : undefined;
  const r = await deps.store.deliveries.list({ projectId, moduleId, status: q.status, since }, page);
  return { total: r.total, items: r.items.map(deliverySummary) };
}

async function loadDelivery(deps: StoreOf<'deliveries'>, projectId: number, moduleId: string, deliveryId: string): Promise<DeliveryRow> {
  const d = deliveryId.length <= 64 ? await deps.store.deliveries.get(projectId, moduleId, deliveryId) : undefined;
  if (!d) throw new AppError('NOT_FOUND', { deliveryId });
  return d;
}

type DeliveryInput = ModuleRef & { deliveryId: string };

export async function getDelivery({ deps, caller, input: { projectId, moduleId, deliveryId } }: VerbArgs<LogDeps, DeliveryInput>): Promise<DeliveryDetail> {
  await moduleFor(deps, caller, projectId, moduleId);
  return deliveryDetail(await loadDelivery(deps, projectId, moduleId, deliveryId));
}

/** 202: the delivery is queued again now, with a fresh round of retries (a delivery in flight is left alone) */
export async function redeliver({
  deps,
  caller,
  input: { projectId, moduleId, deliveryId },
}: VerbArgs<Pick<Deps, 'bus' | 'clock'> & LogDeps, DeliveryInput>): Promise<DeliverySummary> {
  await moduleFor(deps, caller, projectId, moduleId);
  await loadDelivery(deps, projectId, moduleId, deliveryId);
  const d = await deps.store.deliveries.redeliver(projectId, moduleId, deliveryId, deps.clock.now().toISOString());
  if (!d) throw new AppError('NOT_FOUND', { deliveryId });
  await deps.bus.publish('work', { queue: WEBHOOK_QUEUE });
  return deliverySummary(d);
}
