// The read-only queries reports compute from (docs/concepts.md#reports), in keyset order so that
// long runs can stream.
import type { TimeCursor } from './page.js';
import type { DeviceRow } from './devices.js';
import type { EventRecord } from './events.js';

/** an events-history row in the order reports read them (oldest first) */
export interface ReportEventRow {
  id: string;
  event: EventRecord;
}
export interface ReportDeliveryRow {
  id: string;
  moduleId: string;
  kind: string;
  eventType: string | null;
  status: string;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  creationTime: string;
  updateTime: string;
}

export interface ReportDataRepo {
  /** devices of the project with id > afterId, by id */
  devices(f: { projectId: number; homeId?: number; deviceClass?: string }, afterId: number, limit: number): Promise<DeviceRow[]>;
  /** per device, the time of its last `_deviceConnected_` and `_deviceDisconnected_` before `before` */
  lastConnectivity(projectId: number, before: string): Promise<{ deviceId: number; lastConnect: string | null; lastDisconnect: string | null }[]>;
  /** events of the project in [since, until), oldest first, after the cursor */
  events(
    f: { projectId: number; since: string; until: string; homeId?: number; deviceClass?: string; eventTypes?: string[] },
    after: TimeCursor | null,
    limit: number,
  ): Promise<ReportEventRow[]>;
  /** webhook deliveries of the project created in [since, until), oldest first */
  deliveries(
    f: { projectId: number; since: string; until: string; eventTypes?: string[] },
    after: TimeCursor | null,
    limit: number,
  ): Promise<ReportDeliveryRow[]>;
}
