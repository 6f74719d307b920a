// The one event pipeline (API.md §5): every accepted event — device, project key or system — is
// recorded in the events history and announced on the bus for live watchers. Webhook deliveries
// join here as an outbox written in the same transaction (issue: webhooks).
import type { Deps } from '../deps.js';
import type { EventRecord } from '../../ports/store.js';
import { randomId } from '../auth/tokens.js';

export interface EmitInput {
  projectId: number;
  event: EventRecord;
}

/** time-ordered, unique: sorts like the timestamp within one process */
export function newEventId(now: Date): string {
  return `${now.getTime().toString(36).padStart(9, '0')}-${randomId(9)}`;
}

export async function emitEvent(deps: Pick<Deps, 'store' | 'bus' | 'clock'>, input: EmitInput): Promise<string> {
  const id = newEventId(deps.clock.now());
  await deps.store.events.insert({ id, projectId: input.projectId, event: input.event });
  await deps.bus.publish('event', { projectId: input.projectId, deviceId: input.event.originDeviceId, event: input.event });
  return id;
}

/** a system event about a device carries its id, class and home (API.md §5) */
export function deviceSystemEvent(
  device: { id: number; deviceClass: string; homeId: number | null },
  eventType: string,
  eventData: Record<string, unknown>,
  now: Date,
): EventRecord {
  const e: EventRecord = {
    eventType,
    eventData,
    timestamp: now.toISOString(),
    originDeviceId: device.id,
    originDeviceClass: device.deviceClass,
  };
  if (device.homeId !== null) e.homeId = device.homeId;
  return e;
}
