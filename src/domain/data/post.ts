// postData (docs/concepts.md#data-sources, docs/api.md#device-operations; docs/concepts.md#data-sources), over HTTP and MQTT `/devices/{id}/data`: every record goes
// to each data source of the project whose class filter takes the device. `store` sources keep
// the records; `webhook` sources get the batch through the durable delivery queue. The records
// and the queued batches commit in ONE transaction: a post either counts for every source that
// accepted it or for none (a store failure is a 5xx, and the client may send again). A webhook
// source that is failing refuses the batch: the answer is `partial` with failedDataSources.
import type { DeviceRow } from '../../ports/store.js';
import type { Body, Deps, DeviceRef, StoreOf, SystemArgs, VerbArgs } from '../deps.js';
import { deviceFor } from '../auth/access.js';
import { parseInput } from '../validate.js';
import { DataPostSchema, type DataPostResult } from './schemas.js';
import { takesClass } from './access.js';
import { refusalOf } from './health.js';
import { dataBatchDelivery, DATA_QUEUE } from './webhook-batch.js';

type RouteDeps = Pick<Deps, 'bus' | 'clock' | 'ids'> & StoreOf<'dataSources' | 'transaction'>;
/** postData also finds the device and checks the caller may speak for it */
export type PostDeps = RouteDeps & StoreOf<'devices' | 'members'>;
type Device = Pick<DeviceRow, 'id' | 'projectId' | 'deviceClass' | 'homeId'>;

/** HTTP: the device itself, or a project key with scope `data` */
export async function postData({ deps, caller, input: { deviceId, body } }: VerbArgs<PostDeps, DeviceRef & Body>): Promise<DataPostResult> {
  const device = await deviceFor(deps, caller, deviceId, ['project key', 'self'], 'data');
  return routeData(deps, device, parseInput(DataPostSchema, body).data);
}

/** MQTT: the connection already proved it is the device */
export async function postDeviceData({ deps, input: { device, body } }: SystemArgs<RouteDeps, { device: Device } & Body>): Promise<DataPostResult> {
  return routeData(deps, device, parseInput(DataPostSchema, body).data);
}

export async function routeData(deps: RouteDeps, device: Device, records: Record<string, unknown>[]): Promise<DataPostResult> {
  const now = deps.clock.now();
  const timestamp = now.toISOString();
  const sources = (await deps.store.dataSources.list(device.projectId)).filter((s) => takesClass(s, device.deviceClass));
  const failed: [string, string][] = [];
  const stores = sources.filter((s) => s.type === 'store');
  const hooks = sources.filter((s) => {
    if (s.type !== 'webhook') return false;
    const refused = refusalOf(s, now);
    if (refused) failed.push([s.id, refused]);
    return !refused;
  });
  if (stores.length || hooks.length) {
    const rows = stores.flatMap((s) => records.map((data) => ({ projectId: device.projectId, sourceId: s.id, deviceId: device.id, timestamp, data })));
    const batches = hooks.map((s) => dataBatchDelivery(s, device, records, now, deps.ids.delivery(now)));
    await deps.store.transaction(async (tx) => {
      if (rows.length) await tx.dataRecords.insertMany(rows);
      if (batches.length) await tx.deliveries.insertMany(batches);
    });
    // wakes workers at once; they poll the queue anyway
    if (batches.length) await deps.bus.publish('work', { queue: DATA_QUEUE });
  }
  return failed.length ? { result: 'partial', failedDataSources: failed } : { result: 'success' };
}
