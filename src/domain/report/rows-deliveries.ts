// `deliveries` report: the webhook deliveries created in the window, oldest first (filter:
// eventTypes), with their outcome so far: status, attempts, the last answer or error.
import type { ReportFilter, Store, TimeCursor } from '../../ports/store.js';
import { PAGE, type ReportTable, type Row, type Window } from './table.js';

export const DELIVERY_COLUMNS = [
  'creationTime',
  'id',
  'moduleId',
  'kind',
  'eventType',
  'status',
  'attempts',
  'lastStatusCode',
  'lastError',
  'updateTime',
] as const;

export function deliveryRows(store: Pick<Store, 'reportData'>, projectId: number, f: ReportFilter, w: Window): ReportTable {
  async function* rows(): AsyncIterable<Row> {
    let after: TimeCursor | null = null;
    for (;;) {
      const page = await store.reportData.deliveries({ projectId, ...w, eventTypes: f.eventTypes }, after, PAGE);
      for (const d of page) yield { ...d };
      if (page.length < PAGE) return;
      const last = page[page.length - 1];
      after = { time: last.creationTime, id: last.id };
    }
  }
  return { columns: DELIVERY_COLUMNS, rows: rows() };
}
