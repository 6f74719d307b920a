// What a report is made of: its columns and its rows, streamed page by page from the store
// (keyset order), so a large report never sits in memory whole. One source per kind.
import type { ReportRow, Store } from '../../ports/store.js';
import { deviceRows } from './rows-devices.js';
import { connectivityRows } from './rows-connectivity.js';
import { eventRows } from './rows-events.js';
import { deliveryRows } from './rows-deliveries.js';
import type { ReportTable, Window } from './table.js';

export type { Cell, ReportTable, Row, Window } from './table.js';

export function reportTable(store: Pick<Store, 'reportData'>, report: ReportRow, window: Window | undefined): ReportTable {
  const f = report.filter ?? {};
  const w = window ?? { since: report.creationTime, until: report.creationTime };
  switch (report.kind) {
    case 'devices':
      return deviceRows(store, report.projectId, f);
    case 'connectivity':
      return connectivityRows(store, report.projectId, f, w);
    case 'events':
      return eventRows(store, report.projectId, f, w);
    case 'deliveries':
      return deliveryRows(store, report.projectId, f, w);
  }
}
