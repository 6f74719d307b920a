// A batch of records for a `webhook` data source (docs/concepts.md#data-sources): one delivery of the durable webhook
// queue (kind `data`, the source id in place of a module id), signed like every webhook (
// docs/webhooks.md#verifying-signatures, docs/webhooks.md) with the source's key when the worker sends it.
import type { DataSourceRow, DeviceRow } from '../../ports/store.js';
import type { NewDelivery } from '../../ports/queue.js';
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
  /** the delivery's id (Deps.ids) */
  id: string,
): NewDelivery {
  const body: DataBatchBody = {
    dataSourceId: source.id,
    projectId: source.projectId,
    deviceId: device.id,
    deviceClass: device.deviceClass,
    timestamp: now.toISOString(),
    data: records,
  };
  if (device.homeId !== null) body.homeId = device.homeId;
  return {
    id,
    projectId: source.projectId,
    moduleId: source.id,
    kind: 'data',
    eventId: null,
    eventType: null,
    payload: JSON.stringify(body),
    creationTime: body.timestamp,
  };
}
