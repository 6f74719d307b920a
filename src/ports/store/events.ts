// The events history (docs/concepts.md#events): every accepted event, listed newest first.
import type { Page, Paged } from './page.js';

/** An event as delivered (docs/concepts.md#events with the service fields filled). */
export interface EventRecord {
  eventType: string;
  eventData: Record<string, unknown>;
  timestamp: string;
  homeId?: number;
  originDeviceId?: number;
  originDeviceClass?: string;
  originDeviceIp?: string;
  originProjectKeyId?: string;
  originProjectKeyName?: string;
}
export interface EventRow {
  id: string;
  projectId: number;
  event: EventRecord;
  /** JSON.stringify(event), when the caller already has it (one serialisation per event) */
  json?: string;
}
export interface EventFilter {
  projectId: number;
  homeId?: number;
  deviceId?: number;
  eventType?: string;
  since?: string;
  until?: string;
}

export interface EventRepo {
  insert(row: EventRow): Promise<void>;
  /** several at once (the event pipeline's group commit) */
  insertMany(rows: EventRow[]): Promise<void>;
  list(f: EventFilter, page: Page): Promise<Paged<EventRow>>;
}
