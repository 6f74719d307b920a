// `events` report: the events history of the window, oldest first (filter: homeId, deviceClass
// of the origin device, eventTypes). eventData is written as its JSON text.
import type { ReportFilter, Store, TimeCursor } from '../../ports/store.js';
import { PAGE, type ReportTable, type Row, type Window } from './table.js';

export const EVENT_COLUMNS = ['timestamp', 'eventType', 'homeId', 'originDeviceId', 'originDeviceClass', 'originProjectKeyId', 'eventData'] as const;

export function eventRows(store: Pick<Store, 'reportData'>, projectId: number, f: ReportFilter, w: Window): ReportTable {
  async function* rows(): AsyncIterable<Row> {
    let after: TimeCursor | null = null;
    for (;;) {
      const page = await store.reportData.events({ projectId, ...w, homeId: f.homeId, deviceClass: f.deviceClass, eventTypes: f.eventTypes }, after, PAGE);
      for (const { event: e } of page) {
        yield {
          timestamp: e.timestamp,
          eventType: e.eventType,
          homeId: e.homeId ?? null,
          originDeviceId: e.originDeviceId ?? null,
          originDeviceClass: e.originDeviceClass ?? null,
          originProjectKeyId: e.originProjectKeyId ?? null,
          eventData: JSON.stringify(e.eventData ?? {}),
        };
      }
      if (page.length < PAGE) return;
      const last = page[page.length - 1];
      after = { time: last.event.timestamp, id: last.id };
    }
  }
  return { columns: EVENT_COLUMNS, rows: rows() };
}
