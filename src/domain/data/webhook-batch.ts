// A batch of records for a `webhook` data source (API.md §6): one delivery of the durable webhook
// queue (kind `data`, the source id in place of a module id), signed like every webhook (SPEC
// §5.3, API.md §9) with the source's key when the worker sends it.
import type { DataSourceRow, DeviceRow } from '../../ports/store.js';
import type { NewDelivery } from '../../ports/queue.js';
import { newDeliveryId } from '../webhook/ids.js';
import { WEBHOOK_QUEUE } from '../webhook/fan-out.js';

/** the same queue and workers as event and command webhooks */
export const DATA_QUEUE = WEBHOOK_QUEUE;

/** the body the receiver gets */
export interface DataBatchBody {
  dataSourceId: string;
  projectId: number;
  deviceId: number;
  deviceClass: string;
  homeId?: number;
  timestamp: string;
  data: Record<string, unknown>[];
}

export function dataBatchDelivery(
  source: Pick<DataSourceRow, 'id' | 'projectId'>,
  device: Pick<DeviceRow, 'id' | 'deviceClass' | 'homeId'>,
  records: Record<string, unknown>[],
  now: Date,
): NewDelivery {
  const body: DataBatchBody = { dataSourceId: source.id, projectId: source.projectId, deviceId: device.id, deviceClass: device.deviceClass, timestamp: now.toISOString(), data: records };
  if (device.homeId !== null) body.homeId = device.homeId;
  return {
    id: newDeliveryId(now),
    projectId: source.projectId,
    moduleId: source.id,
    kind: 'data',
    eventId: null,
    eventType: null,
    payload: JSON.stringify(body),
    creationTime: body.timestamp,
  };
}
