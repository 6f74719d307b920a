// `devices` report: the devices of the project (filter: homeId, deviceClass) as they are when the
// report runs, by id.
import type { ReportFilter, Store } from '../../ports/store.js';
import { PAGE, type ReportTable, type Row } from './table.js';

export const DEVICE_COLUMNS = [
  'id',
  'name',
  'deviceClass',
  'homeId',
  'tag',
  'isConnected',
  'lastConnectTime',
  'lastDisconnectTime',
  'creationTime',
  'claimTime',
  'bundleInstalled',
] as const;

export function deviceRows(store: Pick<Store, 'reportData'>, projectId: number, f: ReportFilter): ReportTable {
  async function* rows(): AsyncIterable<Row> {
    let after = 0;
    for (;;) {
      const page = await store.reportData.devices({ projectId, homeId: f.homeId, deviceClass: f.deviceClass }, after, PAGE);
      for (const d of page) {
        yield {
          id: d.id,
          name: d.name,
          deviceClass: d.deviceClass,
          homeId: d.homeId,
          tag: d.tag,
          isConnected: d.isConnected,
          lastConnectTime: d.lastConnectTime,
          lastDisconnectTime: d.lastDisconnectTime,
          creationTime: d.creationTime,
          claimTime: d.claimTime,
          bundleInstalled: d.bundleInstalled,
        };
      }
      if (page.length < PAGE) return;
      after = page[page.length - 1].id;
    }
  }
  return { columns: DEVICE_COLUMNS, rows: rows() };
}
